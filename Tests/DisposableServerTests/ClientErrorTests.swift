import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Crash reports: errors browsers meet reach the admin, counted, capped and rate-limited, with nothing of a key.
@Suite("Errors in browsers")
struct ClientErrorTests {
    @Test("A report is kept for the admin with its page (no query) and browser, counted in /metrics; the admin's panel lists it")
    func reported() async throws {
        try await TestApp.run(.sqlite) { app in
            let phone: HTTPFields = [
                .userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
            ]
            let report = ClientErrorReport(
                message: "TypeError: queue is undefined", page: "/e/ABCD-EFGH/camera?k=secretkey#x", stack: "at shoot (camera.js:12:5)")
            #expect(try await app.call(.post, "/api/v1/client-errors", body: report, headers: phone).status == .noContent)
            let admin = try await app.adminToken()
            let listed = try (try await app.call(.get, "/api/v1/admin/client-errors", token: admin)).decode([ClientErrorJSON].self)
            #expect(listed.count == 1)
            #expect(listed.first?.page == "/e/ABCD-EFGH/camera" && listed.first?.message == "TypeError: queue is undefined")
            #expect(listed.first?.browser == "Chrome on Android" && listed.first?.stack == "at shoot (camera.js:12:5)")
            let metrics = try await app.call(.get, "/metrics", token: admin)
            #expect(metrics.text.contains("disposable_client_errors_total"), "\(metrics.text.prefix(300))")
            let panel = try await app.page(.get, "/admin", cookie: admin)
            #expect(
                panel.text.contains("TypeError: queue is undefined") && panel.text.contains("Chrome on Android") && !panel.text.contains("secretkey"))
        }
    }

    @Test("Reports are capped (long ones cut, bodies over 64 KB refused, the last 100 kept), checked, and rate-limited per address")
    func limits() async throws {
        try await TestApp.run(.sqlite) { app in
            let long = ClientErrorReport(message: String(repeating: "m", count: 5000), page: "/library", stack: String(repeating: "s", count: 9000))
            #expect(try await app.call(.post, "/api/v1/client-errors", body: long).status == .noContent)
            let huge = ClientErrorReport(message: String(repeating: "m", count: 70_000), page: "/library")
            #expect(try await app.call(.post, "/api/v1/client-errors", body: huge).status == .contentTooLarge)
            for page in ["https://evil.example/x", "//evil.example", "library"] {
                let refused = try await app.call(.post, "/api/v1/client-errors", body: ClientErrorReport(message: "x", page: page))
                refused.expectProblem(.unprocessableContent)
            }
            try await app.call(.post, "/api/v1/client-errors", body: ClientErrorReport(message: " \u{7}\n", page: "/")).expectProblem(
                .unprocessableContent)
            // 20 at once from one address, then refused
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<20 {
                statuses.append(try await app.call(.post, "/api/v1/client-errors", body: ClientErrorReport(message: "e\(index)", page: "/")).status)
            }
            #expect(statuses.filter { $0 == .noContent }.count == 19 && statuses.last == .tooManyRequests)
            let admin = try await app.adminToken()
            let kept = try (try await app.call(.get, "/api/v1/admin/client-errors", token: admin)).decode([ClientErrorJSON].self)
            let cut = kept.first { $0.message.hasPrefix("mmm") }
            #expect(kept.count == 20 && cut?.message.count == 1000 && cut?.stack?.count == 4000)
            // The table keeps the last 100 only
            for index in 0..<110 {
                try await app.services.clientErrors.rows.insert(
                    ClientErrorJSON(id: "x\(index)", at: Date(), page: "/", message: "old \(index)"), keep: 100)
            }
            #expect(try await app.services.clientErrors.recent().count == 100)
        }
    }
}
