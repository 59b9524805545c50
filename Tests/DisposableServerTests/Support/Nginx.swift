import Foundation

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// A real nginx in front of a test app, configured the usual way (`proxy_set_header X-Forwarded-For
/// $proxy_add_x_forwarded_for`), on a free port of its own. It reaches the app from `upstreamSource`, so that the
/// app can tell its connections from a client's on the same loopback.
final class Nginx: Sendable {
    let port: Int
    private let directory: URL
    private let process: ChildProcess

    static var binary: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(upstreamPort: Int, upstreamSource: String) throws {
        guard let binary = Self.binary else { throw TestSetupError("nginx is not installed (scripts/install-deps test installs it)") }
        port = try freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://127.0.0.1:\(upstreamPort);
                        proxy_bind \(upstreamSource);
                        proxy_http_version 1.1;
                        proxy_set_header Host $host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        proxy_set_header X-Forwarded-Proto $scheme;
                    }
                }
            }
            """
        try configuration.write(toFile: path + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(binary, ["-e", path + "/error.log", "-p", path, "-c", path + "/nginx.conf"], log: path + "/out.log")
    }

    /// Waits until nginx accepts connections.
    func ready() async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if (try? RawConnection(port: port)) != nil { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: directory.path + "/error.log", encoding: .utf8)) ?? ""
        throw TestSetupError("nginx did not start: \(log) \(process.logTail)")
    }

    func stop() async {
        process.signal(SIGQUIT)
        for _ in 0..<100 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        process.signal(SIGKILL)
        _ = await process.exited()
        try? FileManager.default.removeItem(at: directory)
    }

    /// One request through nginx from the loopback address `source`, closed after its answer.
    func send(from source: String, _ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") async throws
        -> RawHTTP.Answer
    {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: photos.example.org\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        let text = head + "\r\n" + body
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let connection = try RawConnection(port: port, from: source)
                        connection.send(text)
                        return try connection.readAnswer(timeoutSeconds: 30)
                    })
            }
        }
    }
}
