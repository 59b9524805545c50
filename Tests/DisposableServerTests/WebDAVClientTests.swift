import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The library over WebDAV as real clients use it, each started by the test: rclone (Debian) copying a phone's
/// camera folder the way a backup app does, and litmus, the WebDAV conformance suite.
@Suite("WebDAV with real clients")
struct WebDAVClientTests {
    @Test("rclone copies a phone's camera folder into the library: each photo kept once, a re-run sends nothing, read back byte for byte")
    func rclone() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let token = try await app.userToken(email: "ana@example.com")
            let secret = try await app.appPassword(token: token, name: "rclone")
            let port = try #require(app.client.port)
            let phone = FileManager.default.temporaryDirectory.appendingPathComponent("phone-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: phone, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: phone) }
            var photos: [String: Data] = [:]
            for index in 1...6 {
                let photo = try await TestImages.jpeg(width: 320 + index, height: 240)
                photos["IMG_000\(index).jpg"] = photo
                try photo.write(to: phone.appendingPathComponent("IMG_000\(index).jpg"))
            }
            // A phone's roll holds the same picture twice at times, and files that are not pictures
            try photos["IMG_0001.jpg"]!.write(to: phone.appendingPathComponent("IMG_0001 (1).jpg"))
            try Data().write(to: phone.appendingPathComponent(".nomedia"))

            let obscured = try await runTool("/usr/bin/rclone", ["obscure", secret])
            #expect(obscured.status == 0)
            var environment = ProcessInfo.processInfo.environment
            environment["RCLONE_CONFIG_PHONE_TYPE"] = "webdav"
            environment["RCLONE_CONFIG_PHONE_URL"] = "http://127.0.0.1:\(port)/dav/"
            environment["RCLONE_CONFIG_PHONE_VENDOR"] = "other"
            environment["RCLONE_CONFIG_PHONE_USER"] = "ana@example.com"
            environment["RCLONE_CONFIG_PHONE_PASS"] = obscured.output.trimmingCharacters(in: .whitespacesAndNewlines)
            environment["RCLONE_CONFIG"] = "/dev/null"
            func rclone(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
                return try await runTool("/bin/sh", ["-c", "rclone \(quoted) 2>&1"], environment: environment)
            }

            let first = try await rclone(["copy", phone.path, "phone:library/DCIM/Camera", "-v", "--transfers", "4"])
            #expect(first.status == 0, "\(first.output)")
            #expect(first.output.components(separatedBy: "Copied (new)").count - 1 == 8, "\(first.output)")
            // Six photos, the one sent twice kept once (under whichever of its names arrived first)
            let assets = try await app.call(.get, "/api/v1/library/assets?limit=50", token: token)
            let names = (assets["items"] as? [[String: Any]] ?? []).compactMap { $0["fileName"] as? String }
            #expect(names.count == 6 && Set(names).isSubset(of: Set(photos.keys).union(["IMG_0001 (1).jpg"])), "\(assets.text)")

            let again = try await rclone(["copy", phone.path, "phone:library/DCIM/Camera", "-v"])
            #expect(again.status == 0 && !again.output.contains("Copied"), "\(again.output)")

            let back = try await runTool(
                "/bin/sh", ["-c", "rclone cat 'phone:library/DCIM/Camera/IMG_0003.jpg' | base64 -w0"], environment: environment)
            #expect(Data(base64Encoded: back.output) == photos["IMG_0003.jpg"])
            let listed = try await rclone(["lsf", "phone:library/DCIM/Camera"])
            #expect(Set(listed.output.split(separator: "\n").map(String.init)) == Set(photos.keys).union(["IMG_0001 (1).jpg", ".nomedia"]))
        }
    }

    @Test("litmus, the WebDAV conformance suite: basic, copymove, props and http pass (locks: WebDAV class 1 has none)")
    func litmus() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let token = try await app.userToken(email: "ana@example.com")
            let secret = try await app.appPassword(token: token, name: "litmus")
            let port = try #require(app.client.port)
            var environment = ProcessInfo.processInfo.environment
            environment["TESTS"] = "basic copymove props http"
            let run = try await runTool(
                "/bin/sh",
                ["-c", "cd \"${TMPDIR:-/tmp}\"; litmus http://127.0.0.1:\(port)/dav/library/ ana@example.com '\(secret)' 2>&1"],
                environment: environment)
            #expect(run.status == 0, "\(run.output)")
            #expect(!run.output.contains("FAIL"), "\(run.output)")
            for suite in ["basic", "copymove", "props", "http"] { #expect(run.output.contains("<- summary for `\(suite)': of"), "\(run.output)") }
        }
    }
}
