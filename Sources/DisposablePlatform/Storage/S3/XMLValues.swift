import DisposableCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The text of the elements of a small S3 answer (a listing, an upload id, an error), by element name, in
/// document order. S3's answers are flat enough that names alone tell what is what.
package struct XMLValues {
    package private(set) var values: [String: [String]] = [:]

    package init(_ data: Data) {
        let collector = Collector()
        let parser = XMLParser(data: data)
        parser.delegate = collector
        _ = parser.parse()
        values = collector.values
    }

    package func all(_ name: String) -> [String] { values[name] ?? [] }
    package func first(_ name: String) -> String? { values[name]?.first }

    private final class Collector: NSObject, XMLParserDelegate {
        var values: [String: [String]] = [:]
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            values[elementName, default: []].append(text)
            text = ""
        }
    }
}

extension String {
    /// The text escaped for an XML element.
    package var xmlEscaped: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
