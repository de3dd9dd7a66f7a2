import Foundation
import Geo
import OSM
import SQLite

/// Writes a door index from a stream of OSM elements (nodes, then ways, then relations),
/// one element at a time, each prepared (``PreparedElement``, perhaps on another thread):
/// nothing but the entrance ids, the named places and the summary is held in memory.
///
/// Ways wait in a scratch database (SQLite's temporary file, gone when the connection
/// closes; ``WayStore``) in case a multipolygon relation later names them. The whole-name
/// tokens wait in memory (``WholeTokens``; in the scratch database beyond its limit) and
/// are sorted into `building_whole` at the end. Named shops, offices and
/// amenities join the search text of the building that contains them (``PlacesInside``),
/// after its own names, and their tokens go to `places_whole`.
/// Everything is written in one transaction with prepared statements; the indexes and the
/// word index are made once, at the end; the caller renames the file into place.
final class DoorIndexWriter {
    let db: Connection
    /// The input's file name, for errors.
    let source: String
    private var summary = DoorImportSummary(
        entrances: 0, buildingWays: 0, buildingRelations: 0, withoutOutline: 0, entrancesOnOutlines: 0)
    private var entranceIDs = Set<Int64>()
    /// The folded `name` and `ref` of entrances that have them: they find their building.
    private var entranceWords: [Int64: String] = [:]
    private var onOutline = Set<Int64>()
    /// The box around everything stored; nil while nothing with a location is.
    private var bounds: DoorIndexBounds?
    /// Named shops, offices and amenities and their buildings.
    private var places = PlacesInside()
    /// The ``SpatialCells`` levels that hold a building.
    private var levels = Set<Int>()

    private let insertEntrance: BatchInsert
    private let insertBuilding: BatchInsert
    private let insertLink: BatchInsert
    private let insertWhole: Statement
    private let ways: WayStore
    /// The whole-name tokens while they fit in memory; once they do not (`spilled`), they
    /// go to `scratch.whole`.
    private let whole: WholeTokens
    private var spilled = false
    /// The word index's rows while they fit in memory (``WordIndexRows``); nil once they do
    /// not.
    private var wordRows: WordIndexRows?

    /// The second database the words of names and addresses are indexed in while the index at
    /// `path` is finished (copied into it, then removed): a temp file of its own, which a signal
    /// must remove too (``DoorImporter``).
    static func wordsPath(for path: String) -> String { path + "-words" }
    /// The database's path: the word index is made beside it.
    private let path: String

