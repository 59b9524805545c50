import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableServer
import DisposableWeb
import Logging

/// What only the test suites set, read from the environment by `serve`: never options, so `serve --help` offers
/// none of them; each says so in the log when set.
enum TestSwitches {
    static func apply(to configuration: inout AppConfiguration, logger: Logger) {
        // The tests' push service, scrobbler and provider listen on this machine.
        if env("DISPOSABLE_TEST_OUTBOUND_LOOPBACK") == "1" {
            configuration.outboundAllowsLoopback = true
            logger.warning("DISPOSABLE_TEST_OUTBOUND_LOOPBACK is set: outbound calls may reach this machine (tests only).")
        }
        if let delay = env("DISPOSABLE_TEST_FIRST_LOOK_RENDER_DELAY").flatMap(Double.init), (0...600).contains(delay) {
            configuration.firstLookRenderDelay = delay
            logger.warning("DISPOSABLE_TEST_FIRST_LOOK_RENDER_DELAY is set: first looks stay \(delay) s before the server's renders (tests only).")
        }
        // The test servers sign up and in hundreds of times, each a bcrypt at cost 12 in a debug build.
        if let cost = env("DISPOSABLE_TEST_PASSWORD_HASH_COST").flatMap(UInt8.init), (4...12).contains(cost) {
            configuration.passwordHashCost = cost
            logger.warning("DISPOSABLE_TEST_PASSWORD_HASH_COST is set: passwords are hashed at cost \(cost) (tests only).")
        }
    }
}
