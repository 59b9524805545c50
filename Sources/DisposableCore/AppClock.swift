import DisposableAPI
import Foundation
import NIOConcurrencyHelpers

/// The time the app runs on; tests inject a `ManualClock` so event status and reveal are deterministic.
public protocol AppClock: Sendable {
    var now: Date { get }
}

/// The wall clock, truncated to milliseconds so that what we store is what we compare.
public struct SystemClock: AppClock {
    public init() {}
    public var now: Date { Date(millisecondsSince1970: Date().millisecondsSince1970) }
}

/// A clock that only moves when told to.
public final class ManualClock: AppClock {
    private let current: NIOLockedValueBox<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = .init(start)
    }

    public var now: Date { current.withLockedValue { $0 } }

    public func advance(by interval: TimeInterval) {
        current.withLockedValue { $0 = Date(millisecondsSince1970: ($0 + interval).millisecondsSince1970) }
    }

    public func set(_ date: Date) {
        current.withLockedValue { $0 = date }
    }
}
