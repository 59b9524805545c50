import DisposableCore
import DisposablePlatform
import Foundation

/// The film in the disposable camera (UP-2): each guest has the event's `shotsPerGuest` shots; organizers
/// have no limit. Checked before an upload is read (a quick refusal), and taken for good by a guarded UPDATE
/// (`GuestRepository.takeShot`) in the transaction that records the photo — so N parallel uploads with k shots
/// left get exactly k, and a retry or a duplicate (which rolls the transaction back) never costs one.
package enum ShotLimit {
    /// Refuses at once when the guest has no shot left.
    package static func check(_ guest: Guest, shotsPerGuest: Int) throws {
        if guest.shotsUsed >= shotsPerGuest { throw reached(shotsPerGuest) }
    }

    package static func reached(_ shots: Int) -> Problem {
        Problem(
            .forbidden, "shot-limit-reached", title: "No shots left",
            detail: "You have used all your \(shots) shots for this event — like a real disposable camera.")
    }
}
