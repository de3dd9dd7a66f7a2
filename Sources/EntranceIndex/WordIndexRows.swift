import Foundation
import SQLite

/// The rows of the word index (`building_search`: a building's row, names and addresses),
/// kept in memory as the buildings are stored, so that the index can be made at the end on
/// a thread and database of its own (``WordIndexJob``) while the writer's thread makes the
/// other indexes and `building_whole`: the end of a 10⁶-building import was ≈ 1 s on one
/// core, FTS5's part ≈ 0.45 s of it. The text is one byte run, ≈ 26 MB at 10⁶ buildings;
/// beyond ``limit`` (a country) the writer drops it and fills the word index from the
/// `buildings` table in SQL instead, so memory stays flat however large the input.
package final class WordIndexRows: @unchecked Sendable {
    /// The default for ``limit``: 64 MB, about 2.5 million buildings.
    package static let defaultLimit = 64 << 20

    /// Per row: the building's row (8 bytes), then the names and the addresses, each its
    /// length (4 bytes) and its UTF-8; native byte order (it never leaves the process).
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0
    /// The most memory the rows may take (bytes).
    let limit: Int

    init(limit: Int = WordIndexRows.defaultLimit) { self.limit = limit }

    var isFull: Bool { bytes.count > limit }

    /// Keeps one building's text; a building without names or addresses has no row, as in
    /// the import's `INSERT … SELECT … WHERE names != '' OR addresses != ''`.
    func add(row: Int64, names: String, addresses: String) {
        guard !names.isEmpty || !addresses.isEmpty else { return }
        withUnsafeBytes(of: row) { bytes.append(contentsOf: $0) }
        append(names)
        append(addresses)
        count += 1
    }

    private func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            withUnsafeBytes(of: UInt32(utf8.count)) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
    }

    func removeAll() {
        bytes = []
        count = 0
    }

    /// The most rows a statement inserts at once (fewer if SQLite allows fewer parameters).
    /// FTS5 writes the words it holds in memory to a new segment of the index at the end of
    /// every statement (its savepoint), and merges those segments as they pile up: 64 rows a
    /// statement took ≈ 1.1 s at 10⁶ buildings, 10 000 rows ≈ 0.4 s, about what one
    /// `INSERT … SELECT` takes.
    static let rowsPerStatement = 10_000

    /// Makes `building_search` in a new database at `path` (``DoorIndexSchema/wordIndex``)
    /// and fills it with every row, in one transaction.
    func index(into path: String) throws {
        let db = try Connection(path: path, mode: .readWrite)
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        try db.execute(DoorIndexSchema.wordIndex)
        try db.execute("BEGIN")
        let values = "INSERT INTO building_search(rowid, names, addresses) VALUES "
        let perStatement = max(1, min(Self.rowsPerStatement, count, db.maxParameters / 3))
        // (A statement of 10 000 rows takes ≈ 6 MB: none that large for a village.)
        let many = try db.prepare(
            values + Array(repeating: "(?, ?, ?)", count: perStatement).joined(separator: ", "))
        let one = try db.prepare(values + "(?, ?, ?)")
        try bytes.withUnsafeBytes { raw in
            var at = 0
            var done = 0
            func text() -> UnsafeBufferPointer<UInt8> {
                let length = Int(raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                defer { at += 4 + length }
                return UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[at + 4..<at + 4 + length])
            }
            while done < count {
                // Whole statements while enough rows are left, then one a statement.
                let (statement, rows) = count - done >= perStatement ? (many, perStatement) : (one, 1)
                for r in 0..<rows {
                    try statement.bind(3 * r + 1, int: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))
                    at += 8
                    try statement.bind(3 * r + 2, text: text())
                    try statement.bind(3 * r + 3, text: text())
                }
                try statement.runBound()
                done += rows
            }
        }
        try db.execute("COMMIT")
    }
}

/// ``WordIndexRows/index(into:)`` on a thread of its own, into a file beside the index; the
/// writer copies the result in (``DoorIndexSchema/copyWordIndex``).
final class WordIndexJob: @unchecked Sendable {
    let path: String
    private let done = DispatchSemaphore(value: 0)
    private var failure: (any Error)?
    private var waited = false

    /// Starts indexing `rows` into a new database at `path` (replaced if it exists).
    init(_ rows: WordIndexRows, path: String) {
        self.path = path
        try? FileManager.default.removeItem(atPath: path)
        let thread = Thread { [self] in
            do { try rows.index(into: path) } catch { failure = error }
            done.signal()
        }
        thread.name = "pathfinder-words"
        thread.start()
    }

    /// Waits for the thread; throws what it threw.
    func wait() throws {
        join()
        if let failure { throw failure }
    }

    /// Waits for the thread (if nobody did) and removes its database.
    func discard() {
        join()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Waits for the thread once; later calls return at once.
    private func join() {
        guard !waited else { return }
        done.wait()
        waited = true
    }
}
