/// Every API error (RFC 9457, `application/problem+json`): a sentence a person understands in `detail`, and
/// members of its own for some kinds (`field`, `existingId`).
public struct ProblemDocument: Codable, Sendable, Equatable {
    /// `/problems/<slug>`, e.g. `/problems/shot-limit-reached`.
    public var type: String
    public var title: String
    public var detail: String
    public var status: Int
    /// The other members, all text.
    public var extensions: [String: String]

    public init(type: String, title: String, detail: String, status: Int, extensions: [String: String] = [:]) {
        self.type = type
        self.title = title
        self.detail = detail
        self.status = status
        self.extensions = extensions
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    private static let members: Set<String> = ["type", "title", "detail", "status"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        type = try container.decode(String.self, forKey: Key(stringValue: "type"))
        title = try container.decode(String.self, forKey: Key(stringValue: "title"))
        detail = try container.decode(String.self, forKey: Key(stringValue: "detail"))
        status = try container.decode(Int.self, forKey: Key(stringValue: "status"))
        var extensions: [String: String] = [:]
        for key in container.allKeys where !Self.members.contains(key.stringValue) {
            if let text = try? container.decode(String.self, forKey: key) { extensions[key.stringValue] = text }
        }
        self.extensions = extensions
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in extensions where !Self.members.contains(name) { try container.encode(value, forKey: Key(stringValue: name)) }
        try container.encode(type, forKey: Key(stringValue: "type"))
        try container.encode(title, forKey: Key(stringValue: "title"))
        try container.encode(detail, forKey: Key(stringValue: "detail"))
        try container.encode(status, forKey: Key(stringValue: "status"))
    }
}
