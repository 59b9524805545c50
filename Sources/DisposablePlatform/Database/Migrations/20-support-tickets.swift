/// Schema step 20: support tickets. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v20SupportTickets = Migration(
        version: 20,
        name: "support tickets",
        statements: [
            """
            CREATE TABLE support_tickets (
                id TEXT PRIMARY KEY,
                user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
                email TEXT,
                subject TEXT NOT NULL,
                message TEXT NOT NULL,
                status TEXT NOT NULL,
                answer TEXT,
                created_at BIGINT NOT NULL,
                answered_at BIGINT,
                closed_at BIGINT
            )
            """,
            "CREATE INDEX support_tickets_by_status ON support_tickets (status, created_at)",
        ]
    )
}
