import Foundation
import Testing

/// "An upload that got a 2xx survives kill -9" — the real binary, killed mid-burst, then restarted.
@Suite("Durability (UP-3 server side, kill -9)", .serialized)
struct DurabilityTests {
    @Test("Every acknowledged upload is listed and byte-identical after kill -9; nothing half-written remains", arguments: TestEngine.allCases)
    func killDuringUploads(engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (environment, port) = try await serverEnvironment(engine, directory: directory)
        let base = "http://127.0.0.1:\(port)"
        var server = try startServer(environment)
        defer { server.signal(SIGKILL) }
        _ = try await waitForHTTP(base + "/healthz", server: server)

        // setup: an organizer and a live event
        _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let session = try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(session.json["token"] as? String)
        let event = try await post(base + "/api/v1/events", json: ["name": "Kill test"], token: token)
        let eventID = try #require(event.json["id"] as? String)
        var acknowledged: [String: Data] = [:]

        // REL-1: three rounds, each 50 concurrent uploads with the server killed at a random moment among them.
        for round in 0..<3 {
            var made: [Data] = []
            for index in 0..<50 { made.append(try await TestImages.jpeg(width: 300 + round * 50 + index, height: 200)) }
            let photos = made
            let victim = server
            let answered = await withTaskGroup(of: (Int, String?).self) { group in
                for (index, photo) in photos.enumerated() {
                    group.addTask {
                        let response = try? await upload(photo, to: "\(base)/api/v1/events/\(eventID)/photos", token: token)
                        return (index, response.flatMap { (200..<300).contains($0.status) ? $0.json["id"] as? String : nil })
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 100...800)))
                    victim.signal(SIGKILL)
                    return (-1, nil)
                }
                return await group.reduce(into: [Int: String]()) { if let id = $1.1 { $0[$1.0] = id } }
            }
            #expect(await server.exited() == .signal(SIGKILL))
            for (index, id) in answered { acknowledged[id] = photos[index] }

            // validate: restart and look
            server = try startServer(environment)
            _ = try await waitForHTTP(base + "/healthz", server: server)
            for (id, bytes) in acknowledged {
                let original = try await get("\(base)/api/v1/photos/\(id)/original", token: token)
                #expect(original.status == 200)
                #expect(original.body == bytes, "round \(round): photo \(id) must come back byte for byte")
            }
            // Pending processing completes, and every stored photo is complete.
            let deadline = Date() + 60
            var listed: [[String: Any]] = []
            repeat {
                listed = []
                var cursor: String? = nil
                repeat {
                    let page = try await get(
                        "\(base)/api/v1/events/\(eventID)/photos?mine=true&limit=100" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                    listed += page.json["items"] as? [[String: Any]] ?? []
                    cursor = page.json["nextCursor"] as? String
                } while cursor != nil
                if listed.allSatisfy({ $0["status"] as? String != "processing" }) { break }
                try await Task.sleep(for: .milliseconds(200))
            } while Date() < deadline
            #expect(Set(acknowledged.keys).isSubset(of: Set(listed.compactMap { $0["id"] as? String })))
            #expect(listed.allSatisfy { $0["status"] as? String == "ready" }, "\(listed.map { $0["status"] ?? "" })")
            let media = directory.appendingPathComponent("media/events/\(eventID)")
            let folders = (try? FileManager.default.contentsOfDirectory(atPath: media.path)) ?? []
            #expect(Set(folders) == Set(listed.compactMap { $0["id"] as? String }), "no file without its row, no row without its file")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("media/staging").path)) ?? []).isEmpty)
        }
    }
}
