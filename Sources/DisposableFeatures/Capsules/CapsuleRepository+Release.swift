import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Releasing a month's capsule: whether its photos have arrived, and making it with its notice in one transaction.
extension CapsuleRepository {
    /// The month has photos or moments, and none of its photos is still arriving (read on a reader: most ticks find
    /// the photos still coming, and take no write lock for it).
    package func isReady(_ month: CapsuleMonth, userID: String, zone: TimeZone, settledSince: Date) async throws -> Bool {
        try await database.read { db in
            let candidates = try await Self.candidates(userID: userID, month: month, in: db)
            let moments = try await Self.moments(userID: userID, month: month, zone: zone, in: db)
            let arriving = try await Self.arriving(userID: userID, month: month, since: settledSince, in: db)
            return !(candidates.isEmpty && moments.isEmpty) && !arriving
        }
    }

    /// Makes the capsule of `count` photos (a quiet month completed from the same month of earlier years) and its
    /// notice, unless another instance did or its photos are still arriving; says whether it was made.
    package func release(
        _ month: CapsuleMonth, userID: String, zone: TimeZone, settledSince: Date, count: Int, song: (title: String, artist: String?)?,
        now: Date
    ) async throws -> Bool {
        try await database.transaction { db in
            let candidates = try await Self.candidates(userID: userID, month: month, in: db)
            let moments = try await Self.moments(userID: userID, month: month, zone: zone, in: db)
            guard !(candidates.isEmpty && moments.isEmpty),
                try await !Self.arriving(userID: userID, month: month, since: settledSince, in: db),
                try await Self.decide(month, userID: userID, in: db)
            else { return false }
            let earlier = candidates.count < count ? try await Self.sameMonthEarlier(userID: userID, month: month, in: db) : []
            let capsule = Capsule(
                id: newID(), userID: userID, month: month, assetIDs: Self.fill(count, from: candidates, earlier: earlier),
                songTitle: song?.title, songArtist: song?.artist, releasedAt: now, updatedAt: now)
            guard try await Self.insert(capsule, in: db) else { return false }
            try await NotificationRepository.toAccount(.capsule, userID: userID, period: month.text, now: now, in: db)
            return true
        }
    }
}
