import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import Logging

/// CAP-2: the monthly capsule — last month of one's library in a few photos, chosen by `Selection`, released at the
/// start of the month where the owner lives, with a notice; then theirs to edit (photos, how many, their words, a
/// song) and to share as a collage. Only the owner ever sees it.
package struct CapsuleService: Sendable {
    let rows: CapsuleRepository
    package let profiles: ProfileService
    package let collages: Collage
    /// Song clips come in as every file does (`IngestPolicy.songClip`).
    package let ingest: Ingest
    /// The month's most played track, where the owner linked a scrobbler.
    package let songs: ScrobblerService
    /// Wakes the notification streams when a capsule is out.
    package let bell: StreamWaker
    package let clock: any AppClock
    package let logger: Logger

    init(
        rows: CapsuleRepository, profiles: ProfileService, collages: Collage, ingest: Ingest, songs: ScrobblerService, bell: StreamWaker,
        clock: any AppClock, logger: Logger
    ) {
        self.rows = rows
        self.profiles = profiles
        self.collages = collages
        self.ingest = ingest
        self.songs = songs
        self.bell = bell
        self.clock = clock
        self.logger = logger
    }

    package static let defaultCount = 9
    package static let counts = 1...24
    package static let maxQuote = 280
    package static let maxSongField = 100
    /// A library still receiving photos of the month (an import) gets its capsule this long after the last one.
    package static let settling: TimeInterval = 60
    /// Time zones run from UTC−12 to UTC+14: no one's month has ended before UTC's by more than this.
    package static let furthestAhead: TimeInterval = 14 * 3600

    // MARK: Release

    /// Releases every capsule whose month is over where its owner lives (idempotent: each is made once, by one
    /// instance, in one transaction with its notice — a crash before the commit leaves it to the next run). A month
    /// with no photo yet is looked at again while it is last month: photos imported later in the month still make one.
    package func releaseDue() async throws {
        let now = clock.now
        let latest = CapsuleMonth(containing: now + Self.furthestAhead, in: .gmt).previous
        for (userID, zoneName, decided) in try await rows.undecided(upTo: latest) {
            let zone = zoneName.flatMap(TimeZone.init(identifier:)) ?? .gmt
            let due = CapsuleMonth(containing: now, in: zone).previous
            guard decided.map({ $0 < due }) ?? true else { continue }
            if try await release(due, userID: userID, zone: zone, now: now) {
                logger.info("Released the capsule of \(due.text)", metadata: ["user": "\(userID)"])
            }
        }
    }

    /// Makes `month`'s capsule for one account once its photos of that month have arrived — all developed, none sent in
    /// the last `settling` — and nothing while it has neither photos nor moments. Says whether a capsule was made.
    package func release(_ month: CapsuleMonth, userID: String, zone: TimeZone, now: Date) async throws -> Bool {
        // Looked at on a reader first: most ticks find the photos still arriving, and take no write lock for it.
        guard try await rows.isReady(month, userID: userID, zone: zone, settledSince: now - Self.settling) else { return false }
        // Asked before the transaction: a scrobbler far away never holds the database.
        let song = await songs.song(of: userID, in: month)
        let made = try await rows.release(
            month, userID: userID, zone: zone, settledSince: now - Self.settling, count: Self.defaultCount, song: song, now: now)
        if made { await bell.changed(NotificationService.anyone) }
        return made
    }

    // MARK: Read

    /// The history, newest first, and when the next one comes.
    package func list(for user: User) async throws -> CapsuleList {
        let zone = try await zone(of: user)
        var items: [CapsuleJSON] = []
        for capsule in try await rows.all(userID: user.id) { items.append(try await json(capsule)) }
        return CapsuleList(items: items, nextCapsuleAt: Self.nextRelease(after: clock.now, in: zone), timeZone: zone.identifier)
    }

    /// Midnight on the first of next month where the owner lives.
    package func nextCapsuleAt(for user: User) async throws -> Date {
        Self.nextRelease(after: clock.now, in: try await zone(of: user))
    }

    /// Last month where the owner lives: the capsule that may go on the Story Board.
    package func lastMonth(for user: User) async throws -> CapsuleMonth {
        CapsuleMonth(containing: clock.now, in: try await zone(of: user)).previous
    }

    package static func nextRelease(after now: Date, in zone: TimeZone) -> Date { CapsuleMonth(containing: now, in: zone).next.start(in: zone) }

    package func capsule(_ month: String, for user: User) async throws -> CapsuleJSON {
        try await json(try await find(month, for: user))
    }

    /// The month's photos the owner may put in it instead (the page's "replace").
    package func candidates(_ month: String, for user: User) async throws -> [LibraryAssetJSON] {
        let capsule = try await find(month, for: user)
        return try await rows.choices(userID: user.id, month: capsule.month).map(\.asset.json)
    }

    /// Links the person's scrobbler; their capsules that came out before without a song (the latest twelve) get
    /// their month's now, as they would have had it linked then.
    package func linkScrobbler(_ input: ScrobblerInput, for user: User) async throws -> ScrobblerJSON {
        let linked = try await songs.link(input, for: user)
        for var capsule in try await rows.all(userID: user.id).filter({ $0.songTitle == nil }).prefix(12) {
            guard let song = await songs.song(of: user.id, in: capsule.month) else { continue }
            (capsule.songTitle, capsule.songArtist, capsule.updatedAt) = (song.title, song.artist, clock.now)
            try await rows.update(capsule)
        }
        return linked
    }

    // MARK: Edit

    package func edit(_ month: String, _ patch: CapsulePatch, for user: User) async throws -> CapsuleJSON {
        var capsule = try await find(month, for: user)
        if let quote = patch.quote { capsule.quote = try Self.text(quote, field: "quote", max: Self.maxQuote) }
        if let title = patch.songTitle {
            capsule.songTitle = try Self.text(title, field: "songTitle", max: Self.maxSongField)
            if capsule.songTitle == nil { capsule.songArtist = nil }
        }
        if let artist = patch.songArtist { capsule.songArtist = try Self.text(artist, field: "songArtist", max: Self.maxSongField) }
        if capsule.songArtist != nil && capsule.songTitle == nil {
            throw Problem.invalidField("songTitle", "A song needs its title (the artist alone is not enough).")
        }
        if patch.photos != nil || patch.count != nil {
            capsule.assetIDs = try await choose(patch, in: capsule)
        }
        capsule.updatedAt = clock.now
        try await rows.update(capsule)
        return try await json(capsule)
    }

    /// The photos an edit asks for: exactly the ones sent (each of that month, once), or as many as asked — those
    /// kept stay, the selection adds the best of the rest or takes away the least good.
    private func choose(_ patch: CapsulePatch, in capsule: Capsule) async throws -> [String] {
        if let count = patch.count, !Self.counts.contains(count) {
            throw Problem.invalidField("count", "count must be a whole number from \(Self.counts.lowerBound) to \(Self.counts.upperBound).")
        }
        let candidates = try await rows.choices(userID: capsule.userID, month: capsule.month)
        let byID = Dictionary(candidates.map { ($0.asset.id, $0) }, uniquingKeysWith: { first, _ in first })
        var kept = capsule.assetIDs.filter { byID[$0] != nil }
        if let photos = patch.photos {
            guard Self.counts.contains(photos.count), Set(photos).count == photos.count else {
                throw Problem.invalidField("photos", "photos is a list of 1 to \(Self.counts.upperBound) different photos.")
            }
            guard photos.allSatisfy({ byID[$0] != nil }) else {
                throw Problem.invalidField(
                    "photos", "Each photo must be one of yours from \(capsule.month.text) (or that month in an earlier year), in your library.")
            }
            kept = photos
        }
        guard let count = patch.count, count != kept.count else { return Self.inTimeOrder(kept, byID) }
        let keptCandidates = kept.compactMap { byID[$0]?.selection }
        if count < kept.count { return Selection.choose(count, from: keptCandidates).map(\.id) }
        let others = candidates.map(\.selection).filter { other in
            !kept.contains(other.id) && !keptCandidates.contains { Selection.isDuplicate($0, other) }
        }
        return Self.inTimeOrder(kept + Selection.choose(count - kept.count, from: others).map(\.id), byID)
    }

    private static func inTimeOrder(_ ids: [String], _ byID: [String: CapsuleRepository.Candidate]) -> [String] {
        ids.sorted { (byID[$0]!.asset.takenAt, $0) < (byID[$1]!.asset.takenAt, $1) }
    }

    // MARK: Share

    /// The collage of the capsule's photos (JPEG), titled with the month in the reader's words and the owner's quote.
    package func collage(_ month: String, for user: User, title: (CapsuleMonth) -> String, defaultQuote: (CapsuleMonth) -> String) async throws -> (
        Data, etag: String
    ) {
        let capsule = try await find(month, for: user)
        let assets = try await rows.assets(capsule.assetIDs, userID: user.id)
        guard
            let made = try await collages.image(
                previews: assets.map(\.files.preview), title: title(capsule.month),
                subtitle: capsule.quote ?? capsule.songLine ?? defaultQuote(capsule.month),
                folder: capsule.folder)
        else { throw Problem.notFound("This capsule has no photos left.") }
        return (made.0, made.fingerprint)
    }

    // MARK: The song's clip

    /// Makes the song's clip from the sound file sent (its first 30 seconds) and keeps it with the capsule.
    package func setClip(_ month: String, body: RequestBody, for user: User) async throws -> CapsuleJSON {
        let capsule = try await find(month, for: user)
        guard ingest.videos != nil else { throw Problem.soundsUnavailable }
        let staged = try await ingest.stage(body, declaredLength: nil, under: .songClip)
        defer { staged.discard() }
        let sound = try await ingest.identifySound(staged)
        let scratch = ingest.staging.directory.appendingPathComponent("clip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await sound.make(from: staged.file.path, into: scratch)
        try await collages.blobs.put(data: try Data(contentsOf: clip), key: capsule.clipKey)
        try await rows.setClip(capsule, version: (capsule.clipVersion ?? 0) + 1)
        return try await self.capsule(month, for: user)
    }

    package func removeClip(_ month: String, for user: User) async throws {
        let capsule = try await find(month, for: user)
        try await rows.setClip(capsule, version: nil)
        try await collages.blobs.delete(key: capsule.clipKey)
    }

    /// The clip's bytes (AAC in M4A), or 404.
    package func clip(of capsule: Capsule) async throws -> ByteBuffer {
        guard capsule.clipVersion != nil, let bytes = try await collages.blobs.contents(key: capsule.clipKey) else {
            throw Problem.notFound("This capsule has no song clip.")
        }
        return bytes
    }

    // MARK: Helpers

    package func find(_ month: String, for user: User) async throws -> Capsule {
        guard let month = CapsuleMonth(month), let capsule = try await rows.find(userID: user.id, month: month) else {
            throw Problem.notFound("You have no capsule for this month.")
        }
        return capsule
    }

    private func json(_ capsule: Capsule) async throws -> CapsuleJSON {
        let assets = try await rows.assets(capsule.assetIDs, userID: capsule.userID)
        let zone = try await profiles.timeZone(of: capsule.userID).flatMap(TimeZone.init(identifier:)) ?? .gmt
        let moments = try await rows.moments(userID: capsule.userID, month: capsule.month, zone: zone)
        return CapsuleJSON(
            month: capsule.month.text, releasedAt: capsule.releasedAt, updatedAt: capsule.updatedAt, photos: assets.map(\.json),
            quote: capsule.quote, song: capsule.songTitle.map { .init(title: $0, artist: capsule.songArtist) },
            collageURL: assets.isEmpty ? nil : "/api/v1/library/capsules/\(capsule.month.text)/collage.jpg", sharedAt: capsule.sharedAt,
            clipURL: capsule.clipVersion.map { "/api/v1/library/capsules/\(capsule.month.text)/clip.m4a?v=\($0)" },
            moments: moments.isEmpty ? nil : moments)
    }

    package func zone(of user: User) async throws -> TimeZone {
        try await profiles.timeZone(of: user.id).flatMap(TimeZone.init(identifier:)) ?? .gmt
    }

    /// One line of the owner's words: trimmed, nil when empty, no control or direction-changing characters.
    package static func text(_ raw: String, field: String, max: Int) throws -> String? {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        guard text.count <= max else { throw Problem.invalidField(field, "\(field) is at most \(max) characters.") }
        guard !text.unicodeScalars.contains(where: { MomentService.refused($0) || $0 == "\n" }) else {
            throw Problem.invalidField(field, "\(field) is one line, without control or direction-changing characters.")
        }
        return text
    }
}
