import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/board` (stories 20–23): this month's Story Board — friends' shared capsules, to enlarge, react to and comment on.
/// The page is a shell: `board.js` reads and writes through `/api/v1/board` with the session cookie.
package struct StoryBoardPages {
    package let board: StoryBoardService

    package init(board: StoryBoardService) {
        self.board = board
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/board", use: page)
    }

    @Sendable package func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/board") }
        let web = WebRequest(request, context: context)
        let month = try await board.boardMonth(for: user)
        return web.page(
            "board", title: web.t("board_title"),
            model: BoardView(
                lead: web.t("board_lead", ["month": web.monthName(month, title: false)]), reactions: StoryBoardService.reactions))
    }
}

package struct BoardView: Sendable {
    package let lead: String
    package let reactions: [String]
}
