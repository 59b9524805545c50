import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// What a person sets on their own profile: name, zone, username, appearance, picture version.
extension UserRepository {
    package func setName(_ userID: String, _ name: String) async throws {
        try await database.sql { db in try await db.raw("UPDATE users SET name = \(bind: name) WHERE id = \(bind: userID)").run() }
    }

    package func setTimeZone(_ userID: String, _ zone: String?) async throws {
        try await database.sql { db in try await db.raw("UPDATE users SET time_zone = \(bind: zone) WHERE id = \(bind: userID)").run() }
    }

    package func timeZone(of userID: String) async throws -> String? {
        try await database.read { db in
            try await db.raw("SELECT time_zone FROM users WHERE id = \(bind: userID)").first()?.decode(column: "time_zone", as: String?.self)
        }
    }

    /// Makes `username` the account's (nil removes it); false when another account holds it. The unique index
    /// settles two accounts asking at once: the loser's statement throws.
    package func setUsername(_ userID: String, _ username: String?) async throws -> Bool {
        guard let username else {
            try await database.sql { db in try await db.raw("UPDATE users SET username = NULL WHERE id = \(bind: userID)").run() }
            return true
        }
        return try await database.transaction { db in
            let holder = try await db.raw("SELECT id FROM users WHERE username = \(bind: username)").first()?.decode(
                column: "id", as: String.self)
            guard holder == nil || holder == userID else { return false }
            try await db.raw("UPDATE users SET username = \(bind: username) WHERE id = \(bind: userID)").run()
            return true
        }
    }

    package func holder(ofUsername username: String) async throws -> String? {
        try await database.read { db in
            try await db.raw("SELECT id FROM users WHERE username = \(bind: username)").first()?.decode(column: "id", as: String.self)
        }
    }

    package func setAppearance(_ userID: String, _ appearance: String?) async throws {
        try await database.sql { db in
            try await db.raw("UPDATE users SET appearance = \(bind: appearance) WHERE id = \(bind: userID)").run()
        }
    }

    /// The account and its chosen zone.
    package func withTimeZone(_ userID: String) async throws -> (User, timeZone: String?)? {
        try await database.read { db in
            guard let row = try await db.raw("SELECT * FROM users WHERE id = \(bind: userID)").first() else { return nil }
            return (try Self.user(from: row), try row.decode(column: "time_zone", as: String?.self))
        }
    }

    /// A new picture: its version, one more than the last.
    package func nextAvatarVersion(_ userID: String) async throws -> Int {
        try await database.sql { db in
            try await db.raw(
                "UPDATE users SET avatar_version = COALESCE(avatar_version, 0) + 1 WHERE id = \(bind: userID) RETURNING avatar_version"
            ).first()?.decode(column: "avatar_version", as: Int.self) ?? 1
        }
    }

    package func removeAvatar(_ userID: String) async throws {
        try await database.sql { db in try await db.raw("UPDATE users SET avatar_version = NULL WHERE id = \(bind: userID)").run() }
    }

    package func avatarVersion(of userID: String) async throws -> Int? {
        try await database.read { db in
            try await db.raw("SELECT avatar_version FROM users WHERE id = \(bind: userID)").first()?.decode(column: "avatar_version", as: Int?.self)
        } ?? nil
    }
}