    /// - Parameters:
    ///   - wholeTokensLimit: bytes of whole-name tokens kept in memory (``WholeTokens/limit``).
    ///   - wordRowsLimit: bytes of the word index's rows kept in memory
    ///     (``WordIndexRows/limit``).
    init(
        path: String, source: String, wholeTokensLimit: Int = WholeTokens.defaultLimit,
        wordRowsLimit: Int = WordIndexRows.defaultLimit
    ) throws {
        whole = WholeTokens(limit: wholeTokensLimit)
        wordRows = WordIndexRows(limit: wordRowsLimit)
        self.path = path
        self.source = source
        db = try Connection(path: path, mode: .readWrite)
        // A temporary file renamed at the end: no journal needed, a crash just loses it.
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384;")
        try db.execute(DoorIndexSchema.create)
        try db.execute(
            """
            ATTACH DATABASE '' AS scratch;
            PRAGMA scratch.journal_mode = OFF;
            CREATE TABLE scratch.whole(token TEXT NOT NULL, building INTEGER NOT NULL);
            CREATE TABLE scratch.places(token TEXT NOT NULL, building INTEGER NOT NULL);
            """)
        try db.execute("BEGIN")
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)")
        try meta.run(["version", .text(String(DoorIndexSchema.version))])
        try meta.run(["source", .text(source)])
        try meta.run(["fold", .text(DoorIndexSchema.narrowFold)])
        insertEntrance = try BatchInsert(db: db, into: "entrances(id, lat, lon, tags, cell)", columns: 5)
        insertBuilding = try BatchInsert(
            db: db,
            into: """
                buildings(id, kind, osm_id, building, name, addr, levels, level, centroid_lat, centroid_lon, area,
                    outline, cell, names, addresses)
                """, columns: 15)
        insertLink = try BatchInsert(db: db, into: "outline_entrances(building, entrance)", columns: 2)
        insertWhole = try db.prepare("INSERT INTO scratch.whole(token, building) VALUES (?, ?)")
        ways = try WayStore(db: db)
    }

    /// Stores one element.
    func add(_ element: OSMElement) throws { try add(PreparedElement(element)) }

    /// Stores one element, prepared (perhaps on another thread).
    func add(_ element: PreparedElement) throws {
        switch element {
        case .entrance(let e):
            try insertEntrance.add([.int(e.id), .double(e.lat), .double(e.lon), .text(e.tags), .int(e.cell)])
            entranceIDs.insert(e.id)
            if let words = e.words { entranceWords[e.id] = words }
            summary.entrances += 1
            bounds = DoorIndexBounds(minLat: e.lat, maxLat: e.lat, minLon: e.lon, maxLon: e.lon).union(bounds)
        case .place(let lat, let lon, let words):
            places.add(lat: lat, lon: lon, words: words)
        case .way(let id, let nodes, let building):
            // Every way may be a relation's member: keep its nodes until the relations are read.
            try ways.add(id: id, nodes: nodes)
            if let building { try store(building) }
        case .relation(let relation):
            try add(relation)
        case .nothing:
            break
        }
    }

    private func add(_ relation: OSMRelation) throws {
        guard OSMDoors.isBuilding(relation.tags) else { return }
        var rings: [BuildingOutline.Ring] = []
        var ids: [Int64] = []
        var located: [Int64: Coordinate] = [:]
        for role in [BuildingOutline.Ring.Role.outer, .inner] {
            let members = relation.members.filter {
                $0.type == "way" && ($0.role == "inner") == (role == .inner) && $0.role != "part"
            }
            var chains: [[Int64]] = []
            for member in members {
                guard let blob = try ways.nodes(of: member.ref), let nodes = WayBlob.decode(blob),
                    !nodes.isEmpty
                else { continue }
                for (id, location) in nodes { if let location { located[id] = location } }
                chains.append(nodes.map(\.id))
            }
            for ring in BuildingAssembly.joinRings(chains) {
                var open = ring
                if open.count > 1 && open.first == open.last { open.removeLast() }
                let present = open.filter { located[$0] != nil }
                ids += present
                if !present.isEmpty { rings.append(.init(role: role, points: present.map { located[$0]! })) }
            }
        }
        try store(
            PreparedBuilding(
                kind: .relation, id: relation.id, tags: relation.tags, outline: BuildingOutline(rings: rings),
                nodeIDs: ids))
    }

    private func store(_ b: PreparedBuilding) throws {
        guard let row = DoorIndexSchema.row(kind: b.kind, osmID: b.id) else {
            throw OSMError(
                path: source, element: "\(b.kind.rawValue) \(b.id)",
                reason: "an OSM id beyond ±\(DoorIndexSchema.osmIDLimit) (not stored by the door index)")
        }
        var names = [b.names]
        for entrance in b.nodeIDs where entranceIDs.contains(entrance) {
            try insertLink.add([.int(row), .int(entrance)])
            onOutline.insert(entrance)
            if let words = entranceWords[entrance] { names.append(words) }
        }
        let ownText = SearchText.alternatives(names)
        // The shops and offices inside, for which it is the best building so far.
        let taken = places.take(row: row, building: b, base: ownText)
        let nameText = SearchText.names(own: ownText, places: taken.map { places.places[$0].words })
        func text(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
        try insertBuilding.add([
            .int(row), .text(b.kind.rawValue), .int(b.id), .text(b.building), text(b.name), .text(b.addr),
            text(b.levels), text(b.level), b.centroid.map { .double($0.latitude) } ?? .null,
            b.centroid.map { .double($0.longitude) } ?? .null, .double(b.area), .blob(b.outline),
            b.cell.map(SQLValue.int) ?? .null, .text(nameText), .text(b.addresses),
        ])
        if let wordRows {
            wordRows.add(row: row, names: nameText, addresses: b.addresses)
            // A country: its word index is made from the table at the end.
            if wordRows.isFull { self.wordRows = nil }
        }
        if let box = b.box, let cell = b.cell {
            levels.insert(SpatialCells.level(cell))
            bounds = DoorIndexBounds(
                minLat: box.minLat, maxLat: box.maxLat, minLon: box.minLon, maxLon: box.maxLon
            )
            .union(bounds)
        } else {
            summary.withoutOutline += 1
        }
        // The entrances' names are whole tokens of the building too.
        for token in b.whole + names.dropFirst().flatMap(SearchText.wholeTokens) {
            try addWhole(token, row: row)
        }
        switch b.kind {
        case .way: summary.buildingWays += 1
        case .relation: summary.buildingRelations += 1
        }
    }

    private func addWhole(_ token: String, row: Int64) throws {
        if spilled { return try insertWhole.run([.text(token), .int(row)]) }
        whole.add(token, building: row)
        if whole.isFull {
            // A country: from here on the tokens wait in the scratch table.
            try whole.insert(with: try db.prepare(WholeTokens.insertStatement(into: "scratch.whole")))
            whole.removeAll()
            spilled = true
        }
    }

    /// Makes the indexes, mends the text of the buildings whose shops and offices moved,
    /// fills the word index (on a thread and database of its own while its rows fit in
    /// memory, ``WordIndexRows``) and `building_whole` in order, commits, and analyzes.
    /// Returns what was stored.
    /// - Parameter progress: a line as each step starts (a country's take a minute).
    func finish(progress: (String) -> Void = { _ in }) throws -> DoorImportSummary {
        for rows in [insertEntrance, insertBuilding, insertLink] { try rows.flush() }
        // The tokens in memory are sorted on a thread of their own meanwhile.
        let sorted = DispatchSemaphore(value: 0)
        if !spilled {
            let whole = self.whole
            let sorting = Thread {
                whole.sort()
                sorted.signal()
            }
            sorting.name = "pathfinder-sort"
            sorting.start()
        }
        // The word index is made meanwhile too, on a thread and database of its own, from the
        // rows kept in memory; the text of the buildings whose places move below is mended
        // in it once it is copied in.
        let words = wordRows.map { WordIndexJob($0, path: Self.wordsPath(for: path)) }
        defer { words?.discard() }
        if words != nil { progress("indexing the words of names and addresses") }
        progress("making the indexes")
        try db.execute(DoorIndexSchema.indexes)
        progress(
            "finding the buildings of \(places.places.count) named shops, offices and amenities, and addresses mapped as points"
        )
        // The places' tokens, for `places_whole`: in memory while the buildings' fit.
        let placesWhole = WholeTokens()
        let insertPlace = try db.prepare("INSERT INTO scratch.places(token, building) VALUES (?, ?)")
        let mended = try attachPlacesInside { token, row in
            if spilled {
                try insertPlace.run([.text(token), .int(row)])
            } else {
                placesWhole.add(token, building: row)
            }
        }
        if words == nil {
            progress("indexing the words of names and addresses")
            // One statement for every row: FTS5's cost a statement (a virtual table's
            // transaction and savepoint calls) was most of its ≈ 2 s at 10⁶ buildings, row by
            // row; all at once it is ≈ 0.5 s.
            try db.execute(
                """
                INSERT INTO building_search(rowid, names, addresses)
                SELECT id, names, addresses FROM buildings WHERE names != '' OR addresses != '' ORDER BY id
                """)
        }
        progress("sorting the whole names and addresses")
        // Sorted first: the B-tree is written left to right, each page once.
        if spilled {
            try db.execute(
                """
                INSERT OR IGNORE INTO building_whole(token, building)
                SELECT token, building FROM scratch.whole ORDER BY token, building;
                INSERT OR IGNORE INTO places_whole(token, building)
                SELECT token, building FROM scratch.places ORDER BY token, building;
                """)
        } else {
            placesWhole.sort()
            sorted.wait()
            try whole.insert(with: try db.prepare(WholeTokens.insertStatement(into: "building_whole")))
            try placesWhole.insert(with: try db.prepare(WholeTokens.insertStatement(into: "places_whole")))
            whole.removeAll()
        }
        if let words {
            try words.wait()
            wordRows = nil
            try db.execute(
                "ATTACH DATABASE '\(words.path.replacingOccurrences(of: "'", with: "''"))' AS words")
            try db.execute(DoorIndexSchema.copyWordIndex)
            try mend(mended)
        }
        summary.entrancesOnOutlines = onOutline.count
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)")
        try meta.run(["bounds", .text(bounds?.metaText ?? "")])
        try meta.run(["cell_levels", .text(levels.sorted().map(String.init).joined(separator: ","))])
        try db.execute("COMMIT")
        try db.execute("DETACH DATABASE scratch")
        if words != nil { try db.execute("DETACH DATABASE words") }
        progress("analyzing")
        // Statistics from a sample of each index: the query planner needs no more, and a full
        // ANALYZE would read a country's tables once more.
        try db.execute("PRAGMA analysis_limit = 1000; ANALYZE")
        return summary
    }

    /// A building's names written again (``attachPlacesInside(addWhole:)``).
    private struct MendedText {
        var row: Int64
        var before: String
        var after: String
        var addresses: String
    }

    /// Places the shops and offices that came after the buildings, and writes again the text
    /// of the buildings whose places changed since they were stored; every place's words
    /// become whole tokens of its building's places (handed to `addWhole`). Returns what was
    /// written again.
    private func attachPlacesInside(addWhole: (String, Int64) throws -> Void) throws -> [MendedText] {
        let levels = self.levels.sorted()
        for index in places.late {
            let point = places.places[index].point
            places.place(index, in: try DoorIndex.smallestBuilding(containing: point, db: db, levels: levels))
        }
        let select = try db.prepare("SELECT names, addresses FROM buildings WHERE id = ?")
        let update = try db.prepare("UPDATE buildings SET names = ? WHERE id = ?")
        var mended: [MendedText] = []
        for change in places.changed() {
            var stored = ""
            var addresses = ""
            try select.forEach([.int(change.row)]) {
                stored = $0.text(0) ?? ""
                addresses = $0.text(1) ?? ""
            }
            // Without a base, it was stored before it took any place: its text is its own.
            let all = SearchText.names(own: change.base ?? stored, places: change.words)
            try update.run([.text(all), .int(change.row)])
            mended.append(MendedText(row: change.row, before: stored, after: all, addresses: addresses))
        }
        let placed = places.placed
        summary.placesInside = placed.count
        for (row, words) in placed {
            for token in SearchText.wholeTokens(words) { try addWhole(token, row) }
        }
        return mended
    }

    /// Writes the mended text into a word index made from the text as first stored: an
    /// external-content FTS5 table forgets a row by being given the text it indexed.
    private func mend(_ mended: [MendedText]) throws {
        let forget = try db.prepare(
            "INSERT INTO building_search(building_search, rowid, names, addresses) VALUES ('delete', ?, ?, ?)"
        )
        let index = try db.prepare("INSERT INTO building_search(rowid, names, addresses) VALUES (?, ?, ?)")
        for m in mended {
            if !m.before.isEmpty || !m.addresses.isEmpty {
                try forget.run([.int(m.row), .text(m.before), .text(m.addresses)])
            }
            if !m.after.isEmpty || !m.addresses.isEmpty {
                try index.run([.int(m.row), .text(m.after), .text(m.addresses)])
            }
        }
    }

}

