import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The Story Board: `PUT`/`DELETE /api/v1/library/capsules/{month}/share`, `GET /api/v1/board`, a shared capsule and
/// its photos, reactions (`PUT`/`DELETE …/reaction`) and comments. Accounts only; a shared capsule is its owner's
/// and their friends'.
package struct StoryBoardController {
    package let board: StoryBoardService

    package init(board: StoryBoardService) {
        self.board = board
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.put("/api/v1/library/capsules/:month/share", use: share)
        router.delete("/api/v1/library/capsules/:month/share", use: unshare)
        router.get("/api/v1/board", use: list)
        router.get("/api/v1/board/:id", use: capsule)
        router.get("/api/v1/board/:id/photos/:photoID/thumbnail") { try await photo($0, $1, file: .thumbnail) }
        router.get("/api/v1/board/:id/photos/:photoID/preview") { try await photo($0, $1, file: .preview) }
        router.get("/api/v1/board/:id/clip.m4a", use: clip)
        router.put("/api/v1/board/:id/reaction", use: react)
        router.delete("/api/v1/board/:id/reaction", use: unreact)
        router.post("/api/v1/board/:id/comments", use: comment)
        router.delete("/api/v1/board/:id/comments/:commentID", use: deleteComment)
    }

    @Sendable package func share(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await board.share(try context.parameters.require("month"), for: try context.requireUser()))
    }

    @Sendable package func unshare(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await board.unshare(try context.parameters.require("month"), for: try context.requireUser())
        return Response(status: .noContent)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await board.board(for: try context.requireUser()))
    }

    @Sendable package func capsule(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await board.shared(try context.parameters.require("id"), for: try context.requireUser()))
    }

    @Sendable package func photo(_ request: Request, _ context: AppRequestContext, file: MediaLinks.File) async throws -> Response {
        let user = try context.requireUser()
        let bytes = try await board.photo(
            try context.parameters.require("id"), asset: try context.parameters.require("photoID"), file: file, for: user)
        // Private: a friendship can end; the link carries the file's revision, so a cached copy is never stale.
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"], body: .init(byteBuffer: bytes))
    }

    @Sendable package func clip(_ request: Request, context: AppRequestContext) async throws -> Response {
        CapsuleController.audio(try await board.clip(try context.parameters.require("id"), for: try context.requireUser()))
    }

    @Sendable package func react(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(ReactionInput.self)
        return try jsonResponse(try await board.react(try context.parameters.require("id"), input.emoji, for: user))
    }

    @Sendable package func unreact(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await board.unreact(try context.parameters.require("id"), for: try context.requireUser()))
    }

    @Sendable package func comment(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(CommentInput.self)
        return try jsonResponse(try await board.comment(try context.parameters.require("id"), input.text, for: user), status: .created)
    }

    @Sendable package func deleteComment(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await board.deleteComment(
            try context.parameters.require("id"), try context.parameters.require("commentID"), for: try context.requireUser())
        return Response(status: .noContent)
    }
}

extension ReactionInput: JSONBody {
    package static let fields: Set<String> = ["emoji"]
}
