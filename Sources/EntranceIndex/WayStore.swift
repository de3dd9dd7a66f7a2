import SQLite

/// The ways of the stream, kept in the scratch database until the relations that may name
/// them have been read: a batch of consecutive ways a row (a row a way cost ≈ 1.3 µs each,
/// the largest cost left of a way that is not a building).
///
/// A batch is the ways' ``WayBlob``s, each after its id (Int64) and length in bytes (Int32),
/// little-endian, keyed by its first way's id. osmium writes ways by id, so the batch that
/// may hold a way is the last one starting at or before it. Ways out of order (not from
/// osmium) are stored a row each, and a lookup that misses reads every earlier batch.
final class WayStore {
    /// Ways a batch.
    static let batch = 64

    private let insert: Statement
    private let select: Statement
    private let selectAll: Statement
    private var pending: [UInt8] = []
    private var pendingFirst: Int64 = 0
    private var pendingCount = 0
    private var lastID = Int64.min
    private var sorted = true

    /// - Parameter db: a connection with a `scratch` database attached.
    init(db: Connection) throws {
        try db.execute("CREATE TABLE scratch.ways(first INTEGER PRIMARY KEY, ways BLOB NOT NULL)")
        // A way twice (not from osmium): the last one, as before batches.
        insert = try db.prepare("INSERT OR REPLACE INTO scratch.ways(first, ways) VALUES (?, ?)")
        select = try db.prepare("SELECT ways FROM scratch.ways WHERE first <= ? ORDER BY first DESC LIMIT 1")
        selectAll = try db.prepare("SELECT ways FROM scratch.ways WHERE first <= ? ORDER BY first DESC")
    }

    func add(id: Int64, nodes: [UInt8]) throws {
        if id <= lastID {
            // Out of order: the batch so far ends here, and every way from now on is a row.
            try flush()
            sorted = false
        }
        lastID = id
        if pendingCount == 0 { pendingFirst = id }
        withUnsafeBytes(of: id.littleEndian) { pending += $0 }
        withUnsafeBytes(of: Int32(nodes.count).littleEndian) { pending += $0 }
        pending += nodes
        pendingCount += 1
        if pendingCount == Self.batch || !sorted { try flush() }
    }

    /// The way's ``WayBlob``; nil when the stream had no such way.
    func nodes(of id: Int64) throws -> [UInt8]? {
        try flush()
        var found: [UInt8]?
        try select.forEach([.int(id)]) { found = Self.find(id, in: $0.blob(0)) }
        if found == nil && !sorted {
            try selectAll.forEach([.int(id)]) { row in
                if found == nil { found = Self.find(id, in: row.blob(0)) }
            }
        }
        return found
    }

    private func flush() throws {
        guard pendingCount > 0 else { return }
        try insert.run([.int(pendingFirst), .blob(pending)])
        pending.removeAll(keepingCapacity: true)
        pendingCount = 0
    }

    private static func find(_ id: Int64, in batch: [UInt8]) -> [UInt8]? {
        batch.withUnsafeBytes { raw -> [UInt8]? in
            var at = 0
            while at + 12 <= raw.count {
                let way = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))
                let length = Int(
                    Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: Int32.self)))
                guard length >= 0, at + 12 + length <= raw.count else { return nil }
                if way == id { return Array(raw[(at + 12)..<(at + 12 + length)]) }
                at += 12 + length
            }
            return nil
        }
    }
}
