import DisposableCore
import Foundation
import Hummingbird
import NIOCore

/// A JSON request body whose members we know by name: anything else in it is refused, not ignored.
package protocol JSONBody: Decodable {
    static var fields: Set<String> { get }
}

/// JSON bodies are small; anything larger is refused before it is parsed.
package let maxJSONBodySize = 64 * 1024

extension Request {
    /// Reads and strictly decodes a JSON object body: size-limited, unknown members refused,
    /// type errors reported with the field's name.
    package func decodeJSON<Body: JSONBody>(_ type: Body.Type) async throws -> Body {
        // Only JSON is accepted: this also means a cross-site HTML form (which cannot send
        // application/json) can never make a cookie-authenticated write.
        let mediaType = headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" || mediaType?.hasSuffix("+json") == true else {
            throw Problem(
                .unsupportedMediaType, "unsupported-media-type", title: "JSON expected",
                detail: "Send the request body as JSON, with the header Content-Type: application/json.")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: maxJSONBodySize)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge
        }
        let data = Data(buffer: buffer)
        guard !data.isEmpty else { throw Problem.badRequest("The request needs a JSON body.") }
        guard let object = try? JSONSerialization.jsonObject(with: data) else {
            throw Problem.badRequest("The request body is not valid JSON.")
        }
        guard let members = object as? [String: Any] else {
            throw Problem.badRequest("The request body must be a JSON object.")
        }
        if let unknown = members.keys.sorted().first(where: { !Body.fields.contains($0) }) {
            throw Problem.badRequest("The field “\(unknown)” is not known here.", field: unknown)
        }
        do {
            return try JSONDecoder().decode(Body.self, from: data)
        } catch let error as DecodingError {
            throw Problem.decoding(error)
        }
    }
}

extension Problem {
    /// A decoding failure as a sentence naming the field.
    package static func decoding(_ error: DecodingError) -> Problem {
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .badRequest("The field “\(field)” must be \(describe(type)).", field: field)
        case .keyNotFound(let key, _):
            return .badRequest("The field “\(key.stringValue)” is required.", field: key.stringValue)
        case .dataCorrupted(let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return field.isEmpty
                ? .badRequest("The request body is not valid JSON.")
                : .badRequest("The field “\(field)” has a value we cannot read.", field: field)
        @unknown default:
            return .badRequest("The request body is not valid JSON for this route.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "a value of the right kind"
        }
    }
}
