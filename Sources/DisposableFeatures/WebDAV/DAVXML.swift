import DisposableCore
import DisposablePlatform
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A property's name: its namespace ("" for none) and local name.
package struct DAVName: Hashable, Sendable, Codable {
    package let namespace: String
    package let name: String

    package static func dav(_ name: String) -> DAVName { DAVName(namespace: "DAV:", name: name) }
}

/// What a PROPFIND asks for.
package enum DAVPropfind: Equatable, Sendable {
    case allProperties
    case propertyNames
    case properties([DAVName])
}

/// One instruction of a PROPPATCH, in the order sent (the later wins).
package enum DAVPropertyChange: Equatable, Sendable {
    /// `value` is the property's content as XML, namespaces declared where they are used.
    case set(DAVName, value: String)
    case remove(DAVName)
}

/// The bodies of PROPFIND and PROPPATCH, read with the platform's XML parser under limits: at most 64 KB, no
/// document type declaration (so no entity can expand: "billion laughs" is refused before parsing), no external
/// entity ever fetched, names well-formed under XML namespaces.
package enum DAVXML {
    package static let maxBody = 64 * 1024

    package struct Malformed: Error {
        package let reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    package static func propfind(_ body: Data) throws -> DAVPropfind {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return .allProperties }
        let root = try parse(body)
        guard root.name == .dav("propfind") else { throw Malformed(reason: "The body is not a DAV:propfind.") }
        for child in root.children {
            switch child.name {
            case .dav("allprop"): return .allProperties
            case .dav("propname"): return .propertyNames
            case .dav("prop"): return .properties(child.children.map(\.name))
            default: continue
            }
        }
        throw Malformed(reason: "A propfind names allprop, propname or prop.")
    }

    package static func proppatch(_ body: Data) throws -> [DAVPropertyChange] {
        let root = try parse(body)
        guard root.name == .dav("propertyupdate") else { throw Malformed(reason: "The body is not a DAV:propertyupdate.") }
        var changes: [DAVPropertyChange] = []
        for instruction in root.children {
            guard instruction.name == .dav("set") || instruction.name == .dav("remove") else { continue }
            for prop in instruction.children where prop.name == .dav("prop") {
                for property in prop.children {
                    changes.append(
                        instruction.name == .dav("set") ? .set(property.name, value: property.innerXML) : .remove(property.name))
                }
            }
        }
        guard !changes.isEmpty else { throw Malformed(reason: "The propertyupdate changes nothing.") }
        return changes
    }

    /// An element as read: its name, children, and its content written back as XML.
    package final class Element {
        package let name: DAVName
        package var children: [Element] = []
        package var innerXML = ""

        package init(name: DAVName) { self.name = name }
    }

    package static func parse(_ body: Data) throws -> Element {
        guard body.count <= maxBody else { throw Malformed(reason: "The body is larger than 64 KB.") }
        // UTF-8 only (what every WebDAV client sends): in UTF-16 or UTF-7 a DTD would not look like one below, and
        // the parser would read it all the same.
        guard let text = String(data: body, encoding: .utf8), !text.contains("\u{0}") else {
            throw Malformed(reason: "The body must be UTF-8 XML.")
        }
        if let declared = declaredEncoding(text), !["utf-8", "utf8", "us-ascii"].contains(declared.lowercased()) {
            throw Malformed(reason: "The body must be UTF-8 XML.")
        }
        // A DTD is how entities are declared: none is needed by WebDAV, and none is read.
        let upper = text.uppercased()
        if upper.contains("<!DOCTYPE") || upper.contains("<!ENTITY") {
            throw Malformed(reason: "Document type declarations are not accepted.")
        }
        let reader = Reader()
        let parser = XMLParser(data: body)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), reader.failure == nil, let root = reader.root else {
            throw Malformed(reason: reader.failure ?? "The body is not well-formed XML.")
        }
        return root
    }

    /// The `encoding` an XML declaration names, if the body starts with one.
    private static func declaredEncoding(_ text: String) -> String? {
        let start = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        guard start.hasPrefix("<?xml"), let end = start.firstRange(of: "?>") else { return nil }
        let declaration = start[..<end.lowerBound]
        guard let key = declaration.firstRange(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []
        var failure: String?
        var elements = 0

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            // `xmlns:p=""` is not allowed by XML namespaces 1.0.
            if !prefix.isEmpty, namespaceURI.isEmpty { fail(parser, "A namespace prefix is bound to nothing.") }
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements += 1
            guard elements <= 10_000, stack.count < 64 else { return fail(parser, "The body holds too many elements.") }
            if let qualified = qualifiedName, qualified.contains(":"), (namespaceURI ?? "").isEmpty {
                return fail(parser, "An element's prefix names no namespace.")
            }
            let element = Element(name: DAVName(namespace: namespaceURI ?? "", name: elementName))
            for open in stack { open.innerXML += "<\(elementName) xmlns=\"\(DAVXML.escape(namespaceURI ?? ""))\"" }
            let plain = attributes.filter { !$0.key.contains(":") && $0.key != "xmlns" }.sorted { $0.key < $1.key }
            for open in stack {
                for (key, value) in plain { open.innerXML += " \(key)=\"\(DAVXML.escape(value))\"" }
                open.innerXML += ">"
            }
            if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
            for open in stack { open.innerXML += "</\(elementName)>" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard let current = stack.last else { return }
            current.innerXML += DAVXML.escape(string)
            for open in stack.dropLast() { open.innerXML += DAVXML.escape(string) }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if failure == nil { failure = "The body is not well-formed XML." }
        }

        private func fail(_ parser: XMLParser, _ reason: String) {
            if failure == nil { failure = reason }
            parser.abortParsing()
        }
    }

    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
