import Geo

/// The named shops, offices and amenities of an import, each looking for the smallest
/// building whose outline holds it (on equal areas the lowest row, the rule of
/// ``DoorIndex/smallestBuilding(containing:db:levels:)``).
///
/// osmium writes every node before the first way, so the places are known before any
/// building is stored: each building, as it is stored, takes the places inside it for which
/// it is the best building so far, and its search text includes them at once. Placing them
/// all at the end instead (a query per place once every outline was stored, then the text
/// of their buildings written a second time) was ≈ 0.7 s on one thread at 10⁶ buildings.
/// A place a later, smaller building takes moves (nested buildings: rare); so does a place
/// that came after the buildings (input not in osmium's order), placed at the end. Only
/// the buildings whose places changed since they were stored are written again.
struct PlacesInside {
    struct Place {
        var point: Coordinate
        var words: String
        /// Its building so far.
        var best: (row: Int64, area: Double)?
    }

    private(set) var places: [Place] = []
    /// Places by cell (``SpatialCells`` keys at ``level``).
    private var grid: [Int64: [Int]] = [:]
    /// Places that came after the first building: placed by ``finish``.
    private(set) var late: [Int] = []
    private var buildingsSeen = false
    /// The places each building's stored text includes, in place order.
    private var included: [Int64: [Int]] = [:]
    /// The text of those buildings without their places.
    private var bases: [Int64: String] = [:]

    /// Cells 2⁻⁸° (≈ 430 m of latitude): a building's box touches one to four of them.
    static let level = 4

    mutating func add(lat: Double, lon: Double, words: String) {
        let index = places.count
        places.append(Place(point: Coordinate(latitude: lat, longitude: lon), words: words))
        if buildingsSeen {
            late.append(index)
        } else {
            grid[Self.key(lat, lon), default: []].append(index)
        }
    }

    /// The places building `row` takes as it is stored: those inside its outline for which
    /// it is the best building so far (their indices, in place order). Its text without
    /// them, `base`, is kept when it takes any.
    mutating func take(row: Int64, building b: PreparedBuilding, base: String) -> [Int] {
        buildingsSeen = true
        guard !grid.isEmpty, let box = b.box else { return [] }
        let level = Self.level
        let rows = SpatialCells.row(box.minLat, level: level)...SpatialCells.row(box.maxLat, level: level)
        // A box across the antimeridian runs on past 180: its east end is at −180 and on.
        var columns = [
            SpatialCells.column(
                box.minLon, level: level)...SpatialCells.column(min(box.maxLon, 180), level: level)
        ]
        if box.maxLon > 180 {
            columns.append(
                SpatialCells.column(-180, level: level)...SpatialCells.column(box.maxLon - 360, level: level))
        }
        // A hair wider than the box: the outline is tested as stored, rounded to 1e-7°.
        let e = 1e-6
        let near = DoorIndexBounds(
            minLat: box.minLat - e, maxLat: box.maxLat + e, minLon: box.minLon - e, maxLon: box.maxLon + e)
        var inBox: [Int] = []
        if rows.count * columns.reduce(0, { $0 + $1.count }) > grid.count {
            // A box larger than the places' cells (a campus in a village): read them all.
            for index in places.indices where near.contains(places[index].point) { inBox.append(index) }
        } else {
            for r in rows {
                for c in columns.joined() {
                    for index in grid[SpatialCells.key(level: level, row: r, column: c)] ?? []
                    where near.contains(places[index].point) {
                        inBox.append(index)
                    }
                }
            }
        }
        guard !inBox.isEmpty else { return [] }
        // The outline as stored (1e-7° points), as the reader would test it.
        guard let outline = BuildingOutline(blob: b.outline) else { return [] }
        var taken: [Int] = []
        for index in inBox.sorted() {
            let place = places[index]
            if let best = place.best, (best.area, best.row) <= (b.area, row) { continue }
            guard outline.contains(place.point) else { continue }
            places[index].best = (row, b.area)
            taken.append(index)
        }
        if !taken.isEmpty {
            included[row] = taken
            bases[row] = base
        }
        return taken
    }

    /// Places a late place, in building `row` (nil: none holds it).
    mutating func place(_ index: Int, in row: Int64?) {
        places[index].best = row.map { ($0, 0) }
    }

    /// The buildings whose places differ from those their stored text includes, each with
    /// its text without places (nil: the text it was stored with) and its places' words in
    /// place order; by row.
    func changed() -> [(row: Int64, base: String?, words: [String])] {
        var now: [Int64: [Int]] = [:]
        for (index, place) in places.enumerated() {
            if let best = place.best { now[best.row, default: []].append(index) }
        }
        var rows = Set(now.keys).union(included.keys)
        rows = rows.filter { now[$0] ?? [] != included[$0] ?? [] }
        return rows.sorted().map { row in
            (row, bases[row], (now[row] ?? []).map { places[$0].words })
        }
    }

    /// Every placed place's building and words, in place order.
    var placed: [(row: Int64, words: String)] {
        places.compactMap { place in place.best.map { ($0.row, place.words) } }
    }

    private static func key(_ lat: Double, _ lon: Double) -> Int64 {
        SpatialCells.key(
            level: level, row: SpatialCells.row(lat, level: level),
            column: SpatialCells.column(lon, level: level))
    }
}
