package import Geo
import SQLite

/// Fast reverse geocoding: polygons and city/airport indexes in memory, names of the
/// winners fetched from SQLite.
///
/// (1) Containment: the smallest-area region polygon containing the point gives region
/// and country; if none, the smallest country polygon gives the country. (2) The nearest
/// city *in that region* (a region with no cities: in the country), through a
/// latitude-sorted index. (3) An airport only within `ReverseRules.radius(type)`.
/// (4) No polygon: at sea — no country or region, the nearest city anywhere.
package final class ReverseGeocoder {
    let database: GazetteerDatabase
    private let grid: BoundaryGrid
    private let countryNames: [String: String]
    private let regionNames: [String: String]
    private let citiesByRegion: [String: LatitudeSortedIndex]
    private let citiesByCountry: [String: LatitudeSortedIndex]
    private let allCities: LatitudeSortedIndex
    /// Airports by radius class, each searched within its own radius.
    private let airports: [(radius: Double, index: LatitudeSortedIndex)]
    private var cityNameCache: [Int64: String] = [:]

    /// Loads polygons and indexes from `database`.
    package init(database: GazetteerDatabase) throws {
        self.database = database
        grid = BoundaryGrid(try database.boundaries())
        countryNames = try database.names("SELECT iso, name FROM country")
        regionNames = try database.names("SELECT code, name FROM region")
        var byRegion: [String: [LatitudeSortedIndex.Entry]] = [:]
        var byCountry: [String: [LatitudeSortedIndex.Entry]] = [:]
        var all: [LatitudeSortedIndex.Entry] = []
        try database.connection.prepare("SELECT geonameid, country, region, lat, lon FROM city").forEach { row in
            let entry = LatitudeSortedIndex.Entry(
                id: row.int(0), coordinate: Coordinate(latitude: row.double(3), longitude: row.double(4)))
            all.append(entry)
            byCountry[row.text(1) ?? "", default: []].append(entry)
            if !row.isNull(2) { byRegion[row.text(2) ?? "", default: []].append(entry) }
        }
        citiesByRegion = byRegion.mapValues(LatitudeSortedIndex.init)
        citiesByCountry = byCountry.mapValues(LatitudeSortedIndex.init)
        allCities = LatitudeSortedIndex(all)
        var byRadius: [Double: [LatitudeSortedIndex.Entry]] = [:]
        try database.connection.prepare("SELECT id, type, lat, lon FROM airport").forEach { row in
            byRadius[ReverseRules.radius(row.text(1) ?? ""), default: []].append(
                .init(id: row.int(0), coordinate: Coordinate(latitude: row.double(2), longitude: row.double(3))))
        }
        airports = byRadius.keys.sorted().map { ($0, LatitudeSortedIndex(byRadius[$0] ?? [])) }
    }

    /// IDs only, from memory (no SQLite): what the benchmark's pure query time measures.
    package func locateIDs(_ point: Coordinate) -> Location.IDs {
        let (country, region) = grid.locate(lon: point.longitude, lat: point.latitude)
        let index: LatitudeSortedIndex =
            region.flatMap { citiesByRegion[$0] } ?? country.flatMap { citiesByCountry[$0] } ?? allCities
        let city = index.nearest(to: point)
        var airport: LatitudeSortedIndex.Hit?
        for (radius, index) in airports {
            guard let hit = index.nearest(to: point, maxMetres: radius) else { continue }
            if let best = airport, (best.metres, best.id) <= (hit.metres, hit.id) { continue }
            airport = hit
        }
        return Location.IDs(country: country, region: region, city: city?.id, airport: airport?.id)
            .with(cityMetres: city?.metres, airportMetres: airport?.metres)
    }

    /// The full answer with names.
    package func locate(_ point: Coordinate) throws -> Location {
        let ids = locateIDs(point)
        return try Location(ids: ids, point: point, names: self)
    }

    func countryName(_ id: String) -> String { countryNames[id] ?? id }
    func regionName(_ id: String) -> String { regionNames[id] ?? id }
    func cityName(_ id: Int64) throws -> String {
        if let name = cityNameCache[id] { return name }
        let name = try database.cityName(id)
        cityNameCache[id] = name
        return name
    }
}

extension Location.IDs {
    func with(cityMetres: Double?, airportMetres: Double?) -> Location.IDs {
        var copy = self
        copy.cityMetres = cityMetres
        copy.airportMetres = airportMetres
        return copy
    }
}

extension Location {
    init(ids: IDs, point: Coordinate, names: ReverseGeocoder) throws {
        country = ids.country.map { Area(id: $0, name: names.countryName($0)) }
        region = ids.region.map { Area(id: $0, name: names.regionName($0)) }
        city = try ids.city.map { City(id: $0, name: try names.cityName($0), metres: ids.cityMetres ?? 0) }
        airport = try ids.airport.map { id in
            let a = try names.database.airport(id)
            return Airport(id: id, iata: a.iata, icao: a.icao, name: a.name, metres: ids.airportMetres ?? 0)
        }
        atSea = ids.country == nil
    }
}

/// Boundaries bucketed by whole-degree cells; each cell's list sorted smallest first, so
/// the first polygon that contains the point is the answer.
struct BoundaryGrid {
    private var regionCells: [[LoadedBoundary]]
    private var countryCells: [[LoadedBoundary]]

    init(_ boundaries: [LoadedBoundary]) {
        regionCells = Array(repeating: [], count: 180 * 360)
        countryCells = Array(repeating: [], count: 180 * 360)
        for b in boundaries.sorted(by: LoadedBoundary.precedes) {
            var cells = Set<Int>()
            for polygon in b.shape.polygons {
                let box = polygon.bounds
                let lat0 = Swift.max(0, Int((box.minLat + 90).rounded(.down)))
                let lat1 = Swift.min(179, Int((box.maxLat + 90).rounded(.down)))
                let lon0 = Int((box.minLon + 180).rounded(.down))
                let lon1 = Int((box.maxLon + 180).rounded(.down))
                guard lat0 <= lat1, lon0 <= lon1 else { continue }
                for lat in lat0...lat1 {
                    for lon in lon0...Swift.min(lon1, lon0 + 359) {
                        cells.insert(lat * 360 + ((lon % 360) + 360) % 360)
                    }
                }
            }
            for cell in cells.sorted() {
                if b.isRegion { regionCells[cell].append(b) } else { countryCells[cell].append(b) }
            }
        }
    }

    /// (country, region) of the point; both nil at sea.
    func locate(lon: Double, lat: Double) -> (String?, String?) {
        let row = Swift.min(179, Swift.max(0, Int((lat + 90).rounded(.down))))
        let column = Swift.min(359, Swift.max(0, Int((lon + 180).rounded(.down))))
        let cell = row * 360 + column
        for b in regionCells[cell] where b.shape.contains(lon: lon, lat: lat) { return (b.country, b.region) }
        for b in countryCells[cell] where b.shape.contains(lon: lon, lat: lat) { return (b.country, nil) }
        return (nil, nil)
    }
}
