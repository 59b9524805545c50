import ArgumentParser
import DisposableClient
import Foundation

/// What `disposable sync` sends: new and changed files of the folder up, removed ones to the library's trash.
extension FolderSync {
    mutating func pushLocal(_ state: inout SyncState, _ files: [String: LocalFile]) async throws {
        // Removed here: into the library's trash (never deleted for good from here).
        for (path, known) in state.files.sorted(by: { $0.key < $1.key }) where files[path] == nil {
            guard !noDelete else { continue }
            record(Action(kind: .trashedThere, path: path, assetId: known.assetId))
            guard !dryRun else { continue }
            do {
                if try await client.libraryAsset(known.assetId).trashedAt == nil { try await client.trashLibraryAsset(known.assetId) }
            } catch let problem as DisposableProblem where problem.status == 404 {
                // Gone from the library already.
            }
            state.files[path] = nil
            try state.save(in: root)
        }
        // Edited here: the asset takes the new version.
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            guard let known = state.files[path], known.sha256 != file.sha256 else { continue }
            record(Action(kind: .updatedThere, path: path, assetId: known.assetId))
            guard !dryRun else { continue }
            do {
                let asset = try await client.replaceInLibrary(known.assetId, with: file.url)
                state.files[path] = SyncState.Entry(assetId: asset.id, sha256: asset.sha256, size: file.size, modified: file.modified)
            } catch let problem as DisposableProblem where problem.status == 404 || problem.status == 409 {
                // The asset is gone, in the trash, or another one holds these bytes: sent as new below.
                state.files[path] = nil
            }
            try state.save(in: root)
        }
        // New here: up, a few at a time, unless the library already has the bytes under an asset no other file here
        // is synced with. The state is written every few seconds: a killed run sends the rest again, under the same
        // keys, and gets the same assets back.
        let new = files.sorted(by: { $0.key < $1.key }).filter { state.files[$0.key] == nil && refused[$0.key] != $0.value.sha256 }
        guard !dryRun else {
            for (path, _) in new { record(Action(kind: .uploaded, path: path)) }
            return
        }
        let client = client
        try await withThrowingTaskGroup(of: (String, LocalFile, Sent).self) { group in
            var next = new.makeIterator()
            for _ in 0..<Self.concurrentUploads { if let item = next.next() { group.addTask { try await Self.send(client, item.key, item.value) } } }
            while let (path, file, sent) = try await group.next() {
                if let item = next.next() { group.addTask { try await Self.send(client, item.key, item.value) } }
                settle(path, file, sent, &state)
                if ContinuousClock.now - lastSaved > .seconds(2) {
                    try state.save(in: root)
                    lastSaved = .now
                }
            }
        }
    }

    static let concurrentUploads = 4

    /// What the library said to a new file.
    enum Sent {
        case stored(DisposableClient.LibraryAsset)
        /// The same bytes are there already, as this asset.
        case existing(DisposableClient.LibraryAsset)
        case refused(String)
    }

    private static func send(_ client: DisposableClient, _ path: String, _ file: LocalFile) async throws -> (String, LocalFile, Sent) {
        do {
            let (asset, _) = try await client.uploadToLibrary(
                file.url, fileName: (path as NSString).lastPathComponent, takenAt: Date(timeIntervalSince1970: file.modified),
                idempotencyKey: file.sha256)
            return (path, file, .stored(try await attachMotion(client, file, to: asset)))
        } catch let problem as DisposableProblem where problem.status == 409 && problem.extensions["existingId"] != nil {
            let existing = try await client.libraryAsset(problem.extensions["existingId"]!)
            return (path, file, .existing(try await attachMotion(client, file, to: existing)))
        } catch let problem as DisposableProblem where [400, 413, 415, 422].contains(problem.status) {
            return (path, file, .refused(problem.detail))
        }
    }

    /// A live photo's video, unless the asset has its motion already (a run killed in between, a second folder).
    private static func attachMotion(
        _ client: DisposableClient, _ file: LocalFile, to asset: DisposableClient.LibraryAsset
    ) async throws -> DisposableClient.LibraryAsset {
        guard let motion = file.motion, asset.urls.video == nil, asset.trashedAt == nil else { return asset }
        do {
            return try await client.attachVideo(to: asset.id, file: motion)
        } catch let problem as DisposableProblem where problem.status == 409 {
            return asset  // attached meanwhile
        }
    }

    mutating func settle(_ path: String, _ file: LocalFile, _ sent: Sent, _ state: inout SyncState) {
        let entry = { (id: String) in SyncState.Entry(assetId: id, sha256: file.sha256, size: file.size, modified: file.modified) }
        switch sent {
        case .refused(let reason):
            record(Action(kind: .skipped, path: path, reason: reason))
            refused[path] = file.sha256
        case .stored(let asset), .existing(let asset):
            if let other = state.path(of: asset.id) {
                record(Action(kind: .skipped, path: path, assetId: asset.id, reason: "the same photo as \(other)"))
                refused[path] = file.sha256
            } else if asset.trashedAt != nil {
                record(Action(kind: .skipped, path: path, assetId: asset.id, reason: "this photo is in the library's trash: restore it there"))
                refused[path] = file.sha256
            } else {
                if case .stored = sent { record(Action(kind: .uploaded, path: path, assetId: asset.id)) }
                state.files[path] = entry(asset.id)
            }
        }
    }
}
