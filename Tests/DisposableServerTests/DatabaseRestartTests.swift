import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// REL-3: PostgreSQL goes down in the middle of an upload burst and comes back.
@Suite("PostgreSQL restart (REL-3)", .serialized)
struct DatabaseRestartTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts")

    @Test("While the database is down requests get 503 (no crash, no hang); after, they succeed; nothing acknowledged is lost")
    func restartDuringUploads() async throws {
        // A private cluster: the shared test cluster must not go down under the other suites.
        let cluster = FileManager.default.temporaryDirectory.appendingPathComponent("pg-restart-\(UUID().uuidString)")
        let pgPort = try freePort()
        let script = Self.scripts.appendingPathComponent("test-postgres").path
        try #require(try await Self.run(script, ["start", cluster.path, String(pgPort)]) == 0, "could not start PostgreSQL")
        try await withCleanup {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-rel3-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: data) }
            let port = try freePort()
            let base = "http://127.0.0.1:\(port)"
            let server = try startServer([
                "DISPOSABLE_DATA_DIR": data.path, "DISPOSABLE_PORT": String(port), "DISPOSABLE_LOG_LEVEL": "critical",
                "DISPOSABLE_DATABASE_URL": "postgres://postgres@127.0.0.1:\(pgPort)/postgres",
            ])
            defer { server.signal(SIGTERM) }
            _ = try await waitForHTTP(base + "/healthz", server: server)
            _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
            let token = try #require(
                try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
            let eventID = try #require(try await post(base + "/api/v1/events", json: ["name": "Restart"], token: token).json["id"] as? String)
            /// nil while the database has not come back yet, then the uploads acknowledged since.
            let successesSinceBack = NIOLockedValueBox<Int?>(nil)
            let keepGoing = { @Sendable in successesSinceBack.withLockedValue { ($0 ?? 0) < 6 } }
            let probeStatus = NIOLockedValueBox<Int?>(nil)

            // MUT: 6 lanes upload one photo after another while the database goes away for 8 s, until it answers again.
            let outcomes = await withTaskGroup(of: [(Data, Int, String?)].self) { group in
                for lane in 0..<6 {
                    group.addTask {
                        var results: [(Data, Int, String?)] = []
                        for index in stride(from: lane, to: 600, by: 6) where keepGoing() {
                            // Each photo different (no duplicate refusals), made when its turn comes.
                            guard let photo = try? await TestImages.jpeg(width: 200 + index % 300, height: 150 + index / 300) else { break }
                            let result = await Self.upload(photo, to: "\(base)/api/v1/events/\(eventID)/photos", token: token)
                            results.append((photo, result.status, result.id))
                            if result.status == 201 { successesSinceBack.withLockedValue { $0 = $0.map { $0 + 1 } } }
                            try? await Task.sleep(for: .milliseconds(150))
                        }
                        return results
                    }
                }
                group.addTask {
                    // An upload sent while the database is down (past the once-a-second check) must get 503 at
                    // once. The lanes' uploads already waiting in the pool when it stopped may instead wait for
                    // it and succeed: also fine (nothing lost), but then they prove nothing about the 503.
                    guard let probe = try? await TestImages.jpeg(width: 199, height: 149) else { return [] }
                    try? await Task.sleep(for: .milliseconds(400))
                    _ = try? await Self.run(script, ["pause", cluster.path])
                    try? await Task.sleep(for: .seconds(3))
                    let refused = await Self.upload(probe, to: "\(base)/api/v1/events/\(eventID)/photos", token: token)
                    probeStatus.withLockedValue { $0 = refused.status }
                    try? await Task.sleep(for: .seconds(5))
                    _ = try? await Self.run(script, ["resume", cluster.path, String(pgPort)])
                    successesSinceBack.withLockedValue { $0 = 0 }
                    return [(probe, refused.status, refused.id)]
                }
                return await group.reduce(into: []) { $0 += $1 }
            }

            let statuses = Set(outcomes.map(\.1))
            #expect(statuses.isSubset(of: [201, 503]), "every answer is a success or a clean 503: \(outcomes.map(\.1))")
            #expect(probeStatus.withLockedValue { $0 } == 503, "an upload sent while the database was down gets 503")
            #expect((successesSinceBack.withLockedValue { $0 } ?? 0) >= 6, "uploads succeed again once it is back")

            // Validate: every acknowledged photo is there, byte for byte; the refused ones left nothing.
            let acknowledged = outcomes.filter { $0.1 == 201 }
            for (photo, _, id) in acknowledged {
                let original = try await get("\(base)/api/v1/photos/\(try #require(id))/original", token: token)
                #expect(original.status == 200)
                #expect(original.body == photo)
            }
            let listed = try await get("\(base)/api/v1/events/\(eventID)/photos?mine=true&limit=100", token: token)
            #expect((listed.json["items"] as? [Any])?.count == acknowledged.count)
            let folders = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("media/events/\(eventID)").path)
            #expect(folders.count == acknowledged.count, "a refused upload left its file behind")
            #expect(server.isRunning)
        } cleanup: {
            _ = try? await Self.run(script, ["stop", cluster.path])
        }
    }

    /// Runs a script to its end without reading its output: the PostgreSQL it starts would hold a pipe open forever.
    static func run(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        guard case .exit(let status) = await (try ChildProcess(executable, arguments)).exited() else { return -1 }
        return status
    }

    /// One upload with a deadline past the server's own for a stuck statement: a hang shows up as status 0.
    static func upload(_ data: Data, to url: String, token: String) async -> (status: Int, id: String?) {
        guard let result = try? await DisposableServerTests.upload(data, to: url, token: token, timeout: .seconds(180)) else { return (0, nil) }
        return (result.status, result.json["id"] as? String)
    }
}
