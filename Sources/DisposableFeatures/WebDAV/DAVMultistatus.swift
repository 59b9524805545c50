import DisposableCore
import DisposablePlatform
import Foundation
import HTTPTypes

extension HTTPResponse.Status {
    /// WebDAV's answers (RFC 4918 §11) that HTTP's own list lacks.
    package static let multiStatus = HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status")
    package static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}

/// A `207 Multi-Status` body (RFC 4918 §13): one response per resource, its properties grouped by status.
package struct DAVMultistatus {
    private var body = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:multistatus xmlns:D="DAV:">"#

    package init() {}

    /// A property as answered: its name and content (XML, already escaped); nil content for an empty element.
    package struct Property {
        package let name: DAVName
        package let xml: String?
    }

    package mutating func add(href: String, found: [Property], missing: [DAVName] = []) {
        body += "<D:response><D:href>\(DAVXML.escape(href))</D:href>"
        if !found.isEmpty || missing.isEmpty { add(found.map { ($0.name, $0.xml) }, status: "200 OK") }
        if !missing.isEmpty { add(missing.map { ($0, nil) }, status: "404 Not Found") }
        body += "</D:response>"
    }

    /// A PROPPATCH's answer: every property with the status its change got.
    package mutating func add(href: String, statuses: [(DAVName, String)]) {
        body += "<D:response><D:href>\(DAVXML.escape(href))</D:href>"
        var order: [String] = []
        var byStatus: [String: [DAVName]] = [:]
        for (name, status) in statuses {
            if byStatus[status] == nil { order.append(status) }
            byStatus[status, default: []].append(name)
        }
        for status in order { add(byStatus[status]!.map { ($0, nil) }, status: status) }
        body += "</D:response>"
    }

    private mutating func add(_ properties: [(DAVName, String?)], status: String) {
        body += "<D:propstat><D:prop>"
        for (index, (name, xml)) in properties.enumerated() { body += Self.element(name, xml, index: index) }
        body += "</D:prop><D:status>HTTP/1.1 \(status)</D:status></D:propstat>"
    }

    /// `<D:name>` for DAV's own, else an element declaring its namespace (none: `xmlns=""`).
    package static func element(_ name: DAVName, _ xml: String?, index: Int) -> String {
        let tag: String
        let declaration: String
        if name.namespace == "DAV:" {
            (tag, declaration) = ("D:\(name.name)", "")
        } else if name.namespace.isEmpty {
            (tag, declaration) = (name.name, #" xmlns="""#)
        } else {
            (tag, declaration) = ("p\(index):\(name.name)", #" xmlns:p\#(index)="\#(DAVXML.escape(name.namespace))""#)
        }
        guard let xml, !xml.isEmpty else { return "<\(tag)\(declaration)/>" }
        return "<\(tag)\(declaration)>\(xml)</\(tag)>"
    }

    package func finished() -> String { body + "</D:multistatus>" }
}
