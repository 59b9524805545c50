import DisposableCore
import PostgresNIO
import SQLKit
import SQLiteNIO

/// Reads the columns of a row straight from the engine's own cells.
///
/// SQLKit's `decode(column:as:)` takes every value through a generic `Decodable` path: on PostgreSQL a coding path,
/// a dynamic cast and a cell built per column — 16 % of the server's CPU on event night went to decoding gallery
/// pages (`perf`). The engines' row wrappers keep the rows they wrap as their first stored value, which
/// this reads once per row; a value of another shape (or a wrapper that changed) falls back to SQLKit's path.
package struct ColumnReader {
    private enum Cells {
        case sqlite(SQLiteRow)
        case postgres(PostgresRandomAccessRow)
        case other
    }

    private let row: any SQLRow
    private let cells: Cells

    package init(_ row: any SQLRow) {
        self.row = row
        switch Mirror(reflecting: row).children.first?.value {
        case let cells as SQLiteRow: self.cells = .sqlite(cells)
        case let cells as PostgresRandomAccessRow: self.cells = .postgres(cells)
        default: self.cells = .other
        }
    }

    /// Whether the engine's cells are read directly (the tests hold this against package updates).
    package var readsCellsDirectly: Bool {
        if case .other = cells { return false }
        return true
    }

    package func callAsFunction<T: Decodable & PostgresDecodable & SQLiteDataConvertible>(_ column: String, as type: T.Type = T.self) throws -> T {
        switch cells {
        case .sqlite(let cells):
            if let data = cells.column(column), let value = T(sqliteData: data) { return value }
        case .postgres(let cells):
            if cells.contains(column) { return try cells[column].decode(T.self) }
        case .other: break
        }
        return try row.decode(column: column, as: T.self)
    }

    /// A column that may be NULL.
    package func optional<T: Decodable & PostgresDecodable & SQLiteDataConvertible>(_ column: String, as type: T.Type = T.self) throws -> T? {
        switch cells {
        case .sqlite(let cells):
            if let data = cells.column(column) { return data == .null ? nil : try self(column, as: T.self) }
        case .postgres(let cells):
            if cells.contains(column) { return cells[column].bytes == nil ? nil : try cells[column].decode(T.self) }
        case .other: break
        }
        return try row.decode(column: column, as: T?.self)
    }
}
