import DisposableCore
import DisposablePlatform
import Foundation

/// One photo the selection may choose.
public struct SelectionCandidate: Sendable, Equatable {
    public let id: String
    public let takenAt: Date
    /// Who took it (an event's guest); nil in a personal library, where one person takes them all.
    public let shooter: String?
    /// Nil when not measured (a photo from before the measure existed): average quality, found duplicate
    /// only by its burst.
    public let signals: PhotoSignals?
    /// Likes or a favourite mark: what people already said they like.
    public let appreciation: Int

    public init(id: String, takenAt: Date, shooter: String? = nil, signals: PhotoSignals?, appreciation: Int = 0) {
        self.id = id
        self.takenAt = takenAt
        self.shooter = shooter
        self.signals = signals
        self.appreciation = appreciation
    }
}

/// Chooses the N best photos of an event or a month (CAP-1, CAP-2): one of each group of near-duplicates
/// (close perceptual hashes, or a burst: one shooter, seconds apart), the sharpest and best exposed of the
/// group, spread over the time span and over shooters.
public enum Selection {
    /// dHash bits that may differ between two copies of one picture (re-encoded, resized, slightly cropped,
    /// brightened); two different scenes differ by ~32.
    public static let duplicateDistance = 12
    /// Photos by one shooter this close in time are one moment: keep one.
    public static let burstWindow: TimeInterval = 3

    /// The `count` best of `candidates`, in time order. With fewer distinct photos than that, all of them,
    /// completed from `fallback` (e.g. earlier favourites) when given.
    public static func choose(_ count: Int, from candidates: [SelectionCandidate], fallback: [SelectionCandidate] = []) -> [SelectionCandidate] {
        guard count > 0 else { return [] }
        let quality = qualities(candidates + fallback)
        var chosen = spread(count, representatives(of: candidates, quality: quality), quality: quality)
        if chosen.count < count {
            let taken = Set(chosen.map(\.id))
            let extra = representatives(of: fallback.filter { !taken.contains($0.id) }, quality: quality).filter { extra in
                !chosen.contains { isDuplicate($0, extra) }
            }
            chosen += extra.sorted { quality[$0.id]! > quality[$1.id]! }.prefix(count - chosen.count)
        }
        return chosen.sorted { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
    }

    /// Whether two photos show the same moment.
    package static func isDuplicate(_ a: SelectionCandidate, _ b: SelectionCandidate) -> Bool {
        if a.shooter == b.shooter && abs(a.takenAt.timeIntervalSince(b.takenAt)) <= burstWindow { return true }
        guard let first = a.signals, let second = b.signals else { return false }
        return first.distance(to: second) <= duplicateDistance
    }

    /// The best photo of each group of duplicates (groups are closed under "is a duplicate of").
    package static func representatives(of candidates: [SelectionCandidate], quality: [String: Double]) -> [SelectionCandidate] {
        let sorted = candidates.sorted { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
        var parent = Array(sorted.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in sorted.indices {
            for j in sorted.indices.dropFirst(i + 1) where isDuplicate(sorted[i], sorted[j]) {
                parent[root(j)] = root(i)
            }
        }
        var best: [Int: SelectionCandidate] = [:]
        for (i, candidate) in sorted.enumerated() {
            let group = root(i)
            if let current = best[group], quality[current.id]! >= quality[candidate.id]! { continue }
            best[group] = candidate
        }
        return best.values.sorted { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
    }

    /// A photo's own worth, about 0 … 1: its sharpness rank among these photos, less its exposure faults, plus
    /// a little for each like.
    package static func qualities(_ candidates: [SelectionCandidate]) -> [String: Double] {
        let ranked = candidates.compactMap { candidate in candidate.signals.map { (candidate.id, $0.sharpness) } }.sorted { $0.1 < $1.1 }
        var rank: [String: Double] = [:]
        for (position, (id, _)) in ranked.enumerated() { rank[id] = ranked.count > 1 ? Double(position) / Double(ranked.count - 1) : 1 }
        var quality: [String: Double] = [:]
        for candidate in candidates {
            let sharp = rank[candidate.id] ?? 0.5
            let exposure = candidate.signals?.exposurePenalty ?? 0
            quality[candidate.id] = 0.6 * sharp - exposure + 0.15 * log2(1 + Double(max(0, candidate.appreciation)))
        }
        return quality
    }

    /// Picks `count` photos one at a time, each the best once photos near an already chosen one in time, and
    /// shooters already chosen, count against it: the recap tells the whole day, and everyone is in it.
    package static func spread(_ count: Int, _ candidates: [SelectionCandidate], quality: [String: Double]) -> [SelectionCandidate] {
        guard candidates.count > count else { return candidates }
        let span = max(1, (candidates.last!.takenAt.timeIntervalSince(candidates.first!.takenAt)))
        let closeness = span / Double(count)
        var chosen: [SelectionCandidate] = []
        var byShooter: [String: Int] = [:]
        var left = candidates
        while chosen.count < count, !left.isEmpty {
            func score(_ candidate: SelectionCandidate) -> Double {
                var score = quality[candidate.id]!
                if let shooter = candidate.shooter { score -= 0.3 * Double(byShooter[shooter, default: 0]) }
                let nearest = chosen.map { abs($0.takenAt.timeIntervalSince(candidate.takenAt)) }.min() ?? .infinity
                if nearest < closeness { score -= 0.4 * (1 - nearest / closeness) }
                return score
            }
            let index = left.indices.max { score(left[$0]) < score(left[$1]) }!
            let pick = left.remove(at: index)
            chosen.append(pick)
            if let shooter = pick.shooter { byShooter[shooter, default: 0] += 1 }
        }
        return chosen
    }
}
