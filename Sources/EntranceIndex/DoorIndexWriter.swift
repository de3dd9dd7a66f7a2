import Foundation
import Geo
import OSM
import SQLite

/// Writes a door index from a stream of OSM elements (nodes, then ways, then relations),
/// one element at a time: nothing but the entrance ids and the summary is held in memory.
///
/// Ways wait in a scratch database (SQLite's temporary file, gone when the connection
/// closes) in case a multipolygon relation later names them; named shops, offices and
/// amenities wait there too until every outline is stored, then join the search text of
/// the building that contains them. Everything is written in one transaction with
/// prepared statements; the caller renames the file into place.
final class DoorIndexWriter {
    let db: Connection
    private var summary = DoorImportSummary(
        entrances: 0, buildingWays: 0, buildingRelations: 0, withoutOutline: 0, entrancesOnOutlines: 0)
    private var entranceIDs = Set<Int64>()
    /// The folded `name` and `ref` of entrances that have them: they find their building.
    private var entranceWords: [Int64: String] = [:]
    private var onOutline = Set<Int64>()
    private var bounds = Bounds()
    private var row: Int64 = 0

    private let insertEntrance: Statement
    private let insertEntranceBox: Statement
    private let insertBuilding: Statement
    private let insertBuildingBox: Statement
    private let insertLink: Statement
    private let insertSearch: Statement
    private let insertWhole: Statement
    private let insertWay: Statement
    private let selectWay: Statement
    private let insertPOI: Statement

