internal import CSQLite

/// A value bound to or read from SQLite.
package enum SQLValue: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .text(value) }
}

/// One prepared statement; finalized in deinit. Belongs to its connection's thread.
package final class Statement {
    // Owned; finalized in deinit. No reference to the `Connection` (the connection caches
    // statements, so a strong one would be a cycle that frees neither): SQLite itself keeps
    // the database alive until this statement is finalized (`sqlite3_close_v2`).
    private let handle: OpaquePointer
    package let sql: String

    init(connection: Connection, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError(code: .init(rawValue: rc), message: connection.lastMessage, sql: sql)
        }
        self.handle = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears bindings and rewinds, ready to run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters `first`…, from 1 by default.
    package func bind(_ values: [SQLValue], from first: Int = 1) throws(SQLiteError) {
        for (i, value) in values.enumerated() {
            let index = Int32(first + i)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .int(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .double(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let v): rc = sqlite3_bind_text(handle, index, v, -1, pathfinder_sqlite_transient())
            case .blob(let v):
                rc = v.withUnsafeBytes {
                    sqlite3_bind_blob(
                        handle, index, $0.baseAddress, Int32($0.count), pathfinder_sqlite_transient())
                }
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
    }

    /// Steps once: true when a row is ready, false when done.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(rc)
        }
    }

    /// Binds, runs to the end, and resets: for INSERT/UPDATE/DELETE.
    package func run(_ values: [SQLValue] = []) throws(SQLiteError) {
        reset()
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds `text` (UTF-8) to parameter `index` (from 1), without a `String`.
    package func bind(_ index: Int, text: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        let rc: Int32
        if let base = text.baseAddress, !text.isEmpty {
            rc = base.withMemoryRebound(to: CChar.self, capacity: text.count) {
                sqlite3_bind_text(handle, Int32(index), $0, Int32(text.count), pathfinder_sqlite_transient())
            }
        } else {
            // A pointer even for no bytes: nil would bind NULL, not ''.
            rc = sqlite3_bind_text(handle, Int32(index), "", 0, pathfinder_sqlite_transient())
        }
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Binds `int` to parameter `index` (from 1).
    package func bind(_ index: Int, int: Int64) throws(SQLiteError) {
        let rc = sqlite3_bind_int64(handle, Int32(index), int)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Runs what is bound to the end and rewinds, keeping the bindings.
    package func runBound() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds, then calls `row` for every result row.
    package func forEach(_ values: [SQLValue] = [], _ row: (Statement) throws -> Void) throws {
        reset()
        try bind(values)
        while try step() { try row(self) }
    }

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }
    package func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }
    package func int(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    package func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }
    package func text(_ column: Int) -> String? {
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return nil }
        return String(cString: p)
    }
    package func blob(_ column: Int) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard count > 0, let p = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }

    private func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(
            code: .init(rawValue: rc), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))),
            sql: sql)
    }
}
