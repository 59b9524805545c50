/// Whether this instance can do its work (`/healthz`, for load balancers): its database answers and its media
/// storage takes writes.
struct InstanceHealth: Sendable {
    let transactions: Transactions
    let blobs: any BlobStore

    func checkDatabase() async throws {
        try await transactions.ping()
    }

    func checkStorage() async throws {
        try await blobs.checkHealth()
    }
}
