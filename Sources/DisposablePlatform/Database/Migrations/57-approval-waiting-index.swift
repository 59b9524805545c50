/// Schema step 57: the photos awaiting approval, indexed by event, so that a busy gallery asks who has one without
/// reading the event's every photo. Partial: most photos are approved. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v57ApprovalWaitingIndex = Migration(
        version: 57, name: "approval waiting index",
        statements: [
            "CREATE INDEX photos_awaiting_approval ON photos (event_id, uploader_id) WHERE NOT approved"
        ]
    )
}