    init(path: String, source: String) throws {
        db = try Connection(path: path, mode: .readWrite)
        // A temporary file renamed at the end: no journal needed, a crash just loses it.
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384;")
        try db.execute(DoorIndexSchema.create)
        try db.execute(
            """
            ATTACH DATABASE '' AS scratch;
            PRAGMA scratch.journal_mode = OFF;
            CREATE TABLE scratch.ways(id INTEGER PRIMARY KEY, nodes BLOB NOT NULL);
            CREATE TABLE scratch.pois(lat REAL NOT NULL, lon REAL NOT NULL, words TEXT NOT NULL);
            """)
        try db.execute("BEGIN")
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)")
        try meta.run(["version", .text(String(DoorIndexSchema.version))])
        try meta.run(["source", .text(source)])
        insertEntrance = try db.prepare("INSERT INTO entrances(id, lat, lon, tags) VALUES (?, ?, ?, ?)")
        insertEntranceBox = try db.prepare(
            "INSERT INTO entrances_rtree(id, minLat, maxLat, minLon, maxLon) VALUES (?, ?, ?, ?, ?)")
        insertBuilding = try db.prepare(
            """
            INSERT INTO buildings(id, kind, osm_id, building, name, addr, levels, level, centroid_lat,
                centroid_lon, area, outline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertBuildingBox = try db.prepare(
            "INSERT INTO buildings_rtree(id, minLat, maxLat, minLon, maxLon) VALUES (?, ?, ?, ?, ?)")
        insertLink = try db.prepare("INSERT INTO outline_entrances(building, entrance) VALUES (?, ?)")
        insertSearch = try db.prepare("INSERT INTO building_search(rowid, names, addresses) VALUES (?, ?, ?)")
        insertWhole = try db.prepare("INSERT INTO building_whole(rowid, whole) VALUES (?, ?)")
        insertWay = try db.prepare("INSERT OR REPLACE INTO scratch.ways(id, nodes) VALUES (?, ?)")
        selectWay = try db.prepare("SELECT nodes FROM scratch.ways WHERE id = ?")
        insertPOI = try db.prepare("INSERT INTO scratch.pois(lat, lon, words) VALUES (?, ?, ?)")
    }

    /// Stores one element.
    func add(_ element: OSMElement) throws {
        switch element {
        case .node(let node): try add(node)
        case .way(let way, let locations): try add(way, locations: locations)
        case .relation(let relation): try add(relation)
        }
    }

    private func add(_ node: OSMNode) throws {
        let lat = node.coordinate.latitude
        let lon = node.coordinate.longitude
        if node.tags["entrance"] != nil {
            try insertEntrance.run([
                .int(node.id), .double(lat), .double(lon), .text(JSONText.object(node.tags)),
            ])
            try insertEntranceBox.run([.int(node.id), .double(lat), .double(lat), .double(lon), .double(lon)])
            entranceIDs.insert(node.id)
            let words = [node.tags["name"], node.tags["ref"]].compactMap { $0 }.map(SearchText.normalize)
                .filter { !$0.isEmpty }
            if !words.isEmpty { entranceWords[node.id] = words.joined(separator: SearchText.separator) }
            summary.entrances += 1
            bounds.add(lat, lon, lat, lon)
        } else if SearchText.isPlaceInside(node.tags) {
            let words = SearchText.names(node.tags)
            if !words.isEmpty { try insertPOI.run([.double(lat), .double(lon), .text(words)]) }
        }
    }

    private func add(_ way: OSMWay, locations: [Coordinate?]) throws {
        // Every way may be a relation's member: keep its nodes until the relations are read.
        try insertWay.run([.int(way.id), .blob(WayBlob.encode(way.nodeIDs, locations))])
        guard way.tags["building"] != nil else { return }
        var ids = way.nodeIDs
        var points = locations
        if ids.count > 1 && ids.first == ids.last {
            ids.removeLast()
            points.removeLast()
        }
        var present: [Int64] = []
        var coordinates: [Coordinate] = []
        for (id, point) in zip(ids, points) {
            if let point {
                present.append(id)
                coordinates.append(point)
            }
        }
        let rings = coordinates.isEmpty ? [] : [BuildingOutline.Ring(role: .outer, points: coordinates)]
        try store(
            kind: .way, id: way.id, tags: way.tags, outline: BuildingOutline(rings: rings), nodeIDs: present)
    }

    private func add(_ relation: OSMRelation) throws {
        guard relation.tags["building"] != nil else { return }
        var rings: [BuildingOutline.Ring] = []
        var ids: [Int64] = []
        var located: [Int64: Coordinate] = [:]
        for role in [BuildingOutline.Ring.Role.outer, .inner] {
            let members = relation.members.filter {
                $0.type == "way" && ($0.role == "inner") == (role == .inner) && $0.role != "part"
            }
            var chains: [[Int64]] = []
            for member in members {
                var blob: [UInt8]?
                try selectWay.forEach([.int(member.ref)]) { blob = $0.blob(0) }
                guard let blob, let nodes = WayBlob.decode(blob), !nodes.isEmpty else { continue }
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
            kind: .relation, id: relation.id, tags: relation.tags, outline: BuildingOutline(rings: rings),
            nodeIDs: ids)
    }

    private func store(
        kind: Building.Kind, id: Int64, tags: [String: String], outline: BuildingOutline,
        nodeIDs: [Int64]
    ) throws {
        row += 1
        let addr = tags.filter { $0.key.hasPrefix("addr:") }
        let centroid = outline.centroid
        func text(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
        try insertBuilding.run([
            .int(row), .text(kind.rawValue), .int(id), .text(tags["building"] ?? "yes"),
            text(tags["name"]), .text(JSONText.object(addr)),
            text(tags["building:levels"]), text(tags["level"]),
            centroid.map { .double($0.latitude) } ?? .null,
            centroid.map { .double($0.longitude) } ?? .null,
            .double(outline.area), .blob(outline.blob),
        ])
        if let box = outline.bounds {
            try insertBuildingBox.run([
                .int(row), .double(box.minLat), .double(box.maxLat), .double(box.minLon), .double(box.maxLon),
            ])
            bounds.add(box.minLat, box.minLon, box.maxLat, box.maxLon)
        } else {
            summary.withoutOutline += 1
        }
        var names = [SearchText.names(tags)]
        for entrance in Set(nodeIDs).sorted() where entranceIDs.contains(entrance) {
            try insertLink.run([.int(row), .int(entrance)])
            onOutline.insert(entrance)
            if let words = entranceWords[entrance] { names.append(words) }
        }
        let addresses = SearchText.addresses(tags)
        let nameText = names.filter { !$0.isEmpty }.joined(separator: SearchText.separator)
        if !nameText.isEmpty || !addresses.isEmpty {
            try insertSearch.run([.int(row), .text(nameText), .text(addresses)])
            try insertWhole.run([.int(row), .text(SearchText.wholeTokens(nameText, addresses))])
        }
        switch kind {
        case .way: summary.buildingWays += 1
        case .relation: summary.buildingRelations += 1
        }
    }

    /// Joins the waiting shops and offices to the buildings holding them, commits, and
    /// analyzes. Returns what was stored.
    func finish() throws -> DoorImportSummary {
        try attachPlacesInside()
        summary.entrancesOnOutlines = onOutline.count
        try db.prepare("INSERT INTO meta(key, value) VALUES ('bounds', ?)").run([.text(bounds.text)])
        try db.execute("COMMIT")
        try db.execute("DETACH DATABASE scratch")
        // Statistics from a sample of each index: the query planner needs no more, and a full
        // ANALYZE would read a country's tables once more.
        try db.execute("PRAGMA analysis_limit = 1000; ANALYZE")
        return summary
    }

    private func attachPlacesInside() throws {
        let candidates = try db.prepare(
            """
            SELECT b.id, b.area, b.outline FROM buildings_rtree r JOIN buildings b ON b.id = r.id
            WHERE r.minLat <= ?1 AND r.maxLat >= ?1 AND r.minLon <= ?2 AND r.maxLon >= ?2
            """)
        var extra: [Int64: [String]] = [:]
        try db.prepare("SELECT lat, lon, words FROM scratch.pois ORDER BY rowid").forEach { poi in
            let point = Coordinate(latitude: poi.double(0), longitude: poi.double(1))
            let words = poi.text(2) ?? ""
            var best: (id: Int64, area: Double)?
            try candidates.forEach([.double(point.latitude), .double(point.longitude)]) { b in
                let area = b.double(1)
                guard area < (best?.area ?? .infinity), let outline = BuildingOutline(blob: b.blob(2)),
                    outline.contains(point)
                else { return }
                best = (b.int(0), area)
            }
            if let best {
                extra[best.id, default: []].append(words)
                summary.placesInside += 1
            }
        }
        let select = try db.prepare("SELECT names, addresses FROM building_search WHERE rowid = ?")
        let replace = try db.prepare("INSERT INTO building_search(rowid, names, addresses) VALUES (?, ?, ?)")
        let delete = try db.prepare("DELETE FROM building_search WHERE rowid = ?")
        let deleteWhole = try db.prepare("DELETE FROM building_whole WHERE rowid = ?")
        for (id, words) in extra.sorted(by: { $0.key < $1.key }) {
            var names = ""
            var addresses = ""
            try select.forEach([.int(id)]) {
                names = $0.text(0) ?? ""
                addresses = $0.text(1) ?? ""
            }
            try delete.run([.int(id)])
            try deleteWhole.run([.int(id)])
            let all = ([names] + words).filter { !$0.isEmpty }.joined(separator: SearchText.separator)
            try replace.run([.int(id), .text(all), .text(addresses)])
            try insertWhole.run([.int(id), .text(SearchText.wholeTokens(all, addresses))])
        }
    }

    /// The smallest latitude/longitude box around everything stored.
    struct Bounds {
        var minLat = Double.infinity
        var maxLat = -Double.infinity
        var minLon = Double.infinity
        var maxLon = -Double.infinity

        mutating func add(_ lowLat: Double, _ lowLon: Double, _ highLat: Double, _ highLon: Double) {
            minLat = min(minLat, lowLat)
            maxLat = max(maxLat, highLat)
            minLon = min(minLon, lowLon)
            maxLon = max(maxLon, highLon)
        }

        /// "minLat,maxLat,minLon,maxLon"; empty for an empty index.
        var text: String { minLat.isFinite ? "\(minLat),\(maxLat),\(minLon),\(maxLon)" : "" }
    }
}

/// A way's nodes in the scratch table: per node its id (Int64) and location (two Int32 in
/// 1e-7 degrees, `Int32.min` when the node is missing), little-endian.
enum WayBlob {
    static func encode(_ ids: [Int64], _ locations: [Coordinate?]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(ids.count * 16)
        for (id, location) in zip(ids, locations) {
            withUnsafeBytes(of: id.littleEndian) { out += $0 }
            let lat = location.map { Int32(($0.latitude * 1e7).rounded()) } ?? .min
            let lon = location.map { Int32(($0.longitude * 1e7).rounded()) } ?? .min
            withUnsafeBytes(of: lat.littleEndian) { out += $0 }
            withUnsafeBytes(of: lon.littleEndian) { out += $0 }
        }
        return out
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
    static func object(_ tags: [String: String]) -> String {
        var out = "{"
        for (i, key) in tags.keys.sorted().enumerated() {
            if i > 0 { out += "," }
            string(key, into: &out)
            out += ":"
            string(tags[key]!, into: &out)
        }
        return out + "}"
    }

    private static func string(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
