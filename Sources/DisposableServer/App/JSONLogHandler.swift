import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableWeb
import Foundation
import Logging
import NIOConcurrencyHelpers

/// One JSON object per line on standard output (`--log-format json`, OPS-2), for log collectors: `time`,
/// `level`, `label`, `message`, `source`, and every metadata key — Hummingbird's `hb.request.id` among them, so
/// that a request's lines can be found together.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let label: String
    private static let output = NIOLock()

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [
            "time": Date().rfc3339, "level": event.level.rawValue, "label": label, "message": event.message.description,
            "source": event.source,
        ]
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        for (key, value) in all where fields[key] == nil { fields[key] = Self.plain(value) }
        if let error = event.error { fields["error"] = String(describing: error) }
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(UInt8(ascii: "\n"))
        Self.output.withLock { FileHandle.standardOutput.write(line) }
    }

    private static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }
}
