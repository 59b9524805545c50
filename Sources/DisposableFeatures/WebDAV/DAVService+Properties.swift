import DisposableCore
import DisposablePlatform
import Foundation

/// PROPPATCH (RFC 4918 §9.2): the properties clients keep on a path, changed all or nothing. DAV's own properties
/// are the server's (403 each, the others then 424).
extension DAVService {
    package static let maxProperties = 100
    package static let maxPropertyBytes = 16 * 1024

    /// Each property with its status, in the order sent.
    package func changeProperties(_ changes: [DAVPropertyChange], at path: String, for user: User) async throws -> [(DAVName, String)] {
        guard !path.isEmpty else { throw Self.notHere }
        guard let entry = try await entries.entry(userID: user.id, path: path) else { throw Self.nothingHere }
        let names = changes.map { change -> DAVName in
            switch change {
            case .set(let name, _), .remove(let name): name
            }
        }
        let refused = Set(names.filter { $0.namespace == "DAV:" })
        var properties = entry.properties
        for change in changes where refused.isEmpty {
            switch change {
            case .set(let name, let value):
                guard value.utf8.count <= Self.maxPropertyBytes else {
                    throw Problem(.contentTooLarge, "dav-property-too-large", title: "Too large", detail: "A property holds at most 16 KB.")
                }
                properties.removeAll { $0.name == name }
                properties.append(DAVDeadProperty(name: name, value: value))
            case .remove(let name):
                properties.removeAll { $0.name == name }
            }
        }
        guard properties.count <= Self.maxProperties else {
            throw Problem(.insufficientStorage, "dav-too-many-properties", title: "Too many", detail: "A path keeps at most 100 properties.")
        }
        if refused.isEmpty { try await entries.setProperties(properties, userID: user.id, path: path) }
        return names.map { name in
            (name, refused.isEmpty ? "200 OK" : refused.contains(name) ? "403 Forbidden" : "424 Failed Dependency")
        }
    }
}
