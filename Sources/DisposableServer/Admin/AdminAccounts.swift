import Foundation

/// Creating admin accounts: the first-run wizard (ADM-2) and `disposable admin create`.
public struct AdminAccounts: Sendable {
    let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    public enum Outcome: Sendable, Equatable {
        case created(userID: String)
        /// Only for the wizard: an admin appeared meanwhile, so the wizard is closed.
        case adminAlreadyExists
        case emailTaken
    }

    /// Creates an admin account. With `onlyIfFirst`, it is refused once any admin exists — checked
    /// in the same transaction as the insert, so two racing wizard submissions cannot both win.
    public func create(email rawEmail: String, password rawPassword: String, name rawName: String?, onlyIfFirst: Bool) async throws -> Outcome {
        let email = try Credentials.email(rawEmail)
        let password = try Credentials.newPassword(rawPassword)
        let name = try DisplayName.validate(rawName ?? String(email.prefix { $0 != "@" }), max: 80)
        let hash = try await services.passwords.hash(password)
        let now = services.clock.now
        let database = services.database
        let users = services.users
        return try await database.transaction { db in
            if database.kind == .postgres {
                try await db.raw("SELECT pg_advisory_xact_lock(74042027)").run()
            }
            if onlyIfFirst, try await users.adminExists(in: db) { return .adminAlreadyExists }
            guard let user = try await users.create(email: email, name: name, passwordHash: hash, isAdmin: true, now: now, in: db) else {
                return .emailTaken
            }
            return .created(userID: user.id)
        }
    }

    public func adminExists() async throws -> Bool {
        try await services.database.sql { db in try await services.users.adminExists(in: db) }
    }
}
