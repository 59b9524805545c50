import Foundation

/// CAP-3: a moment — a short dated note of one's own.
public struct MomentJSON: Codable, Sendable, Equatable {
    public var id: String
    public var text: String
    public var createdAt: Date

    public init(id: String, text: String, createdAt: Date) {
        self.id = id
        self.text = text
        self.createdAt = createdAt
    }
}

public struct MomentInput: Codable, Sendable {
    public var text: String

    public init(text: String) { self.text = text }
}

/// One year of moments, newest first, counted in the owner's time zone.
public struct MomentPage: Codable, Sendable, Equatable {
    public var year: Int
    public var count: Int
    public var items: [MomentJSON]
    /// The years with moments, and this year, newest first: where the years' links lead (no empty year between).
    public var years: [Int]

    public init(year: Int, count: Int, items: [MomentJSON], years: [Int]) {
        self.year = year
        self.count = count
        self.items = items
        self.years = years
    }
}

/// The yearly recap of moments: all of them, oldest first, with a count per month; `ready` once the year is over
/// in the owner's time zone.
public struct MomentsRecapJSON: Codable, Sendable, Equatable {
    public struct Month: Codable, Sendable, Equatable {
        /// `yyyy-mm`.
        public var month: String
        public var count: Int

        public init(month: String, count: Int) {
            self.month = month
            self.count = count
        }
    }

    public var year: Int
    public var ready: Bool
    public var count: Int
    public var months: [Month]
    public var moments: [MomentJSON]

    public init(year: Int, ready: Bool, count: Int, months: [Month], moments: [MomentJSON]) {
        self.year = year
        self.ready = ready
        self.count = count
        self.months = months
        self.moments = moments
    }
}
