import DisposableAPI
import DisposableCore
import DisposablePlatform

/// What the admin panel asks of accounts (`AdminService` checks the rules: an admin asks, quotas are valid).
extension AccountService {
    package func adminViews(after cursor: String?, limit: Int) async throws -> [AdminUserJSON] {
        try await users.adminViews(after: cursor, limit: limit)
    }

    package func adminView(_ id: String) async throws -> AdminUserJSON? {
        try await users.adminView(id)
    }

    package func rename(_ id: String, to name: String) async throws {
        try await users.rename(id, to: name)
    }

    package func setQuota(_ bytes: Int64?, of id: String) async throws {
        try await users.setQuota(bytes, of: id)
    }
}
