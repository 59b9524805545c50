import DisposableCore
import DisposablePlatform

extension AccountService {
    /// The accounts of the configured instance (the server, and `disposable admin create`).
    public init(database: any DatabaseEngine, clock: any AppClock, configuration: AppConfiguration) {
        self.init(rows: Database(database), transactions: Transactions(database), clock: clock, configuration: configuration)
    }

    package init(rows: Database, transactions: Transactions, clock: any AppClock, configuration: AppConfiguration) {
        let limits = configuration.limits
        self.init(
            transactions: transactions, users: UserRepository(database: rows),
            tokens: AccessTokenRepository(database: rows, clock: clock, lifetime: configuration.sessionLifetime),
            settings: InstanceSettingsRepository(database: rows, registrationDefault: configuration.registrationEnabledByDefault),
            clock: clock, passwordHashCost: configuration.passwordHashCost,
            loginLimits: [.pair: limits.login, .address: limits.loginPerAddress, .target: limits.loginPerAccount, .floor: limits.loginFloor],
            registrationLimit: limits.registration)
    }
}
