import ArgumentParser
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableServer
import DisposableWeb
import Foundation

/// OPS-5: `disposable backup --to DIR` while the server runs; `disposable restore --from DIR` into a new data folder.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the instance (database, then every photo it lists) into a new folder, while it runs.")

    @OptionGroup var instance: InstanceOptions
    @OptionGroup(title: "Storage") var storage: StorageOptions

    @Option(help: "A new folder for the backup.")
    var to: String

    func run() async throws {
        var configuration = instance.configuration()
        configuration.storage = try storage.location()
        do {
            let summary = try await InstanceBackup.backUp(configuration.data, to: to, logger: instance.logger())
            print("Backed up \(summary.photos) photos (\(summary.files) files, \(summary.bytes) bytes) to \(to).")
            if summary.leftOut > 0 { print("\(summary.leftOut) photos deleted while the backup ran were left out.") }
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup into a new, empty data folder (and the configured storage); then start the server on it.")

    @OptionGroup var instance: InstanceOptions
    @OptionGroup(title: "Storage") var storage: StorageOptions

    @Option(help: "The backup's folder (made by disposable backup).")
    var from: String

    func run() async throws {
        var configuration = instance.configuration()
        configuration.storage = try storage.location()
        do {
            let summary = try await InstanceBackup.restore(from: from, into: configuration.data, logger: instance.logger())
            print("Restored \(summary.photos) photos into \(instance.dataDir).")
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
