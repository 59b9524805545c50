/// Hands out one of a fixed set of resources at a time; callers wait first-come-first-served when all are taken.
import DisposableCore

package actor ResourcePool<Resource: Sendable> {
    private var idle: [Resource]
    private var waiters: [CheckedContinuation<Resource, Never>] = []

    package init(_ resources: [Resource]) { idle = resources }

    /// Runs `body` with a resource, off the actor: only handing out and taking back are serialised.
    package nonisolated func use<T: Sendable>(_ body: @Sendable (Resource) async throws -> T) async throws -> T {
        let resource = await take()
        do {
            let result = try await body(resource)
            await give(resource)
            return result
        } catch {
            await give(resource)
            throw error
        }
    }

    private func take() async -> Resource {
        if let resource = idle.popLast() { return resource }
        return await withCheckedContinuation { waiters.append($0) }
    }

    private func give(_ resource: Resource) {
        if waiters.isEmpty {
            idle.append(resource)
        } else {
            waiters.removeFirst().resume(returning: resource)
        }
    }
}
