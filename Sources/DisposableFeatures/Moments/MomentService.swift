import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// CAP-3: moments — short dated notes of one's own — by year in the owner's time zone, and the year's recap once
/// that year is over there. Accounts only; nobody else ever sees them.
package struct MomentService: Sendable {
    let rows: MomentRepository
    package let clock: any AppClock
    package let limiter: RateLimiter
    package let profiles: ProfileService

    init(rows: MomentRepository, clock: any AppClock, limiter: RateLimiter, profiles: ProfileService) {
        self.rows = rows
        self.clock = clock
        self.limiter = limiter
        self.profiles = profiles
    }

    package static let maxLength = 280
    /// A lifetime of days, several a day: a bound, not a quota anyone meets.
    package static let maxPerUser = 20_000

    package func add(_ raw: String, for user: User) async throws -> MomentJSON {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= Self.maxLength else {
            throw Problem.invalidField("text", "A moment is 1 to \(Self.maxLength) characters.")
        }
        guard !text.unicodeScalars.contains(where: { Self.refused($0) }) else {
            throw Problem.invalidField("text", "A moment cannot hold control or direction-changing characters.")
        }
        _ = try await limiter.take([.init(scope: .target, value: user.id)])
        let moment = MomentJSON(id: newID(), text: text, createdAt: clock.now)
        let (inserted, count) = try await rows.insert(moment, userID: user.id, limit: Self.maxPerUser)
        guard inserted else {
            throw Problem(.conflict, "too-many-moments", title: "Too many moments", detail: "You have \(count) moments: delete some first.")
        }
        return moment
    }

    package func delete(_ id: String, for user: User) async throws {
        let removed = try await rows.delete(id, userID: user.id)
        guard removed else { throw Problem.notFound("There is no such moment of yours.") }
    }

    /// A year's moments, newest first (this year, where the owner is, when none is asked).
    package func page(year: Int?, for user: User) async throws -> MomentPage {
        let zone = try await timeZone(of: user)
        let calendar = calendar(zone)
        let thisYear = calendar.component(.year, from: clock.now)
        let year = year ?? thisYear
        let moments = try await inYear(year, zone: zone, user: user)
        // Zones are whole quarter hours from UTC, so the quarter hour a moment was written in places it in its year.
        let written = try await rows.quarterHours(userID: user.id).map { Date(timeIntervalSince1970: TimeInterval($0) * 900) }
        let years = Set(written.map { calendar.component(.year, from: $0) }).union([thisYear])
        return MomentPage(year: year, count: moments.count, items: moments.reversed(), years: years.sorted(by: >))
    }

    package func recap(year: Int, for user: User) async throws -> MomentsRecapJSON {
        let zone = try await timeZone(of: user)
        let moments = try await inYear(year, zone: zone, user: user)
        let calendar = calendar(zone)
        var perMonth: [Int: Int] = [:]
        for moment in moments { perMonth[calendar.component(.month, from: moment.createdAt), default: 0] += 1 }
        return MomentsRecapJSON(
            year: year, ready: clock.now >= Self.start(of: year + 1, in: calendar), count: moments.count,
            months: perMonth.keys.sorted().map { .init(month: String(format: "%04d-%02d", year, $0), count: perMonth[$0]!) },
            moments: moments)
    }

    /// Once a year is over where its owner lives, tells them its moments' recap is ready — once, by whichever instance
    /// gets there first, in the transaction that marks it told. A year without moments is marked without a notice.
    package func announceYearsDue(bell: StreamWaker) async throws {
        let now = clock.now
        let latest = calendar(.gmt).component(.year, from: now + CapsuleService.furthestAhead) - 1
        let accounts = try await rows.accountsToTell(upTo: latest)
        for account in accounts {
            let calendar = calendar(account.zone.flatMap(TimeZone.init(identifier:)) ?? .gmt)
            let year = calendar.component(.year, from: now) - 1
            guard account.told.map({ $0 < year }) ?? true else { continue }
            let (from, to) = (Self.start(of: year, in: calendar), Self.start(of: year + 1, in: calendar))
            let told = try await rows.tellRecap(year: year, from: from, to: to, userID: account.id, now: now)
            if told { await bell.changed(NotificationService.anyone) }
        }
    }

    /// The user's zone (set with `PATCH /api/v1/me`), UTC until they say.
    package func timeZone(of user: User) async throws -> TimeZone {
        try await profiles.timeZone(of: user.id).flatMap(TimeZone.init(identifier:)) ?? .gmt
    }

    private func inYear(_ year: Int, zone: TimeZone, user: User) async throws -> [MomentJSON] {
        guard (1970...9999).contains(year) else { throw Problem.invalidField("year", "year must be a year from 1970 to 9999.") }
        let calendar = calendar(zone)
        let (from, to) = (Self.start(of: year, in: calendar), Self.start(of: year + 1, in: calendar))
        return try await rows.between(from, to, userID: user.id)
    }

    private func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    package static func start(of year: Int, in calendar: Calendar) -> Date {
        calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
    }

    /// Control characters and bidirectional overrides: a note shows as written, never reorders the page.
    package static func refused(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.properties.generalCategory == .control && scalar != "\n") || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}
