package import Geo
import SQLite

/// Fast reverse geocoding: polygons and city/airport indexes in memory, names of the
/// winners fetched from SQLite.
///
/// (1) Containment: the smallest-area region polygon containing the point gives region
/// and country; if none, the smallest country polygon gives the country. (2) The nearest
/// city *in that region* (a region with no cities: in the country), through a
/// latitude-sorted index. (3) An airport only within `ReverseRules.radius(type)`.
/// (4) No polygon: at sea — no country or region; the nearest city within
/// `ReverseRules.seaCityMetres`, if any.
package final class ReverseGeocoder {
    let database: GazetteerDatabase
    private let grid: BoundaryGrid
    /// Per boundary (grid order): its IDs and names, and which city index constrains it.
    private let answers: [Answer]
    /// City indexes: 0 is every city (the fallback at sea), then one per region and country.
    private let cityIndexes: [LatitudeSortedIndex]
    /// Airports, each with its type's radius as its reach.
    private let airports: LatitudeSortedIndex
    private var cityNameCache: [Int64: String] = [:]

    struct Answer {
        var country: Location.Area
        var region: Location.Area?
        var cities: Int
    }

    /// Loads polygons and indexes from `database`.
    package init(database: GazetteerDatabase) throws {
        self.database = database
        var grid = BoundaryGrid(try database.boundaries())
        if let raster = try database.raster() { grid.attach(raster) }
        self.grid = grid
        let countryNames = try database.names("SELECT iso, name FROM country")
        let regionNames = try database.names("SELECT code, name FROM region")
        var byRegion: [String: [LatitudeSortedIndex.Entry]] = [:]
        var byCountry: [String: [LatitudeSortedIndex.Entry]] = [:]
        var all: [LatitudeSortedIndex.Entry] = []
        try database.connection.prepare("SELECT geonameid, country, region, lat, lon FROM city").forEach {
            row in
            let entry = LatitudeSortedIndex.Entry(
                id: row.int(0), coordinate: Coordinate(latitude: row.double(3), longitude: row.double(4)))
            all.append(entry)
            byCountry[row.text(1) ?? "", default: []].append(entry)
            if !row.isNull(2) { byRegion[row.text(2) ?? "", default: []].append(entry) }
        }
        var indexes = [LatitudeSortedIndex(all)]
        var regionIndex: [String: Int] = [:]
        var countryIndex: [String: Int] = [:]
        func index(
            _ key: String, _ entries: [String: [LatitudeSortedIndex.Entry]], _ memo: inout [String: Int]
        ) -> Int? {
            if let i = memo[key] { return i }
            guard let e = entries[key], !e.isEmpty else { return nil }
            indexes.append(LatitudeSortedIndex(e))
            memo[key] = indexes.count - 1
            return indexes.count - 1
        }
        var answers: [Answer] = []
        for b in grid.boundaries {
            // The nearest city in the region; a region without cities: in the country.
            let cities =
                b.region.flatMap { index($0, byRegion, &regionIndex) } ?? index(
                    b.country, byCountry, &countryIndex) ?? 0
            answers.append(
                Answer(
                    country: .init(id: b.country, name: countryNames[b.country] ?? b.country),
                    region: b.region.map { .init(id: $0, name: regionNames[$0] ?? $0) }, cities: cities))
        }
        self.answers = answers
        cityIndexes = indexes
        var airportEntries: [LatitudeSortedIndex.Entry] = []
        try database.connection.prepare("SELECT id, type, lat, lon FROM airport").forEach { row in
            airportEntries.append(
                .init(
                    id: row.int(0), coordinate: Coordinate(latitude: row.double(2), longitude: row.double(3)),
                    reach: ReverseRules.radius(row.text(1) ?? "")))
        }
        airports = LatitudeSortedIndex(airportEntries)
    }

    /// The boundary answer (or nil at sea), nearest city hit and airport hit, from memory.
    private func resolve(_ point: Coordinate) -> (Answer?, LatitudeSortedIndex.Hit?, LatitudeSortedIndex.Hit?)
    {
        let b = grid.locate(lon: point.longitude, lat: point.latitude)
        let answer = b >= 0 ? answers[b] : nil
        let city =
            answer.map { cityIndexes[$0.cities].nearest(to: point) }
            ?? cityIndexes[0].nearest(to: point, maxMetres: ReverseRules.seaCityMetres)
        return (answer, city, airports.nearest(to: point))
    }

    /// IDs only, from memory (no SQLite).
    package func locateIDs(_ point: Coordinate) -> Location.IDs {
        let (answer, city, airport) = resolve(point)
        return Location.IDs(
            country: answer?.country.id, region: answer?.region?.id, city: city?.id, airport: airport?.id)
    }

    /// The full answer with names: the winning city's and airport's fetched from SQLite.
    package func locate(_ point: Coordinate) throws -> Location {
        let (answer, city, airport) = resolve(point)
        var location = Location(
            country: answer?.country, region: answer?.region, city: nil, airport: nil, atSea: answer == nil)
        if let city { location.city = .init(id: city.id, name: try cityName(city.id), metres: city.metres) }
        if let airport {
            let a = try database.airport(airport.id)
            location.airport = .init(
                id: airport.id, iata: a.iata, icao: a.icao, name: a.name, metres: airport.metres)
        }
        return location
    }

    func cityName(_ id: Int64) throws -> String {
        if let name = cityNameCache[id] { return name }
        let name = try database.cityName(id)
        cityNameCache[id] = name
        return name
    }
}

