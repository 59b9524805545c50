import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// Clients that open a download and stop reading must not make the server hold the file in
/// memory. Measured on a real `disposable serve` process, so that no other test's memory counts.
@Suite("Stalled downloads", .serialized)
struct StalledDownloadTests {
    private func residentMB(_ pid: pid_t) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return Double(line.split(separator: " ", omittingEmptySubsequences: true)[1])! / 1024
    }

    @Test("100 stalled ZIP readers and 100 stalled original readers raise the server's memory by < 50 MB each")
    func stalledReaders() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-stalled-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var (environment, port) = try await serverEnvironment(.sqlite, directory: directory)
        environment["DISPOSABLE_LOG_LEVEL"] = "warning"
        let process = try startServer(environment)
        defer { if process.isRunning { process.signal(SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        #expect(try await waitForHTTP(base + "/healthz", server: process) == 200)
        _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(
            try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
        let event = try #require(try await post(base + "/api/v1/events", json: ["name": "Big"], token: token).json["id"] as? String)
        var photoIDs: [String] = []
        for index in 0..<4 {
            // The first is bigger than what the kernel's socket buffers absorb, so its original stalls too.
            let photo = try await TestImages.jpeg(width: index == 0 ? 4000 : 2400 + index, height: index == 0 ? 3000 : 1800)
            let uploaded = try await upload(photo, to: "\(base)/api/v1/events/\(event)/photos", token: token)
            photoIDs.append(try #require(uploaded.json["id"] as? String, "\(uploaded.status)"))
        }
        // Rendering takes memory of its own: measure once every photo is ready.
        for id in photoIDs {
            let deadline = ContinuousClock.now + .seconds(120)
            while try await get("\(base)/api/v1/photos/\(id)", token: token).json["status"] as? String != "ready" {
                try #require(ContinuousClock.now < deadline, "photo \(id) never got ready")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        for (name, path) in [("original", "/api/v1/photos/\(photoIDs[0])/original"), ("archive", "/api/v1/events/\(event)/archive.zip")] {
            _ = try await get(base + path, token: token)  // warm up: the first answer of a kind allocates its caches
            let before = try residentMB(process.pid)
            var readers: [RawConnection] = []
            for _ in 0..<100 {
                let reader = try RawConnection(port: port, receiveBuffer: 4096)
                reader.send("GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
                readers.append(reader)
            }
            try await Task.sleep(for: .seconds(4))
            let after = try residentMB(process.pid)
            #expect(after - before < 50, "\(name): \(before) MB → \(after) MB with 100 stalled readers")
            print("stalled \(name) readers: \(Int(before)) → \(Int(after)) MB")
            readers.removeAll()
        }
    }
}
