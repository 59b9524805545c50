import DisposableAPI
import DisposableCore
import DisposablePlatform
import SQLKit

/// Accounts as the admin sees them (ADM-4, ADM-5): with their allowance, usage and sign-in providers.
extension UserRepository {
    /// Accounts by email after `cursor` (the last email of the previous page), at most `limit`.
    package func adminViews(after cursor: String?, limit: Int) async throws -> [AdminUserJSON] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT users.*, \(Self.quotaAllowedSQL) AS allowed, \(Self.openIDSQL) AS openid_links FROM users
                WHERE \(bind: cursor ?? "") = '' OR email > \(bind: cursor ?? "")
                ORDER BY email LIMIT \(bind: limit)
                """
            ).all().map(Self.adminView(from:))
        }
    }

    package func adminView(_ id: String) async throws -> AdminUserJSON? {
        try await database.read { db in
            try await db.raw(
                "SELECT users.*, \(Self.quotaAllowedSQL) AS allowed, \(Self.openIDSQL) AS openid_links FROM users WHERE id = \(bind: id)"
            )
            .first().map(Self.adminView(from:))
        }
    }

    package func rename(_ id: String, to name: String) async throws {
        try await database.sql { db in try await db.raw("UPDATE users SET name = \(bind: name) WHERE id = \(bind: id)").run() }
    }

    /// The account's own quota; nil: the instance's default.
    package func setQuota(_ bytes: Int64?, of id: String) async throws {
        try await database.sql { db in try await db.raw("UPDATE users SET quota_bytes = \(bind: bytes) WHERE id = \(bind: id)").run() }
    }

    private static func adminView(from row: any SQLRow) throws -> AdminUserJSON {
        let user = try Self.user(from: row)
        let own = try row.decode(column: "quota_bytes", as: Int64?.self)
        return AdminUserJSON(
            id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, quotaBytes: try row.decode(column: "allowed", as: Int64.self),
            quotaIsDefault: own == nil, usedBytes: try row.decode(column: "used_bytes", as: Int64.self), createdAt: user.createdAt,
            avatarURL: try row.decode(column: "avatar_version", as: Int?.self).map { ProfileService.url(userID: user.id, version: $0) },
            usesOpenID: try row.decode(column: "openid_links", as: Int64.self) > 0)
    }

    /// How many providers the account is linked to.
    private static let openIDSQL = SQLQueryString("(SELECT COUNT(*) FROM openid_links WHERE openid_links.user_id = users.id)")
}
