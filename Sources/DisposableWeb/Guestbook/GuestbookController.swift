import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The guestbook's routes (SOC-1, SOC-2): notes, comments, likes.
package struct GuestbookController {
    package let guestbook: GuestbookService

    package init(guestbook: GuestbookService) {
        self.guestbook = guestbook
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/notes", use: notes)
        router.post("/api/v1/events/:id/notes", use: postNote)
        router.get("/api/v1/photos/:id/comments", use: comments)
        router.post("/api/v1/photos/:id/comments", use: addComment)
        router.delete("/api/v1/comments/:id", use: deleteComment)
        router.put("/api/v1/photos/:id/like", use: like)
        router.delete("/api/v1/photos/:id/like", use: unlike)
    }

    @Sendable package func notes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        return try jsonResponse(
            try await guestbook.notes(
                eventID: try context.parameters.require("id"), cursor: query.get("cursor"),
                limit: try GalleryController.limit(query.get("limit")), for: context.identity))
    }

    @Sendable package func postNote(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(NoteInput.self)
        return try jsonResponse(
            try await guestbook.postNote(input, into: try context.parameters.require("id"), for: context.identity), status: .created)
    }

    @Sendable package func comments(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        return try jsonResponse(
            try await guestbook.comments(
                on: try context.parameters.require("id"), cursor: query.get("cursor"),
                limit: try GalleryController.limit(query.get("limit")), for: context.identity))
    }

    @Sendable package func addComment(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(CommentInput.self)
        return try jsonResponse(
            try await guestbook.addComment(input, on: try context.parameters.require("id"), for: context.identity), status: .created)
    }

    @Sendable package func deleteComment(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await guestbook.deleteComment(try context.parameters.require("id"), for: context.identity)
        return Response(status: .noContent)
    }

    @Sendable package func like(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await guestbook.setLike(true, on: try context.parameters.require("id"), for: context.identity))
    }

    @Sendable package func unlike(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await guestbook.setLike(false, on: try context.parameters.require("id"), for: context.identity))
    }
}

extension NoteInput: JSONBody {
    package static let fields: Set<String> = ["text"]
}

extension CommentInput: JSONBody {
    package static let fields: Set<String> = ["text"]
}
