import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

@Suite("Errors and the API contract (API-1)")
struct ContractTests {
    @Test("Malformed JSON, wrong types, unknown fields and oversized bodies get 4xx problem+json, never 500", arguments: TestEngine.allCases)
    func badBodies(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            let cases: [(String, String?, HTTPResponse.Status)] = [
                ("/api/v1/events", "{\"name\": ", .badRequest),
                ("/api/v1/events", "[1, 2, 3]", .badRequest),
                ("/api/v1/events", "\"just a string\"", .badRequest),
                ("/api/v1/events", "{\"name\": 42}", .badRequest),
                ("/api/v1/events", "{\"name\": \"ok\", \"shots\": 5}", .badRequest),
                ("/api/v1/events", "{\"name\": \"ok\", \"durationHours\": 1.5}", .badRequest),
                ("/api/v1/events", "{\"name\": \"ok\", \"reveal\": \"now\"}", .badRequest),
                ("/api/v1/events", "", .badRequest),
                ("/api/v1/events", "{\"name\": \"" + String(repeating: "x", count: 100_000) + "\"}", .contentTooLarge),
                ("/api/v1/events", nested, .contentTooLarge),
                ("/api/v1/join", "{\"code\": [\"a\"], \"name\": \"Ana\"}", .badRequest),
                ("/api/v1/join", "{\"code\": \"AAAA-AAAA\", \"name\": \"Ana\", \"admin\": true}", .badRequest),
                ("/api/v1/users", "{\"email\": null, \"password\": {}}", .badRequest),
                ("/api/v1/sessions", "not json at all", .badRequest),
            ]
            for (path, body, expected) in cases {
                let response = try await app.call(.post, path, raw: body, token: token)
                response.expectProblem(expected)
            }
            for contentType in ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"] {
                let response = try await app.call(
                    .post, "/api/v1/events", raw: "{\"name\": \"ok\"}", token: token,
                    headers: [.contentType: contentType])
                #expect(response.expectProblem(.unsupportedMediaType).contains("application/json"))
            }
            let deep = String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600)
            let deepResponse = try await app.call(.post, "/api/v1/events", raw: deep, token: token)
            #expect(deepResponse.status.code >= 400 && deepResponse.status.code < 500)
            let unknown = try await app.call(.post, "/api/v1/events", raw: "{\"name\": \"ok\", \"shots\": 5}", token: token)
            #expect(unknown.string("detail")?.contains("shots") == true)
            #expect(unknown.string("type")?.hasPrefix("/problems/") == true)
        }
    }

    @Test("Unknown routes and methods answer with problem+json")
    func unknownRoutes() async throws {
        try await TestApp.run(.sqlite) { app in
            try await app.call(.get, "/api/v1/nothing-here").expectProblem(.notFound)
            // A browser gets a page in the app's look and its language; the API stays JSON.
            let page = try await app.call(.get, "/nothing-here", headers: [.accept: "text/html", .acceptLanguage: "fr-FR"])
            #expect(page.status == .notFound && page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("Page introuvable"))
            try await app.call(.get, "/api/v1/nothing-here", headers: [.accept: "text/html"]).expectProblem(.notFound)
            let wrongMethod = try await app.call(.put, "/api/v1/me")
            #expect(wrongMethod.status.code >= 400 && wrongMethod.status.code < 500)
            #expect(wrongMethod.headers[.contentType] == "application/problem+json")
            #expect(try await app.call(.get, "/status").headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test("A bearer token that is not valid is refused, not ignored")
    func invalidBearer() async throws {
        try await TestApp.run(.sqlite) { app in
            try await app.call(.get, "/api/v1/events", token: "made-up").expectProblem(.unauthorized)
            try await app.call(.get, "/api/v1/events", headers: [.authorization: "Basic abc"]).expectProblem(.unauthorized)
        }
    }

    @Test("The OpenAPI document describes every registered route")
    func openAPICoversRoutes() async throws {
        try await TestApp.run(.sqlite) { app in
            let response = try await app.call(.get, "/api/v1/openapi.json")
            #expect(response.status == .ok)
            #expect(response.string("openapi") == "3.1.0")
            let paths = try #require(response["paths"] as? [String: [String: Any]])
            let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } })
            let routes = Set(registeredRoutes(app.services))
            #expect(routes.subtracting(documented).isEmpty, "undocumented: \(routes.subtracting(documented).sorted())")
            #expect(documented.subtracting(routes).isEmpty, "documented but not served: \(documented.subtracting(routes).sorted())")
            // Every path parameter is declared; the signed media route needs no session but its signature.
            for (path, operations) in paths {
                for (method, operation) in operations {
                    let declared = ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []).filter { $0["in"] as? String == "path" }
                    #expect(Set(declared.map { $0["name"] as! String }) == Set(OpenAPIDocument.pathParameters(path)), "\(method) \(path)")
                }
            }
            // The signed media route needs no session but its signature (a query apiKey) and `until`.
            let media = try #require(paths["/api/v1/media/{event}/{id}/{file}"]?["get"] as? [String: Any])
            #expect((media["security"] as? [[String: [String]]]) == [["signedLink": []]])
            let query = (media["parameters"] as? [[String: Any]] ?? []).filter { $0["in"] as? String == "query" }
            #expect(query.map { $0["name"] as! String } == ["until"] && query.allSatisfy { $0["required"] as? Bool == true })
            let components = try #require(response["components"] as? [String: Any])
            let signedLink = (components["securitySchemes"] as? [String: [String: String]])?["signedLink"]
            #expect(signedLink == ["type": "apiKey", "in": "query", "name": "sig", "description": signedLink?["description"] ?? ""])

            // Generators need these: a unique operationId each, security said per operation, every refusal as
            // problem+json (a page's refusal aside), the upload's headers.
            let operations = paths.values.flatMap { $0.values.compactMap { $0 as? [String: Any] } }
            let ids = operations.compactMap { $0["operationId"] as? String }
            #expect(ids.count == operations.count && Set(ids).count == ids.count)
            #expect(operations.allSatisfy { $0["security"] is [Any] })
            let problems = try #require(components["responses"] as? [String: [String: Any]])
            for (path, methods) in paths where path != "/setup" {
                for (method, operation) in methods {
                    let responses = try #require((operation as? [String: Any])?["responses"] as? [String: [String: Any]])
                    for (status, answer) in responses where Int(status)! >= 400 {
                        let name = (answer["$ref"] as? String)?.split(separator: "/").last.map(String.init) ?? ""
                        let content = problems[name]?["content"] as? [String: Any]
                        #expect(content?.keys.first == "application/problem+json", "\(method) \(path) \(status)")
                    }
                }
            }
            let upload = try #require(paths["/api/v1/events/{id}/photos"]?["post"] as? [String: Any])
            let headers = (upload["parameters"] as? [[String: Any]] ?? []).filter { $0["in"] as? String == "header" }.map { $0["name"] as! String }
            #expect(Set(headers) == ["Idempotency-Key", "X-Photo-Source"])
            let feed = try #require(paths["/api/v1/events/{id}/changes"]?["get"] as? [String: Any])
            let feedAnswer = (feed["responses"] as? [String: [String: Any]])?["200"]?["content"] as? [String: Any]
            #expect(Set(feedAnswer?.keys.map { $0 } ?? []) == ["text/event-stream", "application/json"])
        }
    }

    @Test("/status and /healthz", arguments: TestEngine.allCases)
    func statusAndHealth(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let status = try await app.call(.get, "/status")
            #expect(status.string("version")?.wholeMatch(of: /\d+\.\d+\.\d+/) != nil)
            #expect(status["registrationEnabled"] as? Bool == true)
            #expect(try await app.call(.get, "/healthz").string("status") == "ok")

            // Media folder gone: health reports it.
            try FileManager.default.removeItem(atPath: app.services.configuration.mediaDirectory)
            try await app.call(.get, "/healthz").expectProblem(.serviceUnavailable)
        }
    }
}
