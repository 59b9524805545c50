import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Forgets remembered reads around every write: all of them, or after an upload what it changes (`RecentReads`).
package struct ForgetRecentReadsMiddleware<Context: RequestContext>: RouterMiddleware {
    package let recent: RecentReads
    /// Tells the other instances, after a write that is not an upload, to forget theirs.
    package let tellOthers: @Sendable () -> Void

    package init(recent: RecentReads, tellOthers: @escaping @Sendable () -> Void) {
        self.recent = recent
        self.tellOthers = tellOthers
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .get || request.method == .head { return try await next(request, context) }
        let upload = Self.isUpload(request)
        let token = upload ? AuthenticationMiddleware.sentToken(request) : nil
        let forget = { [recent] in upload ? recent.forgetAfterUpload(token: token) : recent.forgetAll() }
        forget()
        // After the write too: a read that looked something up while the write ran must not keep it.
        defer {
            forget()
            if !upload { tellOthers() }
        }
        return try await next(request, context)
    }

    /// A shot (`POST /api/v1/events/{id}/photos`) or a resumable upload's request (`/api/v1/uploads…`, the library's
    /// too).
    package static func isUpload(_ request: Request) -> Bool {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, parts[1] == "api", parts[2] == "v1" else { return false }
        if parts[3] == "uploads" { return true }
        return request.method == .post && parts.count == 6 && parts[3] == "events" && parts[5] == "photos"
    }
}
