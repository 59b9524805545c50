import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The `DisposableAPI` models read what the server writes: the Swift SDK will decode the same bytes.
@Suite("API models (DisposableAPI)")
struct APIModelTests {
    @Test("Events, joins, photos, gallery pages, the change feed and problems decode into the shared models", arguments: TestEngine.allCases)
    func responsesDecode(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: an event with a guest and a ready photo
            let organizer = try await app.userToken()
            let created = try await app.call(.post, "/api/v1/events", json: ["name": "Models"], token: organizer)
            let event = try Self.decode(EventJSON.self, created)
            let joined = try Self.decode(
                JoinResult.self, try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event.code, name: "Ana")))
            let ids = try await GalleryTests.shoot(app, 1, event: event.id, token: joined.token)

            // MUT + validate
            #expect(event.role == .organizer && event.name == "Models" && event.reveal.mode == .now)
            #expect(joined.guest.name == "Ana" && joined.event.role == .guest && joined.guest.shotsLeft == event.shotsPerGuest)
            let page = try Self.decode(GalleryPage.self, try await app.call(.get, "/api/v1/events/\(event.id)/photos", token: joined.token))
            #expect(page.items.map(\.id) == ids && page.items[0].mine && page.items[0].status == .ready)
            let list = try Self.decode(EventList.self, try await app.call(.get, "/api/v1/events", token: organizer))
            #expect(list.items.map(\.id) == [event.id])
            let changes = try Self.decode(
                ChangePage.self,
                try await app.call(.get, "/api/v1/events/\(event.id)/changes?since=0", token: joined.token, headers: [.accept: "application/json"]))
            // One photo and no queue: made whole at once (the two phases are for a queue).
            #expect(changes.items.map(\.kind) == [.photoAdded, .photoReady])
            #expect(changes.items.last?.change.photo?.mine == true)
            let problem = try Self.decode(
                ProblemDocument.self, try await app.call(.post, "/api/v1/events", json: ["name": ""], token: organizer))
            #expect(problem.status == 422 && problem.type == "/problems/invalid-field" && problem.extensions["field"] == "name")

            // The models write what the server reads.
            var settings = EventSettingsInput()
            settings.name = .value("Renamed")
            settings.maxGuests = .null
            let body = try JSONSerialization.jsonObject(with: try JSONEncoder.sorted.encode(settings)) as? [String: Any]
            #expect(body?.keys.sorted() == ["maxGuests", "name"], "absent members are left out, null ones sent as null")
            let renamed = try await app.call(
                .patch, "/api/v1/events/\(event.id)", raw: String(decoding: try JSONEncoder.sorted.encode(settings), as: UTF8.self), token: organizer)
            #expect(try Self.decode(EventJSON.self, renamed).name == "Renamed")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: APIResponse) throws -> T {
        try JSONDecoder.api.decode(type, from: Data(buffer: response.body))
    }
}
