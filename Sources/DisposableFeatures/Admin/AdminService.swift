import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// The instance's people and numbers, for its admin (ADM-4..6): accounts with their quotas and usage, adding,
/// changing and deleting accounts, the instance's switches and its statistics. The API and the panel call it;
/// every method expects the caller to be an admin (`requireAdmin`), checked by them.
package struct AdminService: Sendable {
    package let accounts: AccountService
    package let myData: MyDataService
    package let statistics: InstanceStatistics
    package let clock: any AppClock
    /// Where the files live: the disk's figures when it is a folder.
    package let storage: StorageLocation

    package init(accounts: AccountService, myData: MyDataService, statistics: InstanceStatistics, clock: any AppClock, storage: StorageLocation) {
        self.accounts = accounts
        self.myData = myData
        self.statistics = statistics
        self.clock = clock
        self.storage = storage
    }

    package static let pageSize = 100

    // MARK: Accounts

    /// Accounts by email, `limit` at a time after `cursor` (the last email of the previous page).
    package func users(after cursor: String?, limit: Int = pageSize) async throws -> AdminUserList {
        guard (1...500).contains(limit) else { throw Problem.invalidField("limit", "The page size (limit) must be between 1 and 500.") }
        let rows = try await accounts.adminViews(after: cursor, limit: limit + 1)
        return AdminUserList(items: Array(rows.prefix(limit)), nextCursor: rows.count > limit ? rows[limit - 1].email : nil)
    }

    package func user(_ id: String) async throws -> AdminUserJSON {
        guard let found = try await accounts.adminView(id) else { throw Self.notFound }
        return found
    }

    /// An account the admin adds: the same rules as registering, open or closed registration alike.
    package func addUser(_ request: NewUserRequest) async throws -> AdminUserJSON {
        let quota = try request.quotaBytes.map(Self.validQuota)
        let user = try await accounts.addAccount(
            email: request.email, password: request.password, name: request.name, isAdmin: request.isAdmin ?? false)
        if let quota { try await setQuota(quota, of: user.id) }
        return try await self.user(user.id)
    }

    package func update(_ id: String, with patch: AdminUserPatch, by admin: User) async throws -> AdminUserJSON {
        _ = try await user(id)
        switch patch.quotaBytes {
        case .absent: break
        case .null: try await setQuota(nil, of: id)
        case .value(let bytes): try await setQuota(try Self.validQuota(bytes), of: id)
        }
        if case .value(let name) = patch.name {
            let valid = try DisplayName.validate(name, max: 80)
            try await accounts.rename(id, to: valid)
        }
        switch patch.isAdmin {
        case .absent: break
        case .null: throw Problem.invalidField("isAdmin", "Whether the account is an admin (isAdmin) must be true or false.")
        case .value(let isAdmin):
            if !isAdmin && id == admin.id {
                throw Problem.conflict("last-admin", "You cannot take away your own admin rights: another admin must do it.")
            }
            try await accounts.setAdmin(id, isAdmin)
        }
        return try await user(id)
    }

    /// Deletes an account and everything of it (P-I-230), as `DELETE /api/v1/me` does: each event it organizes —
    /// files, rows, with a deletion record — its photos in others' events, then the account and its sessions.
    /// An admin deletes their own account elsewhere (`/me`).
    package func deleteUser(_ id: String, by admin: User) async throws {
        _ = try await user(id)
        guard id != admin.id else {
            throw Problem.conflict("own-account", "You cannot delete your own account from the admin panel.")
        }
        try await myData.eraseAccount(id)
    }

    private func setQuota(_ bytes: Int64?, of id: String) async throws {
        try await accounts.setQuota(bytes, of: id)
    }

    /// From 0 (nothing more may be stored) to a petabyte.
    package static func validQuota(_ bytes: Int64) throws -> Int64 {
        guard (0...1_000_000_000_000_000).contains(bytes) else {
            throw Problem.invalidField("quotaBytes", "The quota (quotaBytes) must be between 0 and 1,000,000,000,000,000 bytes.")
        }
        return bytes
    }

    package static let notFound = Problem.notFound("There is no account with this id.")

    // MARK: Settings

    package func settings() async throws -> InstanceSettingsJSON {
        InstanceSettingsJSON(
            registrationEnabled: try await accounts.settings.registrationEnabled(),
            defaultQuotaBytes: try await accounts.settings.defaultQuota())
    }

    package func update(settings patch: InstanceSettingsJSON) async throws -> InstanceSettingsJSON {
        let quota = try patch.defaultQuotaBytes.map(Self.validQuota)
        if let enabled = patch.registrationEnabled { try await accounts.settings.setRegistrationEnabled(enabled) }
        if let quota { try await accounts.settings.setDefaultQuota(quota) }
        return try await settings()
    }

    // MARK: Statistics

    package func stats() async throws -> InstanceStats {
        let dayMilliseconds: Int64 = 86_400_000
        let today = clock.now.millisecondsSince1970 / dayMilliseconds
        let totals = try await statistics.totals(now: clock.now, uploadsSince: Date(millisecondsSince1970: (today - 29) * dayMilliseconds))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .gmt
        formatter.dateFormat = "yyyy-MM-dd"
        let perDay = (today - 29...today).map { day in
            InstanceStats.Day(
                day: formatter.string(from: Date(millisecondsSince1970: day * dayMilliseconds)), uploads: totals.uploadsPerDay[day] ?? 0)
        }
        return InstanceStats(
            users: totals.users, events: totals.events, photos: totals.photos, uploadsPerDay: perDay,
            renderQueueDepth: totals.renderQueueDepth, storage: storage(stored: totals.storedBytes))
    }

    private func storage(stored: Int64) -> InstanceStats.Storage {
        guard case .localFolder(let folder) = storage else {
            return .init(kind: "s3", storedBytes: stored, diskFreeBytes: nil, diskTotalBytes: nil)
        }
        var disk = statvfs()
        guard statvfs(folder, &disk) == 0 else {
            return .init(kind: "folder", storedBytes: stored, diskFreeBytes: nil, diskTotalBytes: nil)
        }
        let block = Int64(disk.f_frsize)
        return .init(
            kind: "folder", storedBytes: stored, diskFreeBytes: Int64(disk.f_bavail) * block, diskTotalBytes: Int64(disk.f_blocks) * block)
    }
}
