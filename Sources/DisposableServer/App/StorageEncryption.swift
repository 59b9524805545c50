import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableWeb
import Foundation
import Logging

/// `disposable storage encrypt`: seals every blob written before encryption was turned on, one at a time, each
/// replaced whole (a rename in the folder, one PUT in a bucket) — so it can be stopped at any moment and run again,
/// skipping what is sealed already.
public enum StorageEncryption {
    public struct Progress: Sendable {
        public var total = 0
        public var sealed = 0
        public var alreadySealed = 0
    }

    public static func encryptAll(
        _ data: InstanceData, logger: Logger, report: @Sendable (Progress) -> Void
    ) async throws -> Progress {
        guard let key = data.storageKey else { throw ConfigurationError("Give the key to encrypt with: --storage-key-file.") }
        try await withDatabase(data.database, logger: logger) { database in
            try await migrateDatabase(database, logger: logger)
            try await checkStorageKey(key, database: database)
        }
        let stored = try makeStoredBlobStore(data)
        let sealing = SealedBlobStore(inner: stored, storageKey: key)
        var keys: [String] = []
        while true {
            let page = try await stored.list(prefix: "", after: keys.last, limit: 1000)
            keys += page
            if page.count < 1000 { break }
        }
        var progress = Progress(total: keys.count)
        let scratch = data.stagingDirectory
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for blobKey in keys {
            switch try await sealing.isSealed(key: blobKey) {
            case nil: continue  // deleted meanwhile
            case true?: progress.alreadySealed += 1
            case false?:
                try await stored.withLocalFile(key: blobKey) { path in
                    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
                    let sealed = scratch.appendingPathComponent("sealing-\(UUID().uuidString)")
                    defer { unlink(sealed.path) }
                    let (digest, sealedSize) = try await sealing.seal(file: URL(fileURLWithPath: path), size: size, key: blobKey, into: sealed)
                    try await stored.put(file: sealed, key: blobKey, sha256: digest, size: sealedSize)
                }
                progress.sealed += 1
            }
            if (progress.sealed + progress.alreadySealed) % 100 == 0 { report(progress) }
        }
        report(progress)
        return progress
    }
}