/// A way's nodes in the scratch table: per node its id (Int64) and location (two Int32 in
/// 1e-7 degrees, `Int32.min` when the node is missing), little-endian.
enum WayBlob {
    static func encode(_ ids: [Int64], _ locations: [Coordinate?]) -> [UInt8] {
        let count = min(ids.count, locations.count)
        // Written in place: a million ways a country, appending byte runs cost more.
        return [UInt8](unsafeUninitializedCapacity: count * 16) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for i in 0..<count {
                let location = locations[i]
                let lat = location.map { Int32(($0.latitude * 1e7).rounded()) } ?? .min
                let lon = location.map { Int32(($0.longitude * 1e7).rounded()) } ?? .min
                raw.storeBytes(of: ids[i].littleEndian, toByteOffset: i * 16, as: Int64.self)
                raw.storeBytes(of: lat.littleEndian, toByteOffset: i * 16 + 8, as: Int32.self)
                raw.storeBytes(of: lon.littleEndian, toByteOffset: i * 16 + 12, as: Int32.self)
            }
            initialized = count * 16
        }
    }

    static func decode(_ blob: [UInt8]) -> [(id: Int64, location: Coordinate?)]? {
        guard blob.count % 16 == 0 else { return nil }
        return blob.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count, by: 16).map { at in
                let id = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))
                let lat = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: Int32.self))
                let lon = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 12, as: Int32.self))
                guard lat != .min else { return (id, nil) }
                return (id, Coordinate(latitude: Double(lat) / 1e7, longitude: Double(lon) / 1e7))
            }
        }
    }
}

/// Tags as a JSON object with sorted keys, without `JSONEncoder`'s cost per building.
enum JSONText {
    /// - Parameter keep: which keys go in (all of them by default).
    static func object(_ tags: [String: String], keeping keep: (String) -> Bool = { _ in true }) -> String {
        // The kept pairs only are sorted: a building keeps its few `addr:*` of all its tags.
        var pairs: [(key: String, value: String)] = []
        for (key, value) in tags where keep(key) { pairs.append((key, value)) }
        pairs.sort { $0.key < $1.key }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(pairs.reduce(2) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
        for (key, value) in pairs {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            string(key, into: &out)
            out.append(UInt8(ascii: ":"))
            string(value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func string(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text needs no escape: its bytes in one copy.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\n"): out += Array("\\n".utf8)
            case UInt8(ascii: "\r"): out += Array("\\r".utf8)
            case UInt8(ascii: "\t"): out += Array("\\t".utf8)
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            // Multi-byte UTF-8 passes through whole: its bytes are all ≥ 0x80.
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
