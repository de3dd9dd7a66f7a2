import SQLite

/// Rows for one table, inserted ``batch`` at a time by one `INSERT … VALUES (…), (…), …`:
/// a statement's own cost (≈ 0.25 µs at 10⁶ buildings: its program, its cursor) was a
/// large part of a small row's. The rows wait until a batch is full or ``flush()``; nothing
/// may read the table before.
final class BatchInsert {
    static let batch = 32

    private let one: Statement
    private let many: Statement
    private var pending: [[SQLValue]] = []

    /// - Parameters:
    ///   - table: the table and its columns, as in an `INSERT INTO` ("t(a, b)").
    ///   - columns: how many.
    init(db: Connection, into table: String, columns: Int) throws {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        one = try db.prepare("INSERT INTO \(table) VALUES \(row)")
        many = try db.prepare(
            "INSERT INTO \(table) VALUES " + Array(repeating: row, count: Self.batch).joined(separator: ", "))
        pending.reserveCapacity(Self.batch)
    }

    func add(_ row: [SQLValue]) throws {
        pending.append(row)
        guard pending.count == Self.batch else { return }
        var index = 1
        for row in pending {
            try many.bind(row, from: index)
            index += row.count
        }
        pending.removeAll(keepingCapacity: true)
        try many.runBound()
    }

    /// Inserts the rows still waiting, one a statement.
    func flush() throws {
        for row in pending { try one.run(row) }
        pending.removeAll(keepingCapacity: true)
    }
}
