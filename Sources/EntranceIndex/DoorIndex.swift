public import Arrival
import Diagnostics
import Foundation
public import Geo
public import OSM
import SQLite

/// A building from the door index.
public struct Building: Sendable, Hashable {
    /// Whether the building is an OSM way or a multipolygon relation.
    public enum Kind: String, Sendable, Hashable {
        case way
        case relation
    }

    public var kind: Kind
    /// The OSM id of the way or relation.
    public var id: Int64
    /// The `building=*` value ("yes", "apartments", "train_station").
    public var building: String
    public var name: String?
    /// The `addr:*` tags, keys without the `addr:` prefix ("street", "housenumber").
    public var address: [String: String]
    /// `building:levels`, as OSM writes it.
    public var levels: String?
    /// `level`, as OSM writes it.
    public var level: String?
    /// The area-weighted centre of the outline: doors are ranked around it.
    public var centroid: Coordinate
    public var outline: BuildingOutline
    /// Metres from the point asked about to the outline; 0 when the point is inside.
    public var metres: Double

    /// "way/49209325", as OpenStreetMap's web addresses name it (``Destination/osm``).
    public var osm: String { "\(kind.rawValue)/\(id)" }
}

/// What `doors near` answers: the building there (if any) and its doors, ranked.
public struct DoorsNearResult: Sendable, Hashable {
    /// The building containing the point, or the nearest within 50 m; nil when none.
    public var building: Building?
    /// The doors, best first, by `OSMDoors.ranked(_:around:)`.
    public var doors: [Door]
    /// The point the doors were ranked around: the building's centroid, else the query point.
    public var center: Coordinate

    /// As the core takes it: a building's doors and outline, or, with no building, the
    /// entrances near.
    public var answer: OSMAnswer {
        building.map { .building(doors: doors, outline: $0.outline) } ?? .noBuilding(entrances: doors)
    }
}

/// A door index built by ``DoorImporter``, opened read-only and immutable.
///
/// Not thread-safe (one SQLite connection): use one per thread.
public final class DoorIndex {
    /// A building this close to the point asked about is taken when none contains it.
    public static let nearestOutlineMetres = 50.0
    /// A loose entrance node (on no building's outline) this close to an outline belongs to
    /// that building: mappers often place the door a step outside or inside the wall.
    public static let looseEntranceMetres = 3.0

    let db: Connection
    /// One decoder for every row: making one costs more than decoding a door's tags.
    let decoder = JSONDecoder()
    public let path: String
    /// The box around everything the index holds; nil for an empty index.
    public private(set) var bounds: DoorIndexBounds?
    /// The ``SpatialCells`` levels that hold buildings.
    private(set) var cellLevels: [Int] = []
    /// Whether its search text folds full-width ASCII as ASCII (``DoorIndexSchema/narrowFold``);
    /// when not, a full-width query that finds nothing is asked again folded as it was made.
    private(set) var narrowsFullWidth = false
    /// Whether it keeps the names of the places inside buildings apart (`places_whole`,
    /// ``SearchText/placesSeparator``); one made before counts them as the building's own.
    private(set) var placesApart = false

