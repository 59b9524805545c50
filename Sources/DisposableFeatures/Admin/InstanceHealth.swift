/// Whether this instance can do its work (`/healthz`, for load balancers): its database answers and its media
/// storage takes writes.
import DisposableCore
import DisposablePlatform

package struct InstanceHealth: Sendable {
    package let transactions: Transactions
    package let blobs: any BlobStore

    package init(transactions: Transactions, blobs: any BlobStore) {
        self.transactions = transactions
        self.blobs = blobs
    }

    package func checkDatabase() async throws {
        try await transactions.ping()
    }

    package func checkStorage() async throws {
        try await blobs.checkHealth()
    }
}
