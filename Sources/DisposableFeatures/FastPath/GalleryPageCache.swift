import DisposableCore
import DisposablePlatform
import NIOConcurrencyHelpers
import NIOCore

/// Gallery pages already written — the whole response body, shared, not copied, by every answer — kept
/// while their event's change feed stands still (PERF-2).
///
/// Every change to an event's photos moves `events.change_seq` in the same transaction (the change log), and each
/// request reads that position with the event anyway; a page written at position N is therefore still the
/// page while the event is at N — on every instance, since the position comes from the shared database.
/// Only the general gallery is kept ("My shots" shows approval, which can change without a feed entry).
/// Bounded in bytes; the oldest entry goes first.
package final class GalleryPageCache: Sendable {
    /// Everything one viewer's page depends on besides the event's position (which also fixes its reveal time and
    /// its count of developing photos).
    package struct Key: Hashable, Sendable {
        package let page: PageKey
        /// Decides `mine`, and for guests which unapproved photos they see (their own).
        package let viewerID: String?

        package init(page: PageKey, viewerID: String?) {
            self.page = page
            self.viewerID = viewerID
        }
    }

    /// A page as everyone of an audience sees it who shot none of it and likes none of it: the body most phones
    /// get, and its rows, to write the page again for a viewer who did. Read once per position of the feed.
    package struct SharedPage: Sendable {
        package let rows: [Photo]
        package let next: GalleryCursor?
        package let changeSeq: Int64
        package let body: ByteBuffer
    }

    /// What every viewer's page of an audience depends on besides the event's position.
    package struct PageKey: Hashable, Sendable {
        package let eventID: String
        /// Organizers see every photo; guests those shown to everyone.
        package let organizers: Bool
        package let order: GalleryOrder
        package let cursor: String?
        package let limit: Int
        /// Signed links change every 12 hours.
        package let linksUntil: Int64?
        /// The page says whether the gallery is open, which the clock decides.
        package let revealed: Bool
        /// Shooters' pictures change without a feed entry.
        package let pictures: [String: String]

        package init(
            eventID: String, organizers: Bool, order: GalleryOrder, cursor: String?, limit: Int, linksUntil: Int64?, revealed: Bool,
            pictures: [String: String]
        ) {
            self.eventID = eventID
            self.organizers = organizers
            self.order = order
            self.cursor = cursor
            self.limit = limit
            self.linksUntil = linksUntil
            self.revealed = revealed
            self.pictures = pictures
        }
    }

    package let shared = AnswersAtPosition<PageKey, SharedPage>(entryLimit: 128)
    /// Per event, the guests who have a ready photo awaiting approval: they see it in the gallery, nobody else does,
    /// so their pages are their own.
    package let awaitingApproval = AnswersAtPosition<String, Set<String>>(entryLimit: 4096)

    private struct Entry {
        let changeSeq: Int64
        let page: ByteBuffer
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var arrivals: [Key] = []
        var byteCount = 0
        /// Photos waiting for the reveal, per event, at a position.
        var developing: [String: (changeSeq: Int64, count: Int)] = [:]
    }

    private let state = NIOLockedValueBox(State())
    package let byteLimit: Int

    package init(byteLimit: Int = 8 << 20) {
        self.byteLimit = byteLimit
    }

    package func page(_ key: Key, at changeSeq: Int64) -> ByteBuffer? {
        state.withLockedValue { state in
            guard let entry = state.entries[key], entry.changeSeq == changeSeq else { return nil }
            return entry.page
        }
    }

    package func store(_ page: ByteBuffer, for key: Key, at changeSeq: Int64) {
        guard page.readableBytes <= byteLimit / 8 else { return }
        state.withLockedValue { state in
            if let old = state.entries.updateValue(Entry(changeSeq: changeSeq, page: page), forKey: key) {
                state.byteCount -= old.page.readableBytes
            } else {
                state.arrivals.append(key)
            }
            state.byteCount += page.readableBytes
            var evicted = 0
            while state.byteCount > byteLimit, evicted < state.arrivals.count {
                if let gone = state.entries.removeValue(forKey: state.arrivals[evicted]) { state.byteCount -= gone.page.readableBytes }
                evicted += 1
            }
            state.arrivals.removeFirst(evicted)
        }
    }

    package func developingCount(eventID: String, at changeSeq: Int64) -> Int? {
        state.withLockedValue { state in
            guard let known = state.developing[eventID], known.changeSeq == changeSeq else { return nil }
            return known.count
        }
    }

    package func storeDevelopingCount(_ count: Int, eventID: String, at changeSeq: Int64) {
        state.withLockedValue { state in
            // Events seen once and never again must not pile up.
            if state.developing.count > 4096 { state.developing.removeAll() }
            state.developing[eventID] = (changeSeq, count)
        }
    }
}
