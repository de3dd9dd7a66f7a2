internal import CSQLite
import Foundation

/// One SQLite database connection. Not thread-safe: use one per thread (or guard it).
package final class Connection {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read-only; `immutable` promises nobody changes the file, so SQLite takes no locks.
        case readOnly(immutable: Bool)
        /// Read and write, creating the file if missing.
        case readWrite
    }

    /// Process-wide settings, made once before the first connection opens: nothing here
    /// reads SQLite's memory statistics, and keeping them takes a global mutex on every
    /// allocation (≈ 3 % of a country's import).
    private static let configured: Void = { _ = pathfinder_sqlite_no_memory_statistics() }()

    // Owned; closed in deinit and nowhere else. Statements do not hold the connection:
    // they reach the database through `sqlite3_db_handle`, and `sqlite3_close_v2` keeps it
    // open (a "zombie") until the last statement is finalized, so a statement that outlives
    // its `Connection` is still safe, and there is no reference cycle through the cache.
    let handle: OpaquePointer
    /// Prepared statements kept by SQL text; owned here, finalized before the handle closes.
    private var cache: [String: Statement] = [:]
    package let path: String

    /// Opens `path` (`":memory:"` for a private in-memory database).
    /// - Throws: `SQLiteError` naming the path when the file cannot be opened.
    package init(path: String, mode: Mode = .readWrite) throws(SQLiteError) {
        _ = Self.configured
        self.path = path
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        var filename = path
        switch mode {
        case .readOnly(let immutable):
            flags |= SQLITE_OPEN_READONLY
            if immutable {
                flags |= SQLITE_OPEN_URI
                let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
                // An absolute path after an empty authority ("file://" + "/x"): after "file:"
                // alone, one starting with "//" ("//tmp/x.db", from TMPDIR=//tmp) was read as
                // the authority "tmp" and refused.
                filename = (path.hasPrefix("/") ? "file://" : "file:") + escaped + "?immutable=1"
            }
        case .readWrite:
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let rc = sqlite3_open_v2(filename, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)  // a half-made handle is still ours to free
            throw SQLiteError(code: .init(rawValue: rc), message: "\(path): \(message)", sql: nil)
        }
        sqlite3_extended_result_codes(db, 1)
        if case .readOnly = mode {
            // Fail now, naming the file, rather than on the first query. This runs on the raw
            // handle *before* `self.handle` is set: once every stored property is set, a throw
            // runs `deinit`, which would close the handle a second time.
            var message: UnsafeMutablePointer<CChar>?
            let check = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nil, nil, &message)
            if check != SQLITE_OK {
                let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
                sqlite3_free(message)
                sqlite3_close_v2(db)
                throw SQLiteError(code: .init(rawValue: check), message: "\(path): \(text)", sql: nil)
            }
        }
        handle = db  // from here on `deinit` owns the handle and closes it, once
    }

    deinit {
        cache.removeAll()  // statements must be finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw SQLiteError(code: .init(rawValue: rc), message: text, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reset and unbound, cached for reuse.
    package func cached(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// The most parameters a statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`; 32 766
    /// since SQLite 3.32).
    package var maxParameters: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// A new prepared statement (not cached).
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// The first column of the first row as an integer, or nil when there is no row.
    package func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() ? statement.int(0) : nil
    }

    /// Runs `body` inside a transaction: committed if it returns, rolled back if it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rowid of the last insert.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
}
