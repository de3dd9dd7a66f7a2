import Foundation
package import Geo
import SQLite

/// Fast reverse geocoding: polygons, city and airport indexes and city names in memory;
/// airport names fetched from SQLite on first use.
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
    /// Per boundary (grid order): `answers[i].cities`, apart so the hot path copies no Strings.
    private let constraint: [Int32]
    /// City indexes: 0 is every city (the fallback at sea), then one per region and country.
    /// Their entries' ids are city *ordinals*: positions in GeoNames ID order, so ties
    /// between equally near cities still go to the smaller GeoNames ID.
    private let cityIndexes: [LatitudeSortedIndex]
    /// Per city ordinal: GeoNames ID and display name.
    private let cityIDs: [Int64]
    private let cityNames: [String]
    /// Airports (ids are ordinals in OurAirports ID order), each with its type's radius
    /// as its reach.
    private let airports: LatitudeSortedIndex
    private let airportIDs: [Int64]
    /// One bit per raster cell: set where some airport may lie within its reach of a point
    /// in the cell. Most land is far from every airport; there the search is skipped.
    private let airportCells: [UInt64]
    /// JSON pieces end to end: per boundary then the sea (`JSONPieces.head`), and per city
    /// (`JSONPieces.cityHead`); piece i spans `ends[i - 1]..<ends[i]`.
    private let headBytes: [UInt8]
    private let headEnds: [Int32]
    private let cityHeadBytes: [UInt8]
    private let cityHeadEnds: [Int32]
    /// Per airport ordinal, its `JSONPieces.airportHead`, made on first use.
    private var airportHeads: [[UInt8]?]
    /// Land whose region and country have no city (Antarctica, remote islands) searches
    /// every city, far away; per 5° cell, the few cities that can answer there
    /// (`LatitudeSortedIndex.restricted`), made on first use.
    private var anywhereCells: [LatitudeSortedIndex?] = Array(repeating: nil, count: 36 * 72)
    /// Per 1° cell at sea: 0 not yet known, 1 no city within `seaCityMetres` of any point
    /// of the cell (most of the open ocean: answered without a search), 2 search.
    private var seaCells = [UInt8](repeating: 0, count: 180 * 360)

    struct Answer {
        var country: Location.Area
        var region: Location.Area?
        var cities: Int
    }

    /// Loads polygons, indexes and city names from `database`.
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
        var cityIDs: [Int64] = []
        var cityNames: [String] = []
        var cityHeadBytes: [UInt8] = []
        var cityHeadEnds: [Int32] = []
        var cityCountries: [String] = []
        var cityRegions: [String?] = []
        try database.connection.prepare(
            "SELECT geonameid, country, region, lat, lon, name FROM city ORDER BY geonameid"
        ).forEach { row in
            let entry = LatitudeSortedIndex.Entry(
                id: Int64(cityIDs.count),
                coordinate: Coordinate(latitude: row.double(3), longitude: row.double(4)))
            let id = row.int(0)
            let name = row.text(5) ?? ""
            cityIDs.append(id)
            cityNames.append(name)
            JSONPieces.cityHead(id: id, name: name, to: &cityHeadBytes)
            cityHeadEnds.append(Int32(cityHeadBytes.count))
            all.append(entry)
            cityCountries.append(row.text(1) ?? "")
            cityRegions.append(row.isNull(2) ? nil : row.text(2) ?? "")
        }
        // Grouped in the indexes' own order (latitude, then ordinal), so each index's sort
        // finds its input already sorted.
        all.sort { ($0.coordinate.latitude, $0.id) < ($1.coordinate.latitude, $1.id) }
        for entry in all {
            let i = Int(entry.id)
            byCountry[cityCountries[i], default: []].append(entry)
            if let region = cityRegions[i] { byRegion[region, default: []].append(entry) }
        }
        self.cityIDs = cityIDs
        self.cityNames = cityNames
        self.cityHeadBytes = cityHeadBytes
        self.cityHeadEnds = cityHeadEnds
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
        var headBytes: [UInt8] = []
        var headEnds: [Int32] = []
        for b in grid.boundaries {
            // The nearest city in the region; a region without cities: in the country.
            let cities =
                b.region.flatMap { index($0, byRegion, &regionIndex) } ?? index(
                    b.country, byCountry, &countryIndex) ?? 0
            let answer = Answer(
                country: .init(id: b.country, name: countryNames[b.country] ?? b.country),
                region: b.region.map { .init(id: $0, name: regionNames[$0] ?? $0) }, cities: cities)
            answers.append(answer)
            JSONPieces.head(country: answer.country, region: answer.region, to: &headBytes)
            headEnds.append(Int32(headBytes.count))
        }
        JSONPieces.head(country: nil, region: nil, to: &headBytes)  // at sea
        headEnds.append(Int32(headBytes.count))
        self.answers = answers
        self.headBytes = headBytes
        self.headEnds = headEnds
        constraint = answers.map { Int32($0.cities) }
        cityIndexes = indexes
        var airportEntries: [LatitudeSortedIndex.Entry] = []
        var airportIDs: [Int64] = []
        try database.connection.prepare("SELECT id, type, lat, lon FROM airport ORDER BY id").forEach { row in
            airportEntries.append(
                .init(
                    id: Int64(airportIDs.count),
                    coordinate: Coordinate(latitude: row.double(2), longitude: row.double(3)),
                    reach: ReverseRules.radius(row.text(1) ?? "")))
            airportIDs.append(row.int(0))
        }
        airports = LatitudeSortedIndex(airportEntries)
        self.airportIDs = airportIDs
        airportCells = Self.airportCells(airportEntries)
        airportHeads = Array(repeating: nil, count: airportIDs.count)
    }

    /// Marks every raster cell holding a point that may be within an airport's reach.
    /// A point within `reach` differs in latitude by at most reach/R, and in longitude by
    /// at most reach·π/(2R·cos φ) for the larger |φ| of the band (the index's own lower
    /// bound, 2R/π·√(cos φ₁ cos φ₂)·|Δλ|, turned round); 1 % margin on both.
    static func airportCells(_ entries: [LatitudeSortedIndex.Entry]) -> [UInt64] {
        let rows = BoundaryRaster.rows
        let columns = BoundaryRaster.columns
        let n = Double(BoundaryRaster.cellsPerDegree)
        var bits = [UInt64](repeating: 0, count: (rows * columns + 63) / 64)
        let degreesPerMetre = 180 / (Double.pi * Coordinate.earthRadiusMetres)
        for e in entries {
            let reach = Swift.min(e.reach, 20_000_000)
            let dLat = reach * degreesPerMetre * 1.01 + 1e-6
            let lat0 = e.coordinate.latitude - dLat
            let lat1 = e.coordinate.latitude + dLat
            let row0 = Swift.max(0, Int(((lat0 + 90) * n).rounded(.down)))
            let row1 = Swift.min(rows - 1, Int(((lat1 + 90) * n).rounded(.down)))
            let extreme = Swift.max(abs(lat0), abs(lat1))
            var col0 = 0
            var col1 = columns - 1
            if extreme < 89 {
                let dLon = reach * degreesPerMetre * (Double.pi / 2) / cos(extreme * .pi / 180) * 1.01 + 1e-6
                if dLon < 180 {
                    col0 = Int(((e.coordinate.longitude - dLon + 180) * n).rounded(.down))
                    col1 = Int(((e.coordinate.longitude + dLon + 180) * n).rounded(.down))
                }
            }
            guard row0 <= row1 else { continue }
            for row in row0...row1 {
                for col in col0...Swift.min(col1, col0 + columns - 1) {
                    let cell = row * columns + ((col % columns) + columns) % columns
                    bits[cell >> 6] |= 1 << UInt64(cell & 63)
                }
            }
        }
        return bits
    }

    /// The boundary index (or -1 at sea), nearest city and airport (ordinals), from memory.
    private func resolve(_ point: Coordinate) -> (Int, LatitudeSortedIndex.Hit?, LatitudeSortedIndex.Hit?) {
        let (row, column) = BoundaryRaster.cell(lon: point.longitude, lat: point.latitude)
        let b = grid.locate(lon: point.longitude, lat: point.latitude, row: row, column: column)
        let city: LatitudeSortedIndex.Hit?
        if b < 0 {
            city = nearestAtSea(point)
        } else if constraint[b] == 0 {
            city = nearestAnywhere(point)
        } else {
            city = cityIndexes[Int(constraint[b])].nearest(to: point)
        }
        let cell = row * BoundaryRaster.columns + column
        let nearAirport = airportCells[cell >> 6] & (1 << UInt64(cell & 63)) != 0
        return (b, city, nearAirport ? airports.nearest(to: point) : nil)
    }

    /// The nearest city within `seaCityMetres`, skipping the search in 1° cells that have
    /// none that near: no city within seaCityMetres + the cell's radius of its centre
    /// (triangle inequality; the radius as in `nearestAnywhere`).
    private func nearestAtSea(_ point: Coordinate) -> LatitudeSortedIndex.Hit? {
        let row = Swift.min(179, Swift.max(0, Int((point.latitude + 90).rounded(.down))))
        let column = Swift.min(359, Swift.max(0, Int((point.longitude + 180).rounded(.down))))
        let cell = row * 360 + column
        if seaCells[cell] == 0 {
            let south = Double(row - 90)
            let nearestEquator = south < 0 && south + 1 > 0 ? 0 : Swift.min(abs(south), abs(south + 1))
            let radians = Double.pi / 180
            let radius =
                Coordinate.earthRadiusMetres * 0.5 * radians * (1 + cos(nearestEquator * radians)) * 1.001
            let center = Coordinate(latitude: south + 0.5, longitude: Double(column - 180) + 0.5)
            let reach = (ReverseRules.seaCityMetres + radius) * (1 + 1e-9) + 1
            seaCells[cell] = cityIndexes[0].nearest(to: center, maxMetres: reach) == nil ? 1 : 2
        }
        if seaCells[cell] == 1 { return nil }
        return cityIndexes[0].nearest(to: point, maxMetres: ReverseRules.seaCityMetres)
    }

    /// The nearest city of all, through the point's 5° cell's restricted index.
    private func nearestAnywhere(_ point: Coordinate) -> LatitudeSortedIndex.Hit? {
        let row = Swift.min(35, Swift.max(0, Int(((point.latitude + 90) / 5).rounded(.down))))
        let column = Swift.min(71, Swift.max(0, Int(((point.longitude + 180) / 5).rounded(.down))))
        let cell = row * 72 + column
        if let index = anywhereCells[cell] { return index.nearest(to: point) }
        // Every point of the cell is within `radius` of its centre: along the meridian at
        // most 2.5°, then along a parallel at most 2.5° · cos φ, φ the cell's latitude
        // nearest the equator (a path no shorter than the great circle); 0.1 % margin.
        let south = Double(row * 5 - 90)
        let nearestEquator = south < 0 && south + 5 > 0 ? 0 : Swift.min(abs(south), abs(south + 5))
        let radians = Double.pi / 180
        let radius =
            Coordinate.earthRadiusMetres * 2.5 * radians * (1 + cos(nearestEquator * radians)) * 1.001
        let center = Coordinate(latitude: south + 2.5, longitude: Double(column * 5 - 180) + 2.5)
        let index = cityIndexes[0].restricted(toPointsWithin: radius, of: center)
        anywhereCells[cell] = index
        return index.nearest(to: point)
    }

    /// IDs only, from memory (no SQLite).
    package func locateIDs(_ point: Coordinate) -> Location.IDs {
        let (b, city, airport) = resolve(point)
        let answer = b >= 0 ? answers[b] : nil
        return Location.IDs(
            country: answer?.country.id, region: answer?.region?.id, city: city.map { cityIDs[Int($0.id)] },
            airport: airport.map { airportIDs[Int($0.id)] })
    }

    /// The full answer with names: the airport's fetched from SQLite.
    package func locate(_ point: Coordinate) throws -> Location {
        let (b, city, airport) = resolve(point)
        let answer = b >= 0 ? answers[b] : nil
        var location = Location(
            country: answer?.country, region: answer?.region, city: nil, airport: nil, atSea: answer == nil)
        if let city {
            location.city = .init(
                id: cityIDs[Int(city.id)], name: cityNames[Int(city.id)], metres: city.metres)
        }
        if let airport {
            let id = airportIDs[Int(airport.id)]
            let a = try database.airport(id)
            location.airport = .init(id: id, iata: a.iata, icao: a.icao, name: a.name, metres: airport.metres)
        }
        return location
    }

    /// A point's answer as positions of cached JSON pieces (no Strings, no references).
    package struct JSONAnswer: Sendable {
        fileprivate var head: Int32
        fileprivate var city: Int32
        fileprivate var airport: Int32
        fileprivate var cityMetres: Double
        fileprivate var airportMetres: Double
    }

    /// The same answer as `locate`, for `appendJSON`; an airport's name comes from SQLite
    /// the first time it is named.
    package func locateJSON(_ point: Coordinate) throws -> JSONAnswer {
        let (b, city, airport) = resolve(point)
        let answer = JSONAnswer(
            head: Int32(b >= 0 ? b : headEnds.count - 1), city: Int32(city?.id ?? -1),
            airport: Int32(airport?.id ?? -1), cityMetres: city?.metres ?? 0,
            airportMetres: airport?.metres ?? 0)
        if let airport, airportHeads[Int(airport.id)] == nil {
            let a = try database.airport(airportIDs[Int(airport.id)])
            var bytes: [UInt8] = []
            JSONPieces.airportHead(iata: a.iata, icao: a.icao, name: a.name, to: &bytes)
            airportHeads[Int(airport.id)] = bytes
        }
        return answer
    }

    /// Appends `answer`'s line (without the newline): the same bytes as
    /// `locate(point).appendJSON(to:)`.
    package func appendJSON(_ answer: JSONAnswer, to out: inout [UInt8]) {
        func piece(_ bytes: [UInt8], _ ends: [Int32], _ i: Int) {
            let start = i == 0 ? 0 : Int(ends[i - 1])
            out.append(contentsOf: bytes[start..<Int(ends[i])])
        }
        piece(headBytes, headEnds, Int(answer.head))
        if answer.city >= 0 {
            piece(cityHeadBytes, cityHeadEnds, Int(answer.city))
            JSONPieces.metresTail(answer.cityMetres, to: &out)
        } else {
            JSONPieces.text("null", to: &out)
        }
        if answer.airport >= 0, let airport = airportHeads[Int(answer.airport)] {
            out.append(contentsOf: airport)
            JSONPieces.metresTail(answer.airportMetres, to: &out)
        }
        JSONPieces.end(atSea: Int(answer.head) == headEnds.count - 1, to: &out)
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
    /// Per 1° cell, its parts: region parts then country parts, end to end; cell c's
    /// region parts are `cellParts[cellStarts[2c]..<cellStarts[2c + 1]]`, its country
    /// parts run on to `cellStarts[2c + 2]` (flat, so a lookup touches no inner array).
    private var cellStarts: [Int32] = []
    private var cellParts: [Int32] = []

    init(_ loaded: [LoadedBoundary]) {
        // Sorted through indexes: swapping the boundaries themselves copies their Strings
        // and shapes (reference counting) at every step.
        boundaries = loaded.indices.sorted { LoadedBoundary.precedes(loaded[$0], loaded[$1]) }.map {
            loaded[$0]
        }
        var regionCells = [[Int32]](repeating: [], count: 180 * 360)
        var countryCells = [[Int32]](repeating: [], count: 180 * 360)
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
        cellStarts.reserveCapacity(2 * 180 * 360 + 1)
        for cell in 0..<(180 * 360) {
            cellStarts.append(Int32(cellParts.count))
            cellParts += regionCells[cell]
            cellStarts.append(Int32(cellParts.count))
            cellParts += countryCells[cell]
        }
        cellStarts.append(Int32(cellParts.count))
    }

    /// The raster's runs, flat: row r's runs are `rasterStarts/rasterValues[rasterRows[r]..<
    /// rasterRows[r + 1]]` (first column of each run; boundary index, -1 sea, -2 test the
    /// polygons). Empty without a raster. Flat, so a lookup touches no inner array.
    private var rasterRows: [Int32] = []
    private var rasterStarts: [Int32] = []
    private var rasterValues: [Int32] = []

    /// Uses `raster` (from the same boundaries) to skip polygon tests in cells no edge touches.
    mutating func attach(_ raster: BoundaryRaster) {
        var indexByID: [Int64: Int32] = [:]
        for (i, b) in boundaries.enumerated() { indexByID[b.id] = Int32(i) }
        rasterRows = [0]
        for (starts, values) in zip(raster.starts, raster.values) {
            rasterStarts += starts
            for v in values {
                switch v {
                case BoundaryRaster.mixed: rasterValues.append(-2)
                case BoundaryRaster.sea: rasterValues.append(-1)
                default: rasterValues.append(indexByID[v - 1] ?? -2)
                }
            }
            rasterRows.append(Int32(rasterStarts.count))
        }
    }

    /// The index in `boundaries` of the answer, or -1 at sea: the smallest region polygon
    /// containing the point, else the smallest country polygon.
    func locate(lon: Double, lat: Double) -> Int {
        let (row, column) = BoundaryRaster.cell(lon: lon, lat: lat)
        return locate(lon: lon, lat: lat, row: row, column: column)
    }

    /// `locate` with the point's raster cell already known.
    func locate(lon: Double, lat: Double, row: Int, column: Int) -> Int {
        if !rasterRows.isEmpty {
            // The row's last run starting at or before the column (each row's first run
            // starts at column 0).
            var low = Int(rasterRows[row])
            var high = Int(rasterRows[row + 1])
            while high - low > 1 {
                let mid = (low + high) / 2
                if Int(rasterStarts[mid]) <= column { low = mid } else { high = mid }
            }
            let v = rasterValues[low]
            if v != -2 { return Int(v) }
        }
        return locateByPolygons(lon: lon, lat: lat)
    }

    /// The same answer from the polygons alone.
    func locateByPolygons(lon: Double, lat: Double) -> Int {
        let row = Swift.min(179, Swift.max(0, Int((lat + 90).rounded(.down))))
        let column = Swift.min(359, Swift.max(0, Int((lon + 180).rounded(.down))))
        let cell = row * 360 + column
        // Region parts first, then country parts: one run, in precedence order.
        for k in Int(cellStarts[2 * cell])..<Int(cellStarts[2 * cell + 2]) {
            let p = Int(cellParts[k])
            if boxes[p].contains(lon: lon, lat: lat), polygons[p].contains(lon: lon, lat: lat) {
                return Int(owners[p])
            }
        }
        return -1
    }
}