    /// Opens the index at `path`.
    /// - Throws: ``DoorIndexError/notAnIndex(path:reason:)`` when the file is missing or is
    ///   not a door index of this version.
    public init(path: String) throws(DoorIndexError) {
        self.path = path
        // The real reason: before, a file that could not be reached was "no such file".
        if let problem = FileDiagnostics.unreadable(path) {
            throw .notAnIndex(path: path, reason: problem)
        }
        do {
            db = try Connection(path: path, mode: .readOnly(immutable: true))
            // An empty file or another program's database: said so, not as SQLite's "no such table".
            guard
                try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
                    == 1
            else {
                throw DoorIndexError.notAnIndex(
                    path: path,
                    reason: "no meta table (an empty file, or not made by `pathfinder doors import`)")
            }
            let statement = try db.prepare("SELECT value FROM meta WHERE key = 'version'")
            guard try statement.step(), let version = statement.text(0) else {
                throw DoorIndexError.notAnIndex(path: path, reason: "no version in its meta table")
            }
            guard version == String(DoorIndexSchema.version) else {
                throw DoorIndexError.notAnIndex(
                    path: path,
                    reason: "version \(version), expected \(DoorIndexSchema.version): import it again")
            }
            let box = try db.prepare("SELECT value FROM meta WHERE key = 'bounds'")
            if try box.step(), let text = box.text(0) { bounds = DoorIndexBounds(text) }
            let fold = try db.prepare("SELECT value FROM meta WHERE key = 'fold'")
            narrowsFullWidth = try fold.step() && fold.text(0) == DoorIndexSchema.narrowFold
            placesApart =
                try db.scalarInt(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'places_whole'") == 1
            let levels = try db.prepare("SELECT value FROM meta WHERE key = 'cell_levels'")
            if try levels.step(), let text = levels.text(0) {
                cellLevels = text.split(separator: ",").compactMap { Int($0) }
            }
        } catch let error as DoorIndexError {
            throw error
        } catch {
            throw .notAnIndex(path: path, reason: "\(error)")
        }
    }

    /// Whether the file at `path` is a door index of any version (a SQLite file whose `meta`
    /// table has a `version`): one an import may replace.
    static func isDoorIndex(_ path: String) -> Bool {
        // A regular file only: opening a FIFO waits for a writer for ever (before: `doors
        // import --out FIFO` hung).
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        guard let db = try? Connection(path: path, mode: .readOnly(immutable: false)),
            let found = try? db.scalarInt(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'"),
            found == 1
        else { return false }
        return (try? db.scalarInt("SELECT count(*) FROM meta WHERE key = 'version'")) == 1
    }

    /// Counts of what the index holds.
    public func counts() throws -> (entrances: Int, buildings: Int) {
        (
            Int(try db.scalarInt("SELECT count(*) FROM entrances") ?? 0),
            Int(try db.scalarInt("SELECT count(*) FROM buildings") ?? 0)
        )
    }

    /// The building whose outline contains `point`; when several do (a building relation
    /// and one of its own member ways, say), the smallest.
    public func building(at point: Coordinate) throws -> Building? {
        guard let row = try Self.smallestBuilding(containing: point, db: db, levels: cellLevels) else {
            return nil
        }
        return try building(row: row)
    }

    /// The row of the smallest building whose outline contains `point` (on equal areas the
    /// lowest row): the reader's ``building(at:)``, and the building the import gives a shop
    /// or office inside it.
    /// - Parameter levels: the ``SpatialCells`` levels that hold buildings.
    static func smallestBuilding(containing point: Coordinate, db: Connection, levels: [Int]) throws -> Int64?
    {
        let candidates = try db.cached("SELECT id, area, outline FROM buildings WHERE cell BETWEEN ? AND ?")
        var best: (row: Int64, area: Double)?
        for range in SpatialCells.ranges(
            minLat: point.latitude, maxLat: point.latitude, minLon: point.longitude, maxLon: point.longitude,
            levels: levels)
        {
            try candidates.forEach([.int(range.lowerBound), .int(range.upperBound)]) { b in
                let row = b.int(0)
                let area = b.double(1)
                if let best, (best.area, best.row) <= (area, row) { return }
                guard let outline = BuildingOutline(blob: b.blob(2)), outline.contains(point) else { return }
                best = (row, area)
            }
        }
        return best?.row
    }

    /// The building whose outline passes nearest to `point`, if within `metres`.
    public func nearestBuilding(
        to point: Coordinate, within metres: Double = nearestOutlineMetres
    ) throws -> Building? {
        var best: Building?
        try forEachBuilding(within: metres, of: point) { b in
            let d = b.outline.distanceToEdge(from: point)
            if d <= metres && d < (best?.metres ?? .infinity) {
                var b = b
                b.metres = d
                best = b
            }
        }
        return best
    }

    /// The ranked doors around `point`.
    ///
    /// The building that contains the point, or else the nearest outline within 50 m; its
    /// doors are the entrance nodes on its outline, plus loose entrance nodes (on no
    /// outline) within 3 m of it, ranked around its centroid. With no building, the entrance
    /// nodes within `radius` metres, ranked around the point.
    public func doors(near point: Coordinate, radius: Double = 150) throws -> DoorsNearResult {
        guard let building = try building(at: point) ?? nearestBuilding(to: point) else {
            let nodes = try entrances(within: radius, of: point)
            return DoorsNearResult(building: nil, doors: OSMDoors.ranked(nodes, around: point), center: point)
        }
        return try doors(of: building)
    }

    /// The ranked doors of the building `osm` names ("way/2008", ``Destination/osm``), the
    /// building a search found, when this index holds it; else, or without `osm`,
    /// ``doors(near:radius:)`` at `point`. Before, always the latter: an L-shaped building's
    /// centroid lying in the neighbour in its corner gave the neighbour's doors, and Helsinki
    /// Cathedral's, in a small building in its middle, none.
    public func doors(
        ofBuilding osm: String?, near point: Coordinate, radius: Double = 150
    ) throws
        -> DoorsNearResult
    {
        if let osm, let found = try doors(ofBuilding: osm) { return found }
        return try doors(near: point, radius: radius)
    }

    /// The ranked doors of the building `osm` names, nil when this index does not hold it.
    func doors(ofBuilding osm: String) throws -> DoorsNearResult? {
        try building(osm: osm).map(doors(of:))
    }

    /// The building `osm` names ("way/2008", ``Destination/osm``), nil when this index does
    /// not hold it.
    func building(osm: String) throws -> Building? {
        guard let element = Destination.osmElement(osm), let kind = Building.Kind(rawValue: element.kind),
            let row = DoorIndexSchema.row(kind: kind, osmID: element.id)
        else { return nil }
        return try building(row: row)
    }

    /// `building`'s doors, ranked around its centroid.
    func doors(of building: Building) throws -> DoorsNearResult {
        DoorsNearResult(
            building: building,
            doors: OSMDoors.ranked(try entrances(of: building), around: building.centroid),
            center: building.centroid)
    }

    /// The entrance nodes of `building`: those on its outline and the loose ones near it.
    public func entrances(of building: Building) throws -> [OSMNode] {
        var nodes: [OSMNode] = []
        try db.cached(
            """
            SELECT e.id, e.lat, e.lon, e.tags FROM buildings b
            JOIN outline_entrances o ON o.building = b.id JOIN entrances e ON e.id = o.entrance
            WHERE b.id = ? ORDER BY e.id
            """
        ).forEach([.int(DoorIndexSchema.row(kind: building.kind, osmID: building.id) ?? 0)]) { row in
            nodes.append(try self.node(row))
        }
        guard let box = building.outline.bounds else { return nodes }
        let pad = Self.looseEntranceMetres
        let dLat = pad / Coordinate.earthRadiusMetres * 180 / .pi
        let dLon = dLat / max(cos(box.maxLat * .pi / 180), 1e-6)
        for node in try entrances(
            minLat: box.minLat - dLat, maxLat: box.maxLat + dLat, minLon: box.minLon - dLon,
            maxLon: box.maxLon + dLon, looseOnly: true)
        where building.outline.distanceToEdge(from: node.coordinate) <= pad {
            nodes.append(node)
        }
        return nodes
    }

    /// Every entrance node within `metres` (great circle) of `point`, by OSM id.
    public func entrances(within metres: Double, of point: Coordinate) throws -> [OSMNode] {
        let box = Self.box(metres, around: point)
        return try entrances(minLat: box.minLat, maxLat: box.maxLat, minLon: box.minLon, maxLon: box.maxLon)
            .filter { $0.coordinate.distance(to: point) <= metres }
    }

    /// Every entrance node inside the latitude/longitude box from `low` to `high`, by id.
    public func entrances(inBox low: Coordinate, _ high: Coordinate) throws -> [OSMNode] {
        try entrances(
            minLat: low.latitude, maxLat: high.latitude, minLon: low.longitude, maxLon: high.longitude)
    }

    /// The entrance nodes inside a box, by OSM id (the cells hold more: only the box is kept).
    /// - Parameter looseOnly: only those on no building's outline.
    private func entrances(
        minLat: Double, maxLat: Double, minLon: Double, maxLon: Double, looseOnly: Bool = false
    ) throws -> [OSMNode] {
        let loose = "AND NOT EXISTS (SELECT 1 FROM outline_entrances o WHERE o.entrance = e.id)"
        let statement = try db.cached(
            "SELECT e.id, e.lat, e.lon, e.tags FROM entrances e WHERE e.cell BETWEEN ? AND ? \(looseOnly ? loose : "")"
        )
        var nodes: [OSMNode] = []
        for range in SpatialCells.ranges(
            minLat: minLat, maxLat: maxLat, minLon: minLon, maxLon: maxLon, levels: [0], points: true)
        {
            try statement.forEach([.int(range.lowerBound), .int(range.upperBound)]) { row in
                let lat = row.double(1)
                let lon = row.double(2)
                // A box past ±180 (a building's across the antimeridian) holds it a turn on.
                guard lat >= minLat && lat <= maxLat,
                    [lon, lon + 360, lon - 360].contains(where: { $0 >= minLon && $0 <= maxLon })
                else { return }
                nodes.append(try self.node(row))
            }
        }
        return nodes.sorted { $0.id < $1.id }
    }

    /// Calls `body` with every building whose cell may lie within `metres` of `point` (more
    /// than those: the caller's exact test decides), by row id.
    private func forEachBuilding(
        within metres: Double, of point: Coordinate, _ body: (Building) -> Void
    ) throws {
        let box = Self.box(metres, around: point)
        let statement = try db.cached(
            """
            SELECT id, kind, osm_id, building, name, addr, levels, level, centroid_lat, centroid_lon, area,
                outline
            FROM buildings WHERE cell BETWEEN ? AND ?
            """)
        var found: [(row: Int64, building: Building)] = []
        for range in SpatialCells.ranges(
            minLat: box.minLat, maxLat: box.maxLat, minLon: box.minLon, maxLon: box.maxLon, levels: cellLevels
        ) {
            try statement.forEach([.int(range.lowerBound), .int(range.upperBound)]) { row in
                if let b = self.building(row, metres: .infinity) { found.append((row.int(0), b)) }
            }
        }
        for (_, b) in found.sorted(by: { $0.row < $1.row }) { body(b) }
    }

    /// A latitude/longitude box holding the circle of `metres` around `point` (the Mercator
    /// rectangle of `Geo`, which is exact at any latitude, turned back into degrees).
    static func box(
        _ metres: Double, around point: Coordinate
    ) -> (
        minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    ) {
        let rects = WebMercator.rects(within: metres, of: point)
        guard rects.count == 1, let r = rects.first else { return (-90, 90, -180, 180) }
        let low = WebMercator.unproject(MercatorPoint(x: r.minX, y: r.minY))
        let high = WebMercator.unproject(MercatorPoint(x: r.maxX, y: r.maxY))
        return (low.latitude, high.latitude, low.longitude, high.longitude)
    }

    func node(_ row: Statement) throws -> OSMNode {
        let tags = try decoder.decode([String: String].self, from: Data((row.text(3) ?? "{}").utf8))
        return OSMNode(
            id: row.int(0), coordinate: Coordinate(latitude: row.double(1), longitude: row.double(2)),
            tags: tags)
    }

    /// The `addr:*` of `tags` by the key's rest ("street", "housenumber"), composed (NFC) as
    /// they are shown and spoken; other tags left out.
    static func addressParts(_ tags: [String: String]) -> [String: String] {
        var parts: [String: String] = [:]
        for (key, value) in tags where key.hasPrefix("addr:") {
            parts[String(key.dropFirst("addr:".count))] = value.precomposedStringWithCanonicalMapping
        }
        return parts
    }

    func building(_ row: Statement, metres: Double) -> Building? {
        guard let outline = BuildingOutline(blob: row.blob(11)), !row.isNull(8) else { return nil }
        let addr = (try? decoder.decode([String: String].self, from: Data((row.text(5) ?? "{}").utf8))) ?? [:]
        // Composed (NFC) as they are shown and spoken: OSM holds some decomposed Hangul (NFD),
        // which espeak-ng reads jamo by jamo (a review heard it garbled), and an index made
        // before this was read keeps it so.
        return Building(
            kind: Building.Kind(rawValue: row.text(1) ?? "") ?? .way, id: row.int(2),
            building: row.text(3) ?? "yes",
            name: row.text(4)?.precomposedStringWithCanonicalMapping,
            address: Self.addressParts(addr),
            levels: row.text(6), level: row.text(7),
            centroid: Coordinate(latitude: row.double(8), longitude: row.double(9)), outline: outline,
            metres: metres)
    }
}
