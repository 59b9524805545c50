import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// The shutter's `multipart/form-data` body: the part `photo` (the file, as a raw body would carry it) and,
/// optionally, `firstLook` (the phone's small JPEG of it, `FirstLook`). The photo's bytes stream through as they arrive —
/// to the staging file, never whole in memory; the first look is gathered, up to its limit, whichever part comes first.
///
/// Iterated once, as the photo's body; `firstLook` is complete when the iteration has ended.
package final class PhotoForm: PhotoBody {
    package typealias Element = ByteBuffer

    private let body: RequestBody
    private var parser: FormParser
    private let maxPhotoBytes: Int64

    package private(set) var firstLook: Data?
    private var received: Int64 = 0
    private var part: Part = .none
    private var partName: String?
    private var photoBytes = ByteBuffer()
    private var photoParts = 0
    private var photoComplete = false
    private var failure: Problem?

    private enum Part { case none, photo, firstLook }

    /// Nil when `contentType` is not a form with a usable boundary.
    package init?(_ body: RequestBody, contentType: String, maxPhotoBytes: Int64) {
        guard let boundary = Self.boundary(contentType) else { return nil }
        self.body = body
        self.parser = FormParser(boundary: boundary)
        self.maxPhotoBytes = maxPhotoBytes
    }

    /// Whether the request declares a form (whose boundary `init` then reads).
    package static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "multipart/form-data"
    }

    /// RFC 2046: 1 to 70 characters.
    private static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    private func header(_ name: String, _ value: String) {
        guard name.lowercased() == "content-disposition" else { return }
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "name" { partName = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
    }

    private func partBytes(_ bytes: inout ByteBuffer) {
        if case .none = part {
            switch partName {
            case "photo":
                photoParts += 1
                part = .photo
                if photoParts > 1 { fail(Problem.badRequest("Send one photo per request: the form has two “photo” parts.", field: "photo")) }
            case "firstLook":
                guard firstLook == nil else { return fail(Problem.badRequest("The form has two “firstLook” parts.", field: "firstLook")) }
                part = .firstLook
                firstLook = Data()
            default:
                return fail(
                    Problem.badRequest("Unknown part “\(partName ?? "")”: send “photo”, and optionally “firstLook”.", field: partName ?? "form"))
            }
        }
        switch part {
        case .photo:
            // Most chunks hold the photo's bytes alone: handed on as they came, not copied.
            if photoBytes.readableBytes == 0 { photoBytes = bytes } else { photoBytes.writeBuffer(&bytes) }
        case .firstLook:
            guard (firstLook?.count ?? 0) + bytes.readableBytes <= FirstLook.maxBytes else {
                return fail(.firstLookRefused("it is larger than \(FirstLook.maxBytes / 1024) KB"))
            }
            firstLook?.append(contentsOf: bytes.readableBytesView)
        case .none: break
        }
    }

    private func partComplete() {
        if case .photo = part { photoComplete = true }
        if case .none = part, partName == "photo" { photoComplete = true }  // an empty photo part: the check says so
        part = .none
        partName = nil
    }

    private func fail(_ problem: Problem) {
        if failure == nil { failure = problem }
    }

    private func feed(_ chunk: ByteBuffer) throws {
        // Every byte counts, parts' headers and first look included: a form is its photo and a little more.
        received += Int64(chunk.readableBytes)
        guard received <= maxPhotoBytes + Int64(FirstLook.maxBytes) + 64 * 1024 else { throw Problem.photoTooLarge(maxPhotoBytes) }
        do {
            try parser.feed(chunk) { event in
                switch event {
                case .part(let headers): for (name, value) in headers { header(name, value) }
                case .bytes(var bytes): partBytes(&bytes)
                case .partEnd: partComplete()
                }
            }
        } catch is FormParser.Malformed {
            throw Problem.badRequest("This form cannot be read: its parts are not valid multipart/form-data.", field: "form")
        }
        if let failure { throw failure }
    }

    private func finish() throws {
        guard parser.isComplete else {
            throw Problem.badRequest("This form ends early: its closing boundary never came.", field: "form")
        }
        guard photoComplete else {
            throw Problem.badRequest("The form has no whole “photo” part: send the file in a part named “photo”.", field: "photo")
        }
    }

    private func nextPhotoBytes() async throws -> ByteBuffer? {
        while true {
            if photoBytes.readableBytes > 0 {
                defer { photoBytes = ByteBuffer() }
                return photoBytes
            }
            guard let chunk = try await upstream.next() else {
                try finish()
                return nil
            }
            try feed(chunk)
        }
    }

    private lazy var upstream = body.makeAsyncIterator()

    package struct AsyncIterator: AsyncIteratorProtocol {
        package let form: PhotoForm

        package mutating func next() async throws -> ByteBuffer? { try await form.nextPhotoBytes() }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(form: self) }
}
