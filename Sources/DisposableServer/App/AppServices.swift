import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableWeb
import Foundation
import Logging

/// The parts of one instance, built once here and handed to the controllers, pages, background services and
/// CLI commands through their initialisers: each of those gets only the services it uses. Each group of features
/// assembles itself from what is below it (`PlatformParts`, then `AccountParts`, `EventParts`, `LibraryParts`,
/// `InstanceParts`); the services are read through the accessors beside this file.
public struct AppServices: Sendable {
    public let configuration: AppConfiguration
    public let database: any DatabaseEngine
    public let clock: any AppClock
    public let logger: Logger
    package let platform: PlatformParts
    package let people: AccountParts
    package let gatherings: EventParts
    package let personal: LibraryParts
    package let instance: InstanceParts

    public init(configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger) throws {
        try self.init(configuration: configuration, database: database, clock: clock, logger: logger, recentReads: RecentReads())
    }

    package init(configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger, recentReads: RecentReads) throws
    {
        self.configuration = configuration
        self.database = database
        self.clock = clock
        self.logger = logger
        platform = try PlatformParts(configuration: configuration, database: database, clock: clock, logger: logger, recentReads: recentReads)
        people = AccountParts(platform)
        gatherings = EventParts(platform, people)
        personal = LibraryParts(platform, people, gatherings)
        instance = try InstanceParts(platform, people, gatherings, personal)
    }
}
