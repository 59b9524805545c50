import Foundation
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Choosing photos well (CAP-1, CAP-2): the measures libvips takes at ingest, and the selection built on them.
/// Every picture is a real JPEG made with the `vips` tool and measured by the same renderer uploads go through.
@Suite("Choosing photos well (CAP-1, CAP-2)")
struct SelectionTests {
    /// A photo-like scene: Perlin noise (shapes at several scales, different for each seed) with fine grain.
    static func scene(_ seed: Int, in folder: URL) async throws -> URL {
        let name = { (suffix: String) in folder.appendingPathComponent("\(seed)-\(suffix)").path }
        try await vips(["perlin", name("shapes.v"), "800", "600", "--cell-size", "100", "--seed", String(seed), "--uchar"])
        try await vips(["gaussnoise", name("grain.v"), "800", "600", "--mean", "0", "--sigma", "14", "--seed", String(seed)])
        try await vips(["add", name("shapes.v"), name("grain.v"), name("sum.v")])
        try await vips(["cast", name("sum.v"), name("scene.v"), "uchar"])
        let photo = folder.appendingPathComponent("\(seed).jpg")
        try await vips(["copy", name("scene.v"), photo.path + "[Q=90]"])
        return photo
    }

    /// `photo` changed by one `vips` operation (its arguments after the input and output).
    static func variant(_ photo: URL, _ name: String, _ operation: String, _ arguments: [String] = [], quality: Int = 85) async throws -> URL {
        let output = photo.deletingPathExtension().appendingPathExtension("\(name).jpg")
        if arguments.isEmpty && operation == "copy" {
            try await vips(["copy", photo.path, output.path + "[Q=\(quality)]"])
        } else {
            try await vips([operation, photo.path, output.path + "[Q=\(quality)]"] + arguments)
        }
        return output
    }

    static func vips(_ arguments: [String]) async throws {
        let (status, output) = try await runTool("/usr/bin/vips", arguments)
        guard status == 0 else { throw TestSetupError("vips \(arguments.joined(separator: " ")) failed: \(output)") }
    }

    /// The measures the ingest keeps for this file.
    static func signals(_ photo: URL) async throws -> PhotoSignals {
        try #require(try await VipsImageProcessor().render(photo.path, format: .jpeg).signals)
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("selection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("Copies of a picture hash close, other pictures far; a blurred copy measures less sharp, a burnt one badly exposed")
    func measures() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // setup
        let base = try await Self.scene(1, in: folder)
        let copies = [
            try await Self.variant(base, "requality", "copy", quality: 35),
            try await Self.variant(base, "half", "resize", ["0.5"]),
            try await Self.variant(base, "crop", "crop", ["24", "18", "752", "564"]),
            try await Self.variant(base, "brighter", "linear", ["1", "14", "--uchar"]),
            try await Self.variant(base, "blurred", "gaussblur", ["2.5"]),
        ]
        var others: [URL] = []
        for seed in 2...7 { others.append(try await Self.scene(seed, in: folder)) }
        let burnt = try await Self.variant(base, "burnt", "linear", ["1", "150", "--uchar"])

        // MUT
        let original = try await Self.signals(base)
        var copySignals: [PhotoSignals] = []
        for copy in copies { copySignals.append(try await Self.signals(copy)) }
        var otherSignals: [PhotoSignals] = []
        for other in others { otherSignals.append(try await Self.signals(other)) }

        // validate
        for (copy, signals) in zip(copies, copySignals) {
            #expect(
                signals.distance(to: original) <= Selection.duplicateDistance, "\(copy.lastPathComponent): \(signals.distance(to: original)) bits")
        }
        for (i, first) in ([original] + otherSignals).enumerated() {
            for second in otherSignals.dropFirst(i) {
                #expect(first.distance(to: second) > Selection.duplicateDistance + 4, "two different scenes: \(first.distance(to: second)) bits")
            }
        }
        let blurred = copySignals[4]
        #expect(blurred.sharpness * 3 < original.sharpness, "blurred \(blurred.sharpness), sharp \(original.sharpness)")
        #expect(original.exposurePenalty < 0.05 && original.brightness > 0.3 && original.brightness < 0.7, "\(original)")
        let burntSignals = try await Self.signals(burnt)
        #expect(burntSignals.highlights > 0.3 && burntSignals.exposurePenalty > 0.4, "\(burntSignals)")
    }

