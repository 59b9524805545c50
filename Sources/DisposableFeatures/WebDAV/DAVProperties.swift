import DisposableCore
import DisposablePlatform
import Foundation

/// The properties PROPFIND answers for a path: DAV's live ones (RFC 4918 §15) from what the server knows, and the
/// ones clients set.
package enum DAVProperties {
    package static let live: [DAVName] = [
        "resourcetype", "displayname", "getcontentlength", "getcontenttype", "getetag", "getlastmodified", "creationdate",
    ]
    .map(DAVName.dav)

    /// What `entry` has of `name`: nil when it has no such property, else its content as XML (nil content: an empty
    /// element, such as a file's `resourcetype`).
    package static func value(_ name: DAVName, of entry: DAVEntry, displayName: String) -> Found? {
        if name.namespace == "DAV:" {
            switch name.name {
            case "resourcetype": return Found(xml: entry.isFolder ? "<D:collection/>" : nil)
            case "displayname": return Found(xml: DAVXML.escape(displayName))
            case "getcontentlength": return entry.isFolder ? nil : Found(xml: String(entry.byteSize))
            case "getcontenttype": return entry.isFolder ? nil : entry.contentType.map { Found(xml: DAVXML.escape($0)) }
            case "getetag": return Found(xml: DAVXML.escape(entry.etag))
            case "getlastmodified": return Found(xml: entry.modifiedAt.httpDate)
            case "creationdate": return Found(xml: entry.createdAt.formatted(Date.ISO8601FormatStyle()))
            default: break
            }
        }
        return entry.properties.first { $0.name == name }.map { Found(xml: $0.value) }
    }

    package struct Found {
        package let xml: String?
    }

    /// Every property name the entry has.
    package static func names(of entry: DAVEntry) -> [DAVName] {
        live.filter { entry.isFolder ? !["getcontentlength", "getcontenttype"].contains($0.name) : true } + entry.properties.map(\.name)
    }

    /// The answer for one path.
    package static func add(
        _ entry: DAVEntry, href: String, displayName: String, request: DAVPropfind, to multistatus: inout DAVMultistatus
    ) {
        switch request {
        case .propertyNames:
            multistatus.add(href: href, found: names(of: entry).map { .init(name: $0, xml: nil) })
        case .allProperties:
            let found = names(of: entry).compactMap { name in
                value(name, of: entry, displayName: displayName).map { DAVMultistatus.Property(name: name, xml: $0.xml) }
            }
            multistatus.add(href: href, found: found)
        case .properties(let names):
            var found: [DAVMultistatus.Property] = []
            var missing: [DAVName] = []
            for name in names {
                if let value = value(name, of: entry, displayName: displayName) {
                    found.append(.init(name: name, xml: value.xml))
                } else {
                    missing.append(name)
                }
            }
            multistatus.add(href: href, found: found, missing: missing)
        }
    }
}
