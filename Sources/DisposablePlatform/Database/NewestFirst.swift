import DisposableCore
import SQLKit

/// Keyset paging, newest first, for every list that pages by a time and an id (an event's gallery, a person's shots
/// across events, a library's timeline and trash).
extension SQLQueryString {
    /// Appends the rows after `cursor` by `column`, then the order and one row more than `limit`: that one says
    /// whether another page follows. A row value, so both engines walk the index from the cursor (the `OR` form made
    /// SQLite scan).
    package mutating func newestFirst(by column: String, after cursor: (time: Int64, id: String)?, limit: Int) {
        if let cursor {
            appendInterpolation(unsafeRaw: " AND (\(column), id) < (")
            appendInterpolation(bind: cursor.time)
            appendInterpolation(unsafeRaw: ", ")
            appendInterpolation(bind: cursor.id)
            appendInterpolation(unsafeRaw: ")")
        }
        appendInterpolation(unsafeRaw: " ORDER BY \(column) DESC, id DESC LIMIT \(limit + 1)")
    }
}
