import DisposableAPI
import Foundation
import SQLKit

/// CAP-3: moments — short dated notes of one's own — by year in the owner's time zone, and the year's recap once
/// that year is over there. Accounts only; nobody else ever sees them.
struct MomentService: Sendable {
    let database: any DatabaseEngine
    let clock: any AppClock
    let limiter: RateLimiter
    let profiles: ProfileService

    static let maxLength = 280
    /// A lifetime of days, several a day: a bound, not a quota anyone meets.
    static let maxPerUser = 20_000

    func add(_ raw: String, for user: User) async throws -> MomentJSON {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= Self.maxLength else {
            throw Problem.invalidField("text", "A moment is 1 to \(Self.maxLength) characters.")
        }
        guard !text.unicodeScalars.contains(where: { Self.refused($0) }) else {
            throw Problem.invalidField("text", "A moment cannot hold control or direction-changing characters.")
        }
        _ = try await limiter.take([.init(scope: .target, value: user.id)])
        let moment = MomentJSON(id: newID(), text: text, createdAt: clock.now)
        try await database.transaction { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM moments WHERE user_id = \(bind: user.id)").first()!.decode(
                column: "n", as: Int.self)
            guard count < Self.maxPerUser else {
                throw Problem(.conflict, "too-many-moments", title: "Too many moments", detail: "You have \(count) moments: delete some first.")
            }
            try await db.raw(
                """
                INSERT INTO moments (id, user_id, text, created_at)
                VALUES (\(bind: moment.id), \(bind: user.id), \(bind: text), \(bind: moment.createdAt.millisecondsSince1970))
                """
            ).run()
        }
        return moment
    }

    func delete(_ id: String, for user: User) async throws {
        let removed = try await database.sql { db in
            try await db.raw("DELETE FROM moments WHERE id = \(bind: id) AND user_id = \(bind: user.id) RETURNING id").first() != nil
        }
        guard removed else { throw Problem.notFound("There is no such moment of yours.") }
    }

    /// A year's moments, newest first (this year, where the owner is, when none is asked).
    func page(year: Int?, for user: User) async throws -> MomentPage {
        let zone = try await timeZone(of: user)
        let year = year ?? calendar(zone).component(.year, from: clock.now)
        let moments = try await inYear(year, zone: zone, user: user)
        return MomentPage(year: year, count: moments.count, items: moments.reversed())
    }

    func recap(year: Int, for user: User) async throws -> MomentsRecapJSON {
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
    func announceYearsDue(bell: StreamWaker) async throws {
        let now = clock.now
        let latest = calendar(.gmt).component(.year, from: now + CapsuleService.furthestAhead) - 1
        let accounts = try await database.read { db in
            try await db.raw(
                """
                SELECT id, time_zone, moments_recap_year FROM users
                WHERE (moments_recap_year IS NULL OR moments_recap_year < \(bind: latest))
                  AND EXISTS (SELECT 1 FROM moments WHERE moments.user_id = users.id)
                """
            ).all().map {
                (
                    id: try $0.decode(column: "id", as: String.self), zone: try $0.decode(column: "time_zone", as: String?.self),
                    told: try $0.decode(column: "moments_recap_year", as: Int?.self)
                )
            }
        }
        for account in accounts {
            let calendar = calendar(account.zone.flatMap(TimeZone.init(identifier:)) ?? .gmt)
            let year = calendar.component(.year, from: now) - 1
            guard account.told.map({ $0 < year }) ?? true else { continue }
            let (from, to) = (Self.start(of: year, in: calendar), Self.start(of: year + 1, in: calendar))
            let told = try await database.transaction { db in
                guard
                    try await db.raw(
                        """
                        UPDATE users SET moments_recap_year = \(bind: year)
                        WHERE id = \(bind: account.id) AND (moments_recap_year IS NULL OR moments_recap_year < \(bind: year)) RETURNING id
                        """
                    ).first() != nil,
                    try await db.raw(
                        """
                        SELECT 1 AS one FROM moments WHERE user_id = \(bind: account.id)
                          AND created_at >= \(bind: from.millisecondsSince1970) AND created_at < \(bind: to.millisecondsSince1970) LIMIT 1
                        """
                    ).first() != nil
                else { return false }
                try await NotificationRepository.toAccount(.momentsRecap, userID: account.id, period: String(year), now: now, in: db)
                return true
            }
            if told { await bell.changed(NotificationService.anyone) }
        }
    }

    /// The user's zone (set with `PATCH /api/v1/me`), UTC until they say.
    func timeZone(of user: User) async throws -> TimeZone {
        try await profiles.timeZone(of: user.id).flatMap(TimeZone.init(identifier:)) ?? .gmt
    }

    private func inYear(_ year: Int, zone: TimeZone, user: User) async throws -> [MomentJSON] {
        guard (1970...9999).contains(year) else { throw Problem.invalidField("year", "year must be a year from 1970 to 9999.") }
        let calendar = calendar(zone)
        let (from, to) = (Self.start(of: year, in: calendar), Self.start(of: year + 1, in: calendar))
        return try await database.read { db in
            try await db.raw(
                """
                SELECT id, text, created_at FROM moments
                WHERE user_id = \(bind: user.id) AND created_at >= \(bind: from.millisecondsSince1970) AND created_at < \(bind: to.millisecondsSince1970)
                ORDER BY created_at, id
                """
            ).all().map(Self.moment(from:))
        }
    }

    /// A `moments` row as the API shows it (also read by the data export).
    static func moment(from row: any SQLRow) throws -> MomentJSON {
        MomentJSON(
            id: try row.decode(column: "id", as: String.self), text: try row.decode(column: "text", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
    }

    private func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    static func start(of year: Int, in calendar: Calendar) -> Date {
        calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
    }

    /// Control characters and bidirectional overrides: a note shows as written, never reorders the page.
    static func refused(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.properties.generalCategory == .control && scalar != "\n") || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}
