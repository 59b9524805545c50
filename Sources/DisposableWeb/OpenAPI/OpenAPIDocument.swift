import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Yams

/// The OpenAPI 3.1 description of the public API. The committed `openapi.yaml` beside this file is the
/// contract — the SDK is generated from it and the tests check the server against it — and this serves it as JSON.
package enum OpenAPIDocument {
    /// The document as JSON bytes, converted once.
    package static func json() throws -> Data { try converted.get() }

    private static let converted: Result<Data, any Error> = Result {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "openapi.yaml is missing from the resources."])
        }
        let document = try Yams.load(yaml: try String(contentsOf: url, encoding: .utf8))
        return try JSONSerialization.data(withJSONObject: document as Any, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// `{event}`, `{id}`… in a path template.
    package static func pathParameters(_ path: String) -> [String] {
        path.split(separator: "/").filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) }
    }
}
