import Foundation
import Glibc
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The server's renders follow the phones' first looks at a low CPU priority: every thread that decodes or
/// encodes pixels yields to the threads that answer requests.
@Suite("Renders yield to requests")
struct RenderPriorityTests {
    @Test("After first looks checked and photos rendered, every libvips thread of the server runs at nice 10, its request threads at 0")
    func lowestPriority() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-nice-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (environment, port) = try await serverEnvironment(.sqlite, directory: directory)
        let base = "http://127.0.0.1:\(port)"
        let server = try startServer(environment)
        defer { server.signal(SIGKILL) }
        _ = try await waitForHTTP(base + "/healthz", server: server)
        let (token, eventID) = try await DurabilityTests.organizerWithEvent(at: base)
        let picture = try await TestImages.structured(width: 2400, height: 1800)
        // Several at once, half with a first look, so that libvips starts more than one worker thread.
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<4 {
                group.addTask {
                    let copy = picture + Data("priority \(index)".utf8)
                    let form = photoForm(copy, firstLook: index.isMultiple(of: 2) ? try await TestImages.firstLook(of: copy) : nil)
                    let sent = try await upload(form.body, to: "\(base)/api/v1/events/\(eventID)/photos", token: token, contentType: form.contentType)
                    #expect(sent.status == 201, "\(sent.text)")
                    return sent.json["id"] as? String
                }
            }
            return try await group.reduce(into: [String]()) { if let id = $1 { $0.append(id) } }
        }
        #expect(ids.count == 4)
        let deadline = Date() + 90
        var pending = Set(ids)
        while !pending.isEmpty && Date() < deadline {
            for id in pending {
                let photo = try await get("\(base)/api/v1/photos/\(id)", token: token).json
                if photo["status"] as? String == "ready" && photo["previewPending"] == nil { pending.remove(id) }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(pending.isEmpty, "not rendered: \(pending)")

        let threads = try Self.threads(of: server.pid)
        let workers = threads.filter { $0.name == "libvips worker" }
        #expect(!workers.isEmpty, "libvips started no thread of its own: \(threads)")
        #expect(workers.allSatisfy { $0.nice == 10 }, "\(threads)")
        // Not the whole process: NIO's event loops, which answer requests, keep the default.
        let loops = threads.filter { $0.name.hasPrefix("NIO-") }
        #expect(!loops.isEmpty && loops.allSatisfy { $0.nice == 0 }, "\(threads)")
    }

    /// A process's threads: their names and nice values, from /proc.
    static func threads(of pid: pid_t) throws -> [(name: String, nice: Int32)] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap { task in
            guard let id = id_t(task), let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8) else {
                return nil
            }
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id)
            return errno == 0 ? (name.trimmingCharacters(in: .whitespacesAndNewlines), nice) : nil
        }
    }
}
