import DisposableCore
import DisposablePlatform
import Foundation

/// A place under `/dav/`, checked: what a client may name. The raw request path is split and each segment
/// percent-decoded once; a segment that decodes to a slash, `.` or `..`, a NUL or another control or invisible
/// formatting character (a bidirectional override), or that is too long, refuses the request. Names are kept in
/// Unicode's composed form (NFC): a Mac sends "é" decomposed, Windows and Linux composed, and both name one file.
package enum DAVPath: Equatable, Sendable {
    /// `/dav/`: the two trees.
    case root
    /// `/dav/library/…`: the person's library; `path` is "" for the library itself, else "DCIM/Camera/IMG_1.jpg".
    case library(String)
    /// `/dav/events/…`: "" for the list, else the event's folder and a file in it.
    case events([String])

    package static let maxSegmentBytes = 255
    package static let maxPathBytes = 1024
    package static let maxDepth = 32

    package struct Refused: Error, Equatable {
        package let reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    /// `rawPath` as the request has it (still percent-encoded), starting with `/dav`.
    package init(rawPath: String) throws {
        guard rawPath == "/dav" || rawPath.hasPrefix("/dav/") else { throw Refused(reason: "This address is not under /dav/.") }
        let rest = rawPath.dropFirst(4)
        var segments: [String] = []
        for raw in rest.split(separator: "/", omittingEmptySubsequences: true) {
            segments.append(try Self.segment(raw))
        }
        guard segments.count <= Self.maxDepth + 1 else { throw Refused(reason: "Folders may be at most \(Self.maxDepth) deep.") }
        guard let top = segments.first else {
            self = .root
            return
        }
        let below = Array(segments.dropFirst())
        switch top {
        case "library":
            let path = below.joined(separator: "/")
            guard path.utf8.count <= Self.maxPathBytes else { throw Refused(reason: "The path is longer than \(Self.maxPathBytes) bytes.") }
            self = .library(path)
        case "events":
            self = .events(below)
        default:
            throw NotFound()
        }
    }

    package struct NotFound: Error { package init() {} }

    private static func segment(_ raw: Substring) throws -> String {
        guard let decoded = raw.removingPercentEncoding?.precomposedStringWithCanonicalMapping else {
            throw Refused(reason: "A name is not valid percent-encoded UTF-8.")
        }
        guard decoded.utf8.count <= maxSegmentBytes else { throw Refused(reason: "A name is longer than \(maxSegmentBytes) bytes.") }
        guard decoded != ".", decoded != "..", !decoded.contains("/"), !decoded.contains("\\") else {
            throw Refused(reason: "A name may not be “.” or “..” nor hold a slash.")
        }
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned]
        guard !decoded.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) }) else {
            throw Refused(reason: "A name holds control or invisible characters.")
        }
        return decoded
    }

    /// The address of a library path, percent-encoded, as answers name it; folders end with a slash.
    package static func href(library path: String, folder: Bool) -> String {
        let encoded = path.split(separator: "/").map { String($0).addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? "" }
        let joined = (["/dav/library"] + encoded).joined(separator: "/")
        return folder ? joined + "/" : joined
    }

    package static func href(events segments: [String], folder: Bool) -> String {
        let encoded = segments.map { $0.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? "" }
        let joined = (["/dav/events"] + encoded).joined(separator: "/")
        return folder ? joined + "/" : joined
    }

    /// Unreserved characters and a few sub-delimiters clients leave as they are.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")
}

/// Library paths: "" is the library itself.
package enum LibraryPath {
    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    package static func name(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `path` is `ancestor` or below it.
    package static func isWithin(_ path: String, _ ancestor: String) -> Bool {
        ancestor.isEmpty || path == ancestor || path.hasPrefix(ancestor + "/")
    }
}
