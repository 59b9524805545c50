/// At start: the key given must be the one the stored photos were sealed with (its check value is kept in the
/// database from the first start with a key), and photos once sealed need a key. Wrong bytes are never served.
import DisposableCore
import DisposablePlatform

public func checkStorageKey(_ key: StorageKey?, database: any DatabaseEngine, registrationDefault: Bool = true) async throws {
    let settings = InstanceSettingsRepository(database: Database(database), registrationDefault: registrationDefault)
    let stored = try await settings.storageKeyCheck(candidate: key?.checkValue)
    switch (key, stored) {
    case (let key?, let stored?) where stored != key.checkValue:
        throw ConfigurationError(
            "The storage key in --storage-key-file is not the one this instance's photos were encrypted with. Start with the right key file (the photos cannot be read without it)."
        )
    case (nil, _?):
        throw ConfigurationError(
            "This instance's photos are encrypted at rest: start it with --storage-key-file and the key they were encrypted with.")
    default:
        return
    }
}
