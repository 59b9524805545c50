import DisposableAPI
import DisposableCore
import DisposablePlatform
import SQLKit

/// What the data export reads of a person from the social features' tables, through their repositories' queries.
extension PersonalDataRepository {
    package func pushDevices(_ owner: PushSubscriptions.Owner) async throws -> [PushDeviceJSON] {
        try await database.read { db in try await PushSubscriptionRepository.devices(owner, in: db) }
    }

    package func friendNames(of userID: String) async throws -> [String] {
        try await database.read { db in try await FriendshipRepository.names(of: userID, in: db) }
    }

    package func capsuleComments(by userID: String) async throws -> [MyData.CapsuleComment] {
        try await database.read { db in try await StoryBoardRepository.comments(by: userID, in: db) }
    }

    package func capsules(of userID: String) async throws -> [Capsule] {
        try await database.read { db in try await CapsuleRepository.all(userID: userID, in: db) }
    }
}
