import Foundation
import Logging
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

@Suite("Rows read from the engines' cells")
struct ColumnReaderTests {
    @Test("Every column type a repository reads comes back the same as SQLKit's, NULLs included", arguments: TestEngine.allCases)
    func sameAsSQLKit(engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = try await engine.freshDatabase(in: directory)
        try await withDatabase(location, logger: Logger(label: "test")) { db in
            try await db.sql { sql in
                let row = try #require(
                    try await sql.raw(
                        """
                        SELECT 'Zoë 📷' AS text, CAST(1234567890123 AS BIGINT) AS big, 42 AS small, TRUE AS yes, FALSE AS no,
                        CAST(NULL AS TEXT) AS missing_text, CAST(NULL AS BIGINT) AS missing_number
                        """
                    ).first())
                let column = ColumnReader(row)
                #expect(column.readsCellsDirectly)
                #expect(try column("text", as: String.self) == row.decode(column: "text", as: String.self))
                #expect(try column("text", as: String.self) == "Zoë 📷")
                #expect(try column("big", as: Int64.self) == 1_234_567_890_123)
                #expect(try column("small", as: Int.self) == 42)
                #expect(try column("yes", as: Bool.self) == true)
                #expect(try column("no", as: Bool.self) == false)
                #expect(try column.optional("missing_text", as: String.self) == nil)
                #expect(try column.optional("missing_number", as: Int64.self) == nil)
                #expect(try column.optional("big", as: Int64.self) == 1_234_567_890_123)
                #expect(throws: (any Error).self) { try column("absent", as: String.self) }
                #expect(throws: (any Error).self) { try column("missing_text", as: String.self) }
            }
        }
    }
}
