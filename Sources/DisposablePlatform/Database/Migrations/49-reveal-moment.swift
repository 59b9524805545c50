/// Schema step 49: the moment an event's gallery opens, stored with the event (`Event.revealsAt` decides it, in
/// Swift, whenever the event is saved), so the clock's queries compare a column instead of restating the rule.
/// Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v49RevealMoment = Migration(
        version: 49, name: "reveal moment",
        statements: [
            "ALTER TABLE events ADD COLUMN reveals_at BIGINT",
            // Events saved before this step: the rule as it stood then, once.
            """
            UPDATE events SET reveals_at = CASE reveal_mode WHEN 'now' THEN starts_at WHEN 'at' THEN COALESCE(reveal_at, ends_at)
                ELSE ends_at END
            """,
        ]
    )
}
