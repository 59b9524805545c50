import DisposableCore
import Hummingbird
import NIOCore

/// Writes a long response body (an original, a ZIP) no faster than the client reads it.
///
/// A body writer's `write` hands the bytes to the connection's event loop and returns at once while the socket
/// counts as writable; the event loop learns it is not only when it gets round to those writes. A fast producer
/// on another thread could queue a whole file meanwhile, for every client that stopped reading. After each
/// write this waits for the event loop to pass the same point: the writes before are then done, and if the
/// socket is full the next write waits until the client reads.
package struct PacedWriter {
    package var writer: any ResponseBodyWriter
    package let eventLoop: any EventLoop

    package init(writer: any ResponseBodyWriter, eventLoop: any EventLoop) {
        self.writer = writer
        self.eventLoop = eventLoop
    }

    package mutating func write(_ buffer: ByteBuffer) async throws {
        try await writer.write(buffer)
        try await eventLoop.submit {}.get()
    }
}
