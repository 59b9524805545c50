/// Account pictures beside an event's photos (SOC-5): which of its shooters — the organizer, and guests who
/// joined while signed in — have a picture, and its address. Photos name their shooter per event, so the
/// pictures are looked up per event, in one small query remembered like event rows are (`RecentReads`).
import DisposableCore
import DisposablePlatform

package struct ShooterPictures: Sendable {
    let users: UserRepository
    package let recent: RecentAnswers<[String: String]>

    init(users: UserRepository, recent: RecentAnswers<[String: String]>) {
        self.users = users
        self.recent = recent
    }

    /// Uploader id (a guest's id, or the organizer's account id) → the picture's address; only those with one.
    package func inEvent(_ eventID: String) async throws -> [String: String] {
        try await recent.answer(for: eventID) { [users] in
            try await users.pictureVersions(inEvent: eventID).mapValues { ProfileService.url(userID: $0.account, version: $0.version) }
        } ?? [:]
    }
}
