import DisposableCore
import DisposablePlatform
import SQLKit

/// Instance-wide switches the admin can flip at run time (stored, so every instance sees them).
struct InstanceSettingsRepository: Sendable {
    package let database: Database
    package let registrationDefault: Bool

    package func registrationEnabled() async throws -> Bool {
        try await database.sql { db in
            let row = try await db.raw("SELECT value FROM instance_settings WHERE key = 'registration_enabled'").first()
            return try row.map { try $0.decode(column: "value", as: String.self) == "true" } ?? registrationDefault
        }
    }

    package func setRegistrationEnabled(_ enabled: Bool) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO instance_settings (key, value) VALUES ('registration_enabled', \(bind: enabled ? "true" : "false"))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """
            ).run()
        }
    }
}

extension InstanceSettingsRepository {
    /// The quota of accounts that have none of their own (ADM-5).
    package func defaultQuota() async throws -> Int64 {
        try await database.sql { db in
            let row = try await db.raw("SELECT value FROM instance_settings WHERE key = 'default_quota_bytes'").first()
            return try row.flatMap { Int64(try $0.decode(column: "value", as: String.self)) } ?? Quota.builtInDefault
        }
    }

    package func setDefaultQuota(_ bytes: Int64) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO instance_settings (key, value) VALUES ('default_quota_bytes', \(bind: String(bytes)))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """
            ).run()
        }
    }

    /// The key that signs media links: the stored one, or `candidate` if none is stored yet.
    /// Instances starting together agree on whichever was written first.
    package func mediaSigningKey(candidate: String) async throws -> String {
        try await database.sql { db in
            try await db.raw(
                "INSERT INTO instance_settings (key, value) VALUES ('media_signing_key', \(bind: candidate)) ON CONFLICT (key) DO NOTHING"
            ).run()
            let row = try await db.raw("SELECT value FROM instance_settings WHERE key = 'media_signing_key'").first()
            return try row?.decode(column: "value", as: String.self) ?? candidate
        }
    }

    /// The storage key's check value: the stored one, after storing `candidate` if none is stored yet (nil: only
    /// read it). Instances starting together agree on whichever was written first.
    package func storageKeyCheck(candidate: String?) async throws -> String? {
        try await database.sql { db in
            if let candidate {
                try await db.raw(
                    "INSERT INTO instance_settings (key, value) VALUES ('storage_key_check', \(bind: candidate)) ON CONFLICT (key) DO NOTHING"
                ).run()
            }
            let row = try await db.raw("SELECT value FROM instance_settings WHERE key = 'storage_key_check'").first()
            return try row?.decode(column: "value", as: String.self)
        }
    }

    /// The setup code: the stored one, after storing `candidate` if none is stored yet. In the caller's transaction
    /// (the first admin is made in the one that checks it).
    package static func setupCode(candidate: String, in db: any SQLDatabase) async throws -> String {
        try await db.raw(
            "INSERT INTO instance_settings (key, value) VALUES ('setup_code', \(bind: candidate)) ON CONFLICT (key) DO NOTHING"
        ).run()
        return try await db.raw("SELECT value FROM instance_settings WHERE key = 'setup_code'").first()?.decode(column: "value", as: String.self)
            ?? ""
    }

    package static func removeSetupCode(in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM instance_settings WHERE key = 'setup_code'").run()
    }

    /// A setting another feature keeps here (the push key): its value, or nil.
    package static func value(_ key: String, in db: any SQLDatabase) async throws -> String? {
        try await db.raw("SELECT value FROM instance_settings WHERE key = \(bind: key)").first()?.decode(column: "value", as: String.self)
    }

    /// Stores `candidate` under `key` unless a value is there already (instances starting together agree on the first).
    package static func keep(_ key: String, candidate: String, in db: any SQLDatabase) async throws {
        try await db.raw("INSERT INTO instance_settings (key, value) VALUES (\(bind: key), \(bind: candidate)) ON CONFLICT (key) DO NOTHING")
            .run()
    }
}
