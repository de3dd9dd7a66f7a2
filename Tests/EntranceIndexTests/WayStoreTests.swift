import SQLite
import Testing

@testable import EntranceIndex

@Suite("Ways kept for the relations, in batches")
struct WayStoreTests {
    static func store() throws -> (Connection, WayStore) {
        let db = try Connection(path: ":memory:", mode: .readWrite)
        try db.execute("ATTACH DATABASE '' AS scratch")
        return (db, try WayStore(db: db))
    }

    static func blob(_ id: Int64) -> [UInt8] { WayBlob.encode([id * 10, id * 10 + 1], [nil, nil]) }

    @Test(arguments: [
        Array(Int64(1)...300),  // as osmium writes them: batches
        [5, 3, 900, 4, 1_000, 2, 1] + Array(Int64(10)...200),  // out of order: a row each, then batches again
    ])
    func everyWayIsFoundAndNoOtherIs(ids: [Int64]) throws {
        let (_, ways) = try Self.store()
        for id in ids { try ways.add(id: id, nodes: Self.blob(id)) }
        for id in ids { #expect(try ways.nodes(of: id) == Self.blob(id), "way \(id)") }
        for missing: Int64 in [0, 6, 301, 999, 5_000] where !ids.contains(missing) {
            #expect(try ways.nodes(of: missing) == nil, "way \(missing)")
        }
    }
}
