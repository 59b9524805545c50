import ArgumentParser
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableServer
import DisposableWeb
import Foundation

/// `disposable storage encrypt`: photos stored before `--storage-key-file` was set, encrypted in place.
struct Storage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Work on the stored photos.", subcommands: [Encrypt.self])

    struct Encrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Encrypt every photo stored before --storage-key-file was set, in place; stop it any time and run it again to go on.")

        @OptionGroup var instance: InstanceOptions
        @OptionGroup(title: "Storage") var storage: StorageOptions

        func run() async throws {
            var configuration = instance.configuration()
            configuration.storage = try storage.location()
            configuration.storageKey = try storage.key()
            do {
                let done = try await StorageEncryption.encryptAll(configuration.data, logger: instance.logger()) { progress in
                    print(
                        "\(progress.sealed + progress.alreadySealed) of \(progress.total) files: \(progress.sealed) encrypted now, \(progress.alreadySealed) already."
                    )
                }
                print("Done: \(done.total) files encrypted (\(done.sealed) now, \(done.alreadySealed) before).")
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
        }
    }
}
