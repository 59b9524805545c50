import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// Instagram's export is read twice — by `disposable import --instagram` and by the web app's `instagram.js` — so
/// both are run on the same exports (`Tests/fixtures/instagram`) and must find what `expected.json` says: the
/// files to import with their posts' times and captions, and the files the lists name but the export lacks. This is
/// the CLI's half (`--dry-run`: nothing sent); the browser suite runs the other on the same lists.
@Suite("Instagram's export: the CLI reads the shared fixtures as expected")
struct InstagramFixturesTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/instagram")

    struct Expected: Decodable {
        struct Media: Decodable, Equatable {
            let path: String
            let takenAt: Double
            let caption: String?
        }
        let `import`: [Media]
        let missing: [String]
    }

    struct Outcome: Decodable {
        let file: String
        let status: String
        let takenAt: Date?
        let caption: String?
        let reason: String?
    }

    @Test("Each fixture's files, times and captions, and the files it lacks", arguments: ["current", "older"])
    func fixture(name: String) async throws {
        let all = try JSONDecoder().decode([String: Expected].self, from: Data(contentsOf: Self.fixtures.appendingPathComponent("expected.json")))
        let expected = try #require(all[name])
        let (status, output) = try await runTool(
            try disposableBinary(), ["import", "--instagram", "--dry-run", "--json", Self.fixtures.appendingPathComponent(name).path])
        #expect(status == 0, "\(output)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
            }
            return date
        }
        let outcomes = try decoder.decode([Outcome].self, from: Data(output.utf8))
        let found = outcomes.filter { $0.status == "would-import" }.map {
            Expected.Media(path: $0.file, takenAt: $0.takenAt?.timeIntervalSince1970 ?? 0, caption: $0.caption)
        }
        #expect(found.sorted { $0.path < $1.path } == expected.import.sorted { $0.path < $1.path })
        let missing = outcomes.filter { $0.status == "skipped" && $0.reason?.contains("not in the export") == true }.map(\.file)
        #expect(missing.sorted() == expected.missing.sorted())
    }
}