/// Polygon parts bucketed by whole-degree cells; each cell lists only the parts whose box
/// meets the cell, smallest boundary first, so the first part that contains the point
/// names the answer.
struct BoundaryGrid {
    /// Every boundary, in precedence order (smaller area, then id).
    let boundaries: [LoadedBoundary]
    private var polygons: [Polygon] = []
    /// Each part's box, apart from the polygon so the common rejection reads little memory;
    /// nil longitudes where the part is unwrapped across ±180° (always tested in full).
    private var boxes: [BoundingBox] = []
    private var owners: [Int32] = []
    private var regionCells: [[Int32]]
    private var countryCells: [[Int32]]

    init(_ loaded: [LoadedBoundary]) {
        boundaries = loaded.sorted(by: LoadedBoundary.precedes)
        regionCells = Array(repeating: [], count: 180 * 360)
        countryCells = Array(repeating: [], count: 180 * 360)
        for (index, b) in boundaries.enumerated() {
            for polygon in b.shape.polygons {
                let box = polygon.bounds
                let lat0 = Swift.max(0, Int((box.minLat + 90).rounded(.down)))
                let lat1 = Swift.min(179, Int((box.maxLat + 90).rounded(.down)))
                let lon0 = Int((box.minLon + 180).rounded(.down))
                let lon1 = Int((box.maxLon + 180).rounded(.down))
                guard lat0 <= lat1, lon0 <= lon1 else { continue }
                let part = Int32(polygons.count)
                polygons.append(polygon)
                var reject = box
                if box.minLon < -180 || box.maxLon > 180 {
                    reject.minLon = -.infinity
                    reject.maxLon = .infinity
                }
                boxes.append(reject)
                owners.append(Int32(index))
                for lat in lat0...lat1 {
                    for lon in lon0...Swift.min(lon1, lon0 + 359) {
                        let cell = lat * 360 + ((lon % 360) + 360) % 360
                        if b.isRegion {
                            regionCells[cell].append(part)
                        } else {
                            countryCells[cell].append(part)
                        }
                    }
                }
            }
        }
    }

    /// The raster's answers with boundary ids turned into indexes into `boundaries`:
    /// -2 test polygons, -1 sea, else the index.
    private var raster: (starts: [[Int32]], values: [[Int32]])?

    /// Uses `raster` (from the same boundaries) to skip polygon tests in cells no edge touches.
    mutating func attach(_ raster: BoundaryRaster) {
        var indexByID: [Int64: Int32] = [:]
        for (i, b) in boundaries.enumerated() { indexByID[b.id] = Int32(i) }
        let values = raster.values.map { row in
            row.map { v -> Int32 in
                switch v {
                case BoundaryRaster.mixed: -2
                case BoundaryRaster.sea: -1
                default: indexByID[v - 1] ?? -2
                }
            }
        }
        self.raster = (raster.starts, values)
    }

    /// The index in `boundaries` of the answer, or -1 at sea: the smallest region polygon
    /// containing the point, else the smallest country polygon.
    func locate(lon: Double, lat: Double) -> Int {
        if let raster {
            let (row, column) = BoundaryRaster.cell(lon: lon, lat: lat)
            let starts = raster.starts[row]
            var low = 0
            var high = starts.count
            while high - low > 1 {
                let mid = (low + high) / 2
                if Int(starts[mid]) <= column { low = mid } else { high = mid }
            }
            let v = raster.values[row][low]
            if v != -2 { return Int(v) }
        }
        return locateByPolygons(lon: lon, lat: lat)
    }

    /// The same answer from the polygons alone.
    func locateByPolygons(lon: Double, lat: Double) -> Int {
        let row = Swift.min(179, Swift.max(0, Int((lat + 90).rounded(.down))))
        let column = Swift.min(359, Swift.max(0, Int((lon + 180).rounded(.down))))
        let cell = row * 360 + column
        for part in regionCells[cell] {
            let p = Int(part)
            if boxes[p].contains(lon: lon, lat: lat), polygons[p].contains(lon: lon, lat: lat) {
                return Int(owners[p])
            }
        }
        for part in countryCells[cell] {
            let p = Int(part)
            if boxes[p].contains(lon: lon, lat: lat), polygons[p].contains(lon: lon, lat: lat) {
                return Int(owners[p])
            }
        }
        return -1
    }
}
