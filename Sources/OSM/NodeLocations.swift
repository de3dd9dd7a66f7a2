/// The locations of a stream's nodes, for the ways that come without theirs: what osmium's
/// `add-locations-to-ways` does, in the reading thread, without a second osmium process
/// that decodes and encodes the whole stream once more (``PBFReader/nodeLocations``).
///
/// Nodes are kept in id order in chunks of up to 65 536: a chunk's first id, then per node
/// its id's distance from it and its location in 1e-7° (osmium's own resolution): 12 bytes
/// a node, ≈ 50 MB for the 4 million nodes of a million buildings — what osmium's index took
/// (16 bytes a node in its sparse array). Ways name their nodes in nearly ascending order,
/// so a lookup tries the node after the last one found before it searches.
///
/// osmium writes nodes in id order; nodes out of order are sorted once, before the first
/// lookup.
package final class NodeLocations {
    struct Entry {
        var offset: UInt32
        var lat: Int32
        var lon: Int32
    }

    struct Chunk {
        var first: Int64
        var entries: [Entry]
    }

    static let chunkSize = 1 << 16

    private var chunks: [Chunk] = []
    private var last: Int64?
    private var sorted = true
    /// Where the last lookup found its node.
    private var hint = (chunk: 0, entry: 0)

    package init() {}

    package var count: Int { chunks.reduce(0) { $0 + $1.entries.count } }

    /// Keeps node `id`'s location (latitude and longitude in 1e-7°).
    package func add(_ id: Int64, lat: Int32, lon: Int32) {
        if let last, id <= last { sorted = false }
        last = id
        if let chunk = chunks.last, chunk.entries.count < Self.chunkSize, id > chunk.first,
            id - chunk.first <= Int64(UInt32.max)
        {
            chunks[chunks.count - 1].entries.append(
                Entry(offset: UInt32(id - chunk.first), lat: lat, lon: lon))
            return
        }
        var entries: [Entry] = []
        entries.reserveCapacity(Self.chunkSize)
        entries.append(Entry(offset: 0, lat: lat, lon: lon))
        chunks.append(Chunk(first: id, entries: entries))
    }

    /// Node `id`'s location (1e-7°), or nil when the stream had no such node.
    package func location(_ id: Int64) -> (lat: Int32, lon: Int32)? {
        if !sorted { sortOnce() }
        // The node after the last one found (perhaps the next chunk's first), or that one
        // again.
        if hint.chunk < chunks.count {
            var (c, i) = (hint.chunk, hint.entry + 1)
            if i == chunks[c].entries.count && c + 1 < chunks.count { (c, i) = (c + 1, 0) }
            if let found = at(c, i, id) { return found }
            if let found = at(hint.chunk, hint.entry, id) { return found }
        }
        // The last chunk whose first id is at most `id`, then the node in it.
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].first <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let c = low - 1
        let chunk = chunks[c]
        let distance = id - chunk.first
        guard distance <= Int64(UInt32.max) else { return nil }
        let offset = UInt32(distance)
        var a = 0
        var b = chunk.entries.count
        while a < b {
            let mid = (a + b) / 2
            if chunk.entries[mid].offset < offset { a = mid + 1 } else { b = mid }
        }
        guard a < chunk.entries.count, chunk.entries[a].offset == offset else { return nil }
        hint = (c, a)
        return (chunk.entries[a].lat, chunk.entries[a].lon)
    }

    /// Entry `i` of chunk `c`, if it is node `id`'s (then the hint).
    private func at(_ c: Int, _ i: Int, _ id: Int64) -> (lat: Int32, lon: Int32)? {
        guard i < chunks[c].entries.count else { return nil }
        let entry = chunks[c].entries[i]
        guard chunks[c].first + Int64(entry.offset) == id else { return nil }
        hint = (c, i)
        return (entry.lat, entry.lon)
    }

    /// Forgets every node (the ways are read).
    package func removeAll() {
        chunks = []
        last = nil
        sorted = true
        hint = (0, 0)
    }

    /// Nodes came out of id order: sorted by id once, the last of equal ids kept.
    private func sortOnce() {
        var all: [(id: Int64, lat: Int32, lon: Int32)] = []
        all.reserveCapacity(count)
        for chunk in chunks {
            for e in chunk.entries { all.append((chunk.first + Int64(e.offset), e.lat, e.lon)) }
        }
        // Stable, so that of equal ids the one added last stays last.
        let order = all.indices.sorted { (all[$0].id, $0) < (all[$1].id, $1) }
        removeAll()
        for (k, i) in order.enumerated() {
            if k + 1 < order.count && all[order[k + 1]].id == all[i].id { continue }
            add(all[i].id, lat: all[i].lat, lon: all[i].lon)
        }
    }
}
