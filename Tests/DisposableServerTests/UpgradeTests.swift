import Foundation
import Logging
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A database as the release before this one left it, upgraded: nothing of what it held is lost.
@Suite("Upgrading a database")
struct UpgradeTests {
    @Test(
        "What other features kept on users (library counter, push kinds, capsule month, moments recap) moves to their tables whole",
        arguments: TestEngine.allCases)
    func featureStateLeavesUsers(engine: TestEngine) async throws {
        let logger = Logger(label: "upgrade")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let location: DatabaseLocation =
            engine == .sqlite
            ? .sqlite(path: folder.appendingPathComponent("old.sqlite").path) : .postgres(url: try await PostgresTestServer.shared.emptyDatabase())
        try await withDatabase(location, logger: logger) { database in
            // setup: the schema of the release before (its 57 steps), and an account that used every feature
            let before = migrations.filter { $0.version <= 57 }
            #expect(before.count == 57)
            try await migrateDatabase(database, logger: logger, steps: before)
            try await database.sql { db in
                for (id, seq, kinds, month, year) in [
                    ("ana", 42, #"["liked"]"#, "2026-10", 2025), ("ben", 0, nil, nil, nil) as (String, Int, String?, String?, Int?),
                ] {
                    try await db.raw(
                        """
                        INSERT INTO users (id, email, name, password_hash, is_admin, created_at, library_seq, push_kinds, capsule_month, moments_recap_year)
                        VALUES (\(bind: id), \(bind: id + "@example.com"), \(bind: id), 'x', FALSE, 0, \(bind: seq), \(bind: kinds), \(bind: month),
                                \(bind: year))
                        """
                    ).run()
                }
            }

            // MUT
            try await migrateDatabase(database, logger: logger)

            // validate: each feature reads what it had
            let rows = Database(database)
            let library = LibraryRepository(database: rows)
            #expect(try await library.latestRevision(userID: "ana") == 42)
            #expect(try await library.latestRevision(userID: "ben") == 0)
            let next = try await database.transaction { db in try await LibraryRepository.counted(userID: "ana", in: db) }
            #expect(next == 43)
            #expect(try await database.transaction { db in try await LibraryRepository.counted(userID: "gone", in: db) } == nil)
            let push = PushSubscriptionRepository(database: rows)
            #expect(try await push.kinds(userID: "ana") == #"["liked"]"#)
            #expect(try await push.kinds(userID: "ben") == nil)
            let capsules = try await database.transaction { db in
                (
                    try await CapsuleRepository.decide(CapsuleMonth(year: 2026, month: 10), userID: "ana", in: db),
                    try await CapsuleRepository.decide(CapsuleMonth(year: 2026, month: 11), userID: "ana", in: db),
                    try await CapsuleRepository.decide(CapsuleMonth(year: 2026, month: 11), userID: "ben", in: db)
                )
            }
            #expect(capsules == (false, true, true), "the month made before is not made again; the next ones are")
            let recaps = try await database.transaction { db in
                (
                    try await MomentRepository.markRecapTold(year: 2025, userID: "ana", in: db),
                    try await MomentRepository.markRecapTold(year: 2026, userID: "ana", in: db)
                )
            }
            #expect(recaps == (false, true))
            let columns = try await database.sql { db in try await db.raw("SELECT * FROM users WHERE id = 'ana'").first()?.allColumns ?? [] }
            #expect(!columns.contains("library_seq") && !columns.contains("push_kinds") && !columns.contains("capsule_month"), "\(columns)")
        }
    }
}
