import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// SOC-5: `PATCH /api/v1/me` (display name, time zone, username, appearance), `PUT`/`DELETE /api/v1/me/avatar`, and the picture itself.
package struct ProfileController {
    package let profiles: ProfileService

    package init(profiles: ProfileService) {
        self.profiles = profiles
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.patch("/api/v1/me", use: update)
        router.put("/api/v1/me/avatar", use: setAvatar)
        router.delete("/api/v1/me/avatar", use: removeAvatar)
        router.get("/api/v1/users/:id/avatar.jpg", use: avatar)
    }

    @Sendable package func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(ProfilePatch.self)
        if let name = body.name { try await profiles.rename(user, to: name) }
        if let zone = body.timeZone { try await profiles.setTimeZone(of: user, to: zone) }
        if let username = body.username { try await profiles.setUsername(of: user, to: username) }
        if let appearance = body.appearance { try await profiles.setAppearance(of: user, to: appearance) }
        guard let profile = try await profiles.profile(of: user.id) else { throw Problem.unauthorized }
        return try jsonResponse(profile)
    }

    @Sendable package func setAvatar(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let url = try await profiles.setAvatar(of: user, body: request.body)
        return try jsonResponse(ProfileJSON(name: user.name, avatarURL: url))
    }

    @Sendable package func removeAvatar(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await profiles.removeAvatar(of: try context.requireUser())
        return Response(status: .noContent)
    }

    /// Anyone signed in may see a picture (guests see their organizer's); the id is not guessable.
    @Sendable package func avatar(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireIdentity()
        guard let bytes = try await profiles.avatar(of: try context.parameters.require("id")) else {
            throw Problem.notFound("This account has no picture.")
        }
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=31536000, immutable"], body: .init(byteBuffer: bytes))
    }
}

extension ProfilePatch: JSONBody {
    package static let fields: Set<String> = ["name", "timeZone", "username", "appearance"]
}