    @Test("The selection keeps one of each group of copies and each burst, the sharp one over a blurred copy, and fills from favourites")
    func selection() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // setup: a wedding day from 14:00, a photo every ten minutes, shooters taking turns
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        var candidates: [SelectionCandidate] = []
        func add(_ id: String, _ photo: URL, minute: Double, shooter: String) async throws {
            candidates.append(
                SelectionCandidate(id: id, takenAt: start + minute * 60, shooter: shooter, signals: try await Self.signals(photo)))
        }
        let vows = try await Self.scene(11, in: folder)
        try await add("vows-blurred", try await Self.variant(vows, "blurred", "gaussblur", ["2.5"]), minute: 0, shooter: "ana")
        try await add("vows", vows, minute: 10, shooter: "ben")
        try await add("vows-small", try await Self.variant(vows, "half", "resize", ["0.5"]), minute: 20, shooter: "cleo")
        try await add("vows-cropped", try await Self.variant(vows, "crop", "crop", ["24", "18", "752", "564"]), minute: 30, shooter: "ana")
        let cake = try await Self.scene(12, in: folder)
        try await add("cake", cake, minute: 60, shooter: "ben")
        try await add("cake-again", try await Self.variant(cake, "requality", "copy", quality: 40), minute: 70, shooter: "dora")
        try await add("cake-brighter", try await Self.variant(cake, "brighter", "linear", ["1", "14", "--uchar"]), minute: 80, shooter: "cleo")
        // a burst: three different frames by one shooter within two seconds
        for (i, seed) in [13, 14, 15].enumerated() {
            candidates.append(
                SelectionCandidate(
                    id: "burst-\(i)", takenAt: start + 120 * 60 + Double(i), shooter: "dora",
                    signals: try await Self.signals(try await Self.scene(seed, in: folder))))
        }
        try await add("dance", try await Self.scene(16, in: folder), minute: 180, shooter: "ana")
        try await add("toast", try await Self.scene(17, in: folder), minute: 240, shooter: "ben")
        let favourite = SelectionCandidate(
            id: "last-year", takenAt: start - 86_400 * 365, signals: try await Self.signals(try await Self.scene(18, in: folder)), appreciation: 3)

        // MUT
        let chosen = Selection.choose(10, from: candidates.shuffled())
        let filled = Selection.choose(10, from: candidates, fallback: [favourite])
        let three = Selection.choose(3, from: candidates)

        // validate: one per group (vows, cake, burst) and the two singles — five, in time order
        let ids = chosen.map(\.id)
        #expect(ids.count == 5, "\(ids)")
        #expect(ids.filter { $0.hasPrefix("vows") }.count == 1 && !ids.contains("vows-blurred"), "\(ids)")
        #expect(ids.filter { $0.hasPrefix("cake") }.count == 1, "\(ids)")
        #expect(ids.filter { $0.hasPrefix("burst") }.count == 1, "\(ids)")
        #expect(ids.contains("dance") && ids.contains("toast"), "\(ids)")
        #expect(chosen.map(\.takenAt) == chosen.map(\.takenAt).sorted())
        // too few photos: the favourite completes them
        #expect(filled.count == 6 && filled.first?.id == "last-year", "\(filled.map(\.id))")
        // fewer than there are: spread over the day and over shooters, never two copies
        #expect(three.count == 3 && Set(three.compactMap(\.shooter)).count == 3, "\(three.map(\.id))")
        let span = three.last!.takenAt.timeIntervalSince(three.first!.takenAt)
        #expect(span >= 3 * 3600, "three photos over \(span / 3600) hours of a four-hour day: \(three.map(\.id))")
        for (i, first) in three.enumerated() { for second in three.dropFirst(i + 1) { #expect(!Selection.isDuplicate(first, second)) } }
        // nothing asked, nothing given; a sharp photo beats its blurred copy whatever the order
        #expect(Selection.choose(0, from: candidates).isEmpty)
        let pair = candidates.filter { $0.id == "vows" || $0.id == "vows-blurred" }
        #expect(Selection.choose(1, from: pair).map(\.id) == ["vows"])
        #expect(Selection.choose(1, from: pair.reversed()).map(\.id) == ["vows"])
    }

    @Test("Measured at ingest: a guest's photo and a library photo keep their measures", arguments: TestEngine.allCases)
    func keptAtIngest(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup
            let f = try await UploadTests.fixture(app)
            let owner = try await app.userToken()
            // MUT
            let uploaded = try await app.upload(try await TestImages.jpeg(width: 900, height: 600), event: f.event, token: f.guest)
            let photo = try #require(uploaded.string("id"))
            #expect(try await app.waitUntilProcessed(photo, token: f.guest).string("status") == "ready")
            let asset = try #require(try await app.uploadToLibrary(try await TestImages.jpeg(width: 700, height: 500), token: owner).string("id"))
            #expect(try await app.waitUntilAssetProcessed(asset, token: owner).string("status") == "ready")
            // validate: noise is sharp, mid-grey, and nothing is clipped
            for (table, id) in [("photos", photo), ("library_assets", asset)] {
                let stored = try await app.services.database.sql { db in
                    try await db.raw("SELECT signals FROM \(unsafeRaw: table) WHERE id = \(bind: id)").first()?.decode(
                        column: "signals", as: String?.self)
                }
                let signals = try #require(PhotoSignals(stored: stored), "\(table): \(stored ?? "nothing")")
                #expect(signals.sharpness > 100 && abs(signals.brightness - 0.5) < 0.1 && signals.exposurePenalty == 0, "\(table): \(signals)")
            }
        }
    }
}
