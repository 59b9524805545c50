import Logging
import ServiceLifecycle

/// Runs `work` every `interval` once start-up is done, until shutdown. A failure is logged and the
/// work simply runs again next time. `waitFirst` skips the immediate first run (start-up did it).
package func runPeriodically(
    _ started: StartupGate, logger: Logger, every interval: Duration, waitFirst: Bool = false, what: String,
    _ work: @escaping @Sendable () async throws -> Void
) async {
    await cancelWhenGracefulShutdown {
        await started.wait()
        if waitFirst { try? await Task.sleep(for: interval) }
        while !Task.isCancelled {
            do {
                try await work()
            } catch  where !Task.isCancelled {
                logger.warning("\(what) failed, will retry: \(error)")
            } catch {
                break  // shutting down: the work was cut off, not failed
            }
            try? await Task.sleep(for: interval)
        }
    }
}
