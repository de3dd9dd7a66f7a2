import Foundation
package import Geo
import SQLite

/// The slow reference: the same rules as `ReverseGeocoder`, answered by plain SQL over the
/// same tables on every call (R*Tree for candidate boxes, `ORDER BY area, id`, full scans
/// for the nearest city and airport). It shares no index and no geometry with the fast
/// path: its own point-in-ring test and its own haversine, written plainly, so that a test
/// proving both return identical IDs checks the fast path's containment and distances too.
///
/// It holds nothing in memory between calls, which is why the daemon answers `where` with
/// it: one question now and then must not keep the fast path's world-wide polygons, city
/// indexes and names (about 35 MB) resident in a process that runs all day.
package struct ReferenceGeocoder {
    let database: GazetteerDatabase

    package init(database: GazetteerDatabase) { self.database = database }

    package func locateIDs(_ point: Coordinate) throws -> Location.IDs {
        let found = try resolve(point)
        return Location.IDs(
            country: found.country, region: found.region, city: found.city?.id, airport: found.airport?.id)
    }

    /// The full answer with names, the same as `ReverseGeocoder.locate`.
    package func locate(_ point: Coordinate) throws -> Location {
        let found = try resolve(point)
        let db = database.connection
        func name(_ sql: String, _ key: SQLValue) throws -> String? {
            let s = try db.cached(sql)
            try s.bind([key])
            return try s.step() && !s.isNull(0) ? s.text(0) : nil
        }
        var location = Location(
            country: nil, region: nil, city: nil, airport: nil, atSea: found.country == nil)
        if let country = found.country {
            let countryName = try name("SELECT name FROM country WHERE iso = ?", .text(country))
            location.country = .init(id: country, name: countryName ?? country)
        }
        if let region = found.region {
            let regionName = try name("SELECT name FROM region WHERE code = ?", .text(region))
            location.region = .init(id: region, name: regionName ?? region)
        }
        if let city = found.city {
            let cityName = try name("SELECT name FROM city WHERE geonameid = ?", .int(city.id))
            location.city = .init(id: city.id, name: cityName ?? "", metres: city.metres)
        }
        if let airport = found.airport {
            let a = try database.airport(airport.id)
            location.airport = .init(
                id: airport.id, iata: a.iata, icao: a.icao, name: a.name, metres: airport.metres)
        }
        return location
    }

    /// The country and region whose boundary holds `point` (the smallest region's first, by
    /// area, then id), as ``locate(_:)`` finds them, without its nearest city and airport (a
    /// scan of every airport): what the daemon asks of each match when a city written with an
    /// address chooses among them.
    package func boundaries(_ point: Coordinate) throws -> (country: String?, region: String?) {
        let db = database.connection
        let lon = point.longitude
        let lat = point.latitude
        var country: String?
        var region: String?
        let boxes = try db.cached(
            """
            SELECT b.kind, b.country, b.region, b.wkb FROM boundary b JOIN boundary_rtree r ON r.id = b.id
            WHERE r.minLat <= ?2 AND r.maxLat >= ?2
              AND ((r.minLon <= ?1 AND r.maxLon >= ?1) OR (r.minLon <= ?1 + 360 AND r.maxLon >= ?1 + 360)
                OR (r.minLon <= ?1 - 360 AND r.maxLon >= ?1 - 360))
            ORDER BY b.kind = 'country', b.area, b.id
            """)
        try boxes.bind([.double(lon), .double(lat)])
        while try boxes.step() {
            guard Self.inside(try GeometryBlob.decode(boxes.blob(3)), lon: lon, lat: lat) else { continue }
            country = boxes.text(1)
            region = boxes.text(0) == "region" && !boxes.isNull(2) ? boxes.text(2) : nil
            break
        }
        return (country, region)
    }

    private func resolve(
        _ point: Coordinate
    ) throws -> (
        country: String?, region: String?, city: (id: Int64, metres: Double)?,
        airport: (id: Int64, metres: Double)?
    ) {
        let db = database.connection
        let (country, region) = try boundaries(point)
        var cities: [(Int64, Coordinate)] = []
        func load(_ sql: String, _ values: [SQLValue]) throws {
            let s = try db.cached(sql)
            try s.bind(values)
            while try s.step() {
                cities.append((s.int(0), Coordinate(latitude: s.double(1), longitude: s.double(2))))
            }
        }
        if let region { try load("SELECT geonameid, lat, lon FROM city WHERE region = ?", [.text(region)]) }
        if cities.isEmpty, let country {
            try load("SELECT geonameid, lat, lon FROM city WHERE country = ?", [.text(country)])
        }
        var reach = Double.infinity
        if cities.isEmpty {
            try load("SELECT geonameid, lat, lon FROM city", [])
            if country == nil { reach = ReverseRules.seaCityMetres }
        }
        let city = nearest(cities.map { ($0.0, Self.metres(point, $0.1), reach) })

        var airports: [(Int64, Double, Double)] = []
        let s = try db.cached("SELECT id, type, lat, lon FROM airport")
        while try s.step() {
            let d = Self.metres(point, Coordinate(latitude: s.double(2), longitude: s.double(3)))
            airports.append((s.int(0), d, ReverseRules.radius(s.text(1) ?? "")))
        }
        let airport = nearest(airports)
        return (country, region, city, airport)
    }

    /// Whether the point is inside any of `polygons`: a ray from it towards the east crosses
    /// the edges of a polygon's rings (exterior and holes together) an odd number of times.
    /// Rings that cross the antimeridian continue past ±180°, so the point is also tried
    /// 360° east and west.
    static func inside(_ polygons: [Polygon], lon: Double, lat: Double) -> Bool {
        for polygon in polygons {
            for x in [lon, lon + 360, lon - 360] {
                var crossings = 0
                for ring in [polygon.exterior] + polygon.holes where ring.count > 1 {
                    for k in 1..<ring.count {
                        let p = ring[k - 1]
                        let q = ring[k]
                        guard (p.lat > lat) != (q.lat > lat) else { continue }
                        let t = (lat - p.lat) / (q.lat - p.lat)
                        if x < p.lon + t * (q.lon - p.lon) { crossings += 1 }
                    }
                }
                if crossings % 2 == 1 { return true }
            }
        }
        return false
    }

    /// Great-circle distance, metres: the haversine formula in its textbook `atan2` form, on
    /// the mean Earth radius (IUGG, 6 371 008.8 m).
    static func metres(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radius = 6_371_008.8
        let toRadians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * toRadians
        let dLon = (b.longitude - a.longitude) * toRadians
        let h =
            pow(sin(dLat / 2), 2)
            + cos(a.latitude * toRadians) * cos(b.latitude * toRadians) * pow(sin(dLon / 2), 2)
        return radius * 2 * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    /// The smallest (metres, id) among candidates within their own radius.
    private func nearest(
        _ candidates: [(id: Int64, metres: Double, radius: Double)]
    ) -> (id: Int64, metres: Double)? {
        candidates.filter { $0.metres <= $0.radius }.min { ($0.metres, $0.id) < ($1.metres, $1.id) }.map {
            ($0.id, $0.metres)
        }
    }
}
