import OSM
import Testing

/// ``NodeLocations``: the node store that stands in for osmium's `add-locations-to-ways`.
@Suite("Node locations kept while reading")
struct NodeLocationsTests {
    /// In id order, across chunks (65 536 nodes, or ids more than 2³² apart), each node is
    /// found whichever order the lookups come in; ids not added are not.
    @Test func everyNodeIsFoundAndNoOther() {
        let store = NodeLocations()
        var ids: [Int64] = []
        for i in 0..<150_000 { ids.append(Int64(i) * 3 + 1) }
        // A gap wider than a chunk's 32-bit offsets.
        ids.append(ids.last! + (1 << 33))
        ids.append(ids.last! + 1)
        for id in ids {
            store.add(id, lat: Int32(truncatingIfNeeded: id % 900_000_000), lon: -Int32(id % 1_000))
        }
        #expect(store.count == ids.count)
        for id in ids + ids.reversed() {
            let found = store.location(id)
            #expect(
                found?.lat == Int32(truncatingIfNeeded: id % 900_000_000) && found?.lon == -Int32(id % 1_000))
        }
        for missing: Int64 in [0, 2, 3, 450_001, ids.last! + 1, ids[149_999] + 1, -5] {
            #expect(store.location(missing) == nil, "\(missing)")
        }
        store.removeAll()
        #expect(store.count == 0 && store.location(1) == nil)
    }

    /// Nodes out of id order (an unsorted file) are sorted once; of a node given twice the
    /// last location counts.
    @Test func nodesOutOfOrderAreSortedOnce() {
        let store = NodeLocations()
        for id: Int64 in [50, 10, 30, 10, 70_000, 20] { store.add(id, lat: Int32(id), lon: id == 10 ? 1 : 0) }
        store.add(10, lat: 10, lon: 2)
        for id: Int64 in [10, 20, 30, 50, 70_000] { #expect(store.location(id)?.lat == Int32(id)) }
        #expect(store.location(10)?.lon == 2)
        #expect(store.location(40) == nil)
        #expect(store.count == 5)
    }
}
