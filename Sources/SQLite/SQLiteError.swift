internal import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the SQL it ran.
package struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// SQLite's primary or extended result code.
    package struct Code: RawRepresentable, Hashable, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        package static let error = Code(rawValue: SQLITE_ERROR)
        package static let busy = Code(rawValue: SQLITE_BUSY)
        package static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        package static let notADatabase = Code(rawValue: SQLITE_NOTADB)
        package static let cantOpen = Code(rawValue: SQLITE_CANTOPEN)
        package static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        package static let readOnly = Code(rawValue: SQLITE_READONLY)
        /// The primary code of an extended one.
        package var primary: Code { Code(rawValue: rawValue & 0xFF) }
    }

    package let code: Code
    package let message: String
    package let sql: String?

    package var description: String {
        "SQLite error \(code.rawValue): \(message)" + (sql.map { " (in: \($0))" } ?? "")
    }
}
