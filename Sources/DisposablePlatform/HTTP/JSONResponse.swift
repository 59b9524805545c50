import DisposableAPI
import DisposableCore
import Foundation
import Hummingbird
import NIOCore

/// A JSON response in the API's one encoding (sorted keys, RFC 3339 times).
package func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let data = try JSONEncoder.sorted.encode(value)
    return Response(
        status: status,
        headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
        body: .init(byteBuffer: ByteBuffer(data: data))
    )
}
