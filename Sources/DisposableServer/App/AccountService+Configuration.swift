import DisposableCore
import DisposablePlatform

extension AccountService {
    /// The accounts of the configured instance (the server, and `disposable admin create`).
    public init(database: any DatabaseEngine, clock: any AppClock, configuration: AppConfiguration) {
        let limits = configuration.limits
        self.init(
            transactions: Transactions(database), users: UserRepository(database: Database(database)),
            tokens: AccessTokenRepository(database: Database(database), clock: clock, lifetime: configuration.sessionLifetime),
            settings: InstanceSettingsRepository(database: Database(database), registrationDefault: configuration.registrationEnabledByDefault),
            clock: clock, passwordHashCost: configuration.passwordHashCost,
            loginLimits: [.pair: limits.login, .address: limits.loginPerAddress, .target: limits.loginPerAccount, .floor: limits.loginFloor],
            registrationLimit: limits.registration)
    }
}
