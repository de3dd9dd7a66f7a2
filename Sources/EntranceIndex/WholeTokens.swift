import Foundation
import SQLite

/// The whole-name tokens of the buildings (``SearchText/wholeTokens(_:)``) as (token,
/// building row) pairs, kept in memory while the buildings stream in and written to
/// `building_whole` in order at the end: one byte run for every token's text and 16 bytes a
/// pair, ≈ 34 MB for a million buildings.
///
/// In memory rather than in a scratch table because a million single-row inserts and
/// SQLite's sort of them were ≈ 1 s of the import's CPU, all on the writing thread; sorting
/// here runs on a thread of its own while that thread makes the indexes. Beyond ``limit``
/// bytes (a country) the writer moves the pairs to its scratch table and sorts them in SQL
/// as before, so memory stays flat however large the input.
package final class WholeTokens: @unchecked Sendable {
    /// One pair: the token's bytes in ``text`` and its building's row.
    struct Entry {
        var start: UInt32
        var count: UInt32
        var building: Int64
    }

    /// The default for ``limit``: 64 MB, about two million buildings.
    package static let defaultLimit = 64 << 20

    private(set) var text: [UInt8] = []
    private(set) var entries: [Entry] = []
    /// The most memory the pairs may take (bytes).
    let limit: Int

    init(limit: Int = WholeTokens.defaultLimit) { self.limit = limit }

    /// Bytes taken, roughly.
    var memory: Int { text.count + entries.count * MemoryLayout<Entry>.stride }
    var isFull: Bool { memory > limit }

    func add(_ token: String, building: Int64) {
        let start = text.count
        text.append(contentsOf: token.utf8)
        entries.append(Entry(start: UInt32(start), count: UInt32(text.count - start), building: building))
    }

    func removeAll() {
        text.removeAll()
        entries.removeAll()
    }

    /// Whether (`x`, `xBuilding`) comes before (`y`, `yBuilding`) in `building_whole`'s key:
    /// text as SQLite's BINARY collation orders it (bytes, then length), then the building.
    static func precedes(
        _ x: UnsafeBufferPointer<UInt8>, _ xBuilding: Int64, _ y: UnsafeBufferPointer<UInt8>,
        _ yBuilding: Int64
    ) -> Bool {
        let common = min(x.count, y.count)
        let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
        if order != 0 { return order < 0 }
        return (x.count, xBuilding) < (y.count, yBuilding)
    }

    private static func bytes(
        _ text: UnsafeBufferPointer<UInt8>, _ entry: Entry
    ) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: text[Int(entry.start)..<Int(entry.start + entry.count)])
    }

    /// Sorts the pairs in `building_whole`'s order (``precedes(_:_:_:_:)``).
    func sort() {
        text.withUnsafeBufferPointer { text in
            entries.sort { a, b in
                Self.precedes(Self.bytes(text, a), a.building, Self.bytes(text, b), b.building)
            }
        }
    }

    /// Rows a statement of ``insertStatement(into:)`` inserts at once: one statement a pair
    /// was ≈ 0.5 µs a pair at 10⁶ buildings, more than SQLite's own B-tree work.
    static let rowsPerStatement = 128

    /// `INSERT OR IGNORE INTO table(token, building) VALUES (?, ?), …` with
    /// ``rowsPerStatement`` rows.
    static func insertStatement(into table: String) -> String {
        "INSERT OR IGNORE INTO \(table)(token, building) VALUES "
            + Array(repeating: "(?, ?)", count: rowsPerStatement).joined(separator: ", ")
    }

    /// Inserts the pairs of `a` and `b`, both sorted, in one sorted sequence, through
    /// `insert` (``insertStatement(into:)``). The last statement's spare rows repeat the
    /// last pair: `building_whole`'s key drops them (`OR IGNORE`); the scratch table, which
    /// has no key, keeps them until they meet that key at the end.
    static func insertMerged(_ a: WholeTokens, _ b: WholeTokens, with insert: Statement) throws {
        try a.text.withUnsafeBufferPointer { aText in
            try b.text.withUnsafeBufferPointer { bText in
                var i = 0
                var j = 0
                var row = 0
                var last: (UnsafeBufferPointer<UInt8>, Int64)?
                func bind(_ text: UnsafeBufferPointer<UInt8>, _ building: Int64) throws {
                    try insert.bind(2 * row + 1, text: text)
                    try insert.bind(2 * row + 2, int: building)
                    row += 1
                    if row == rowsPerStatement {
                        try insert.runBound()
                        row = 0
                    }
                }
                while i < a.entries.count || j < b.entries.count {
                    let takeA =
                        j == b.entries.count
                        || (i < a.entries.count
                            && precedes(
                                bytes(aText, a.entries[i]), a.entries[i].building, bytes(bText, b.entries[j]),
                                b.entries[j].building))
                    let (text, entry) = takeA ? (aText, a.entries[i]) : (bText, b.entries[j])
                    last = (bytes(text, entry), entry.building)
                    try bind(bytes(text, entry), entry.building)
                    if takeA { i += 1 } else { j += 1 }
                }
                if let last { while row != 0 { try bind(last.0, last.1) } }
            }
        }
    }

    /// Inserts every pair, in the order they are in (``insertMerged(_:_:with:)``).
    func insert(with insert: Statement) throws {
        try Self.insertMerged(self, WholeTokens(), with: insert)
    }
}
