import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Rules that are pure Swift, checked in milliseconds without a server; the end-to-end suites check them again
/// through HTTP, where people meet them.
@Suite("Rules, without a server")
struct RuleTests {
    @Test("The film: a guest with shots left may shoot; with none, the refusal says how many there were")
    func shotLimit() throws {
        let guest = { (used: Int) in
            Guest(id: "g", eventID: "e", userID: nil, name: "Ben", joinedAt: Date(), leftAt: nil, shotsUsed: used)
        }
        try ShotLimit.check(guest(23), shotsPerGuest: 24)
        #expect(throws: Problem.self) { try ShotLimit.check(guest(24), shotsPerGuest: 24) }
        #expect(ShotLimit.reached(24).detail.contains("24 shots"))
    }

    @Test("The quota: what fits, when it is nearly full, and sizes as phones and disks count them, in both languages")
    func quota() {
        let usage = Quota.Usage(used: 900, allowed: 1000, own: nil)
        #expect(usage.fits(100) && !usage.fits(101))
        #expect(usage.nearlyFull && !Quota.Usage(used: 899, allowed: 1000, own: nil).nearlyFull)
        #expect(!Quota.Usage(used: 0, allowed: 0, own: 0).nearlyFull)
        #expect(Quota.format(1_200_000_000) == "1.2 GB" && Quota.format(350_000_000) == "350 MB" && Quota.format(12) == "12 bytes")
        #expect(Quota.format(1_200_000_000, french: true) == "1,2\u{a0}Go")
        #expect(Quota.exceeded(usage, byOrganizer: false).detail.contains("ask the organizer"))
    }

    @Test("Staging caps: a sender's share, a network's and an event's, and one largest file always fits")
    func stagingCaps() {
        let caps = ResumableUploadService.StagingCaps(maxStaged: 10_000_000_000, largestFile: 1 << 30)
        #expect(caps.instance == 10_000_000_000)
        #expect(caps.sender == (1 << 30) + ResumableUploadService.allowance, "the largest file and its allowance, above a tenth")
        #expect(caps.network == 2_000_000_000 && caps.event == 2_500_000_000)
        let small = ResumableUploadService.StagingCaps(maxStaged: 1_000_000_000, largestFile: 1 << 30)
        #expect(small.sender == 250_000_000, "a quarter of the whole at most, even for the largest file")
    }

    @Test("A gallery cursor reads back what it wrote, and refuses anything else")
    func galleryCursor() {
        let cursor = GalleryCursor(time: 1_715_600_000_123, id: "4f1dd770282354e70932f5f0683fc833")
        let back = GalleryCursor(token: cursor.token)
        #expect(back?.time == cursor.time && back?.id == cursor.id)
        #expect(!cursor.token.contains("=") && !cursor.token.contains("+") && !cursor.token.contains("/"))
        for hostile in [
            "", "not base64!", String(repeating: "A", count: 300), Data("12:".utf8).base64EncodedString(),
            Data("x:abc".utf8).base64EncodedString(), Data("1:<script>".utf8).base64EncodedString(),
        ] {
            #expect(GalleryCursor(token: hostile) == nil, "\(hostile)")
        }
    }

    @Test("A moment keeps new lines, and refuses control and direction-changing characters")
    func momentCharacters() {
        #expect(!MomentService.refused("\n") && !MomentService.refused("é"))
        for scalar: Unicode.Scalar in ["\u{0}", "\u{7}", "\u{202E}", "\u{2066}"] { #expect(MomentService.refused(scalar)) }
    }
}
