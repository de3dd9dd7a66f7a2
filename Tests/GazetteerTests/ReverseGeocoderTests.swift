import Foundation
import Geo
import SQLite
import Testing

@testable import Gazetteer

@Suite("Reverse geocoding over the committed gazetteer")
struct ReverseGeocoderTests {
    func locate(_ lat: Double, _ lon: Double) throws -> Location {
        try Artifacts.withGeocoder { try $0.locate(Coordinate(latitude: lat, longitude: lon)) }
    }

    @Test func helsinki() throws {
        let l = try locate(60.1699, 24.9384)
        #expect(l.country == .init(id: "FI", name: "Finland"))
        #expect(l.region == .init(id: "FI.01", name: "Uusimaa"))
        #expect(l.city?.id == 658225)
        #expect(l.city?.name == "Helsinki")
        #expect(l.airport == nil)
        #expect(!l.atSea)
    }

    @Test func airportOnlyWhenClose() throws {
        let atHEL = try locate(60.3172, 24.9633)
        #expect(atHEL.airport?.iata == "HEL")
        #expect(atHEL.airport?.icao == "EFHK")
        // 10 km south of the runways: no airport named.
        #expect(try locate(60.2272, 24.9633).airport == nil)
    }

    @Test func montanaEvenWhereTheNearestCityIsInNorthDakota() throws {
        let point = Coordinate(latitude: 48.0, longitude: -104.06)  // 1 km west of the state line
        let l = try locate(point.latitude, point.longitude)
        #expect(l.region?.id == "US.MT")
        let db = try Artifacts.open()
        let cityRegion = try db.connection.prepare("SELECT region FROM city WHERE geonameid = ?")
        try cityRegion.bind([.int(try #require(l.city?.id))])
        _ = try cityRegion.step()
        #expect(cityRegion.text(0) == "US.MT")
        // And the test means something: unconstrained, the nearest city is in North Dakota.
        var best: (Double, String?) = (.infinity, nil)
        try db.connection.prepare("SELECT lat, lon, region FROM city WHERE country = 'US'").forEach { row in
            let d = point.distance(to: Coordinate(latitude: row.double(0), longitude: row.double(1)))
            if d < best.0 { best = (d, row.text(2)) }
        }
        #expect(best.1 == "US.ND")
    }

    @Test(
        "overlapping polygons: the smallest wins",
        arguments: [
            (52.52, 13.405, "DE.16"),  // Berlin, inside Brandenburg's outline
            (52.39, 13.06, "DE.11"),  // Potsdam, Brandenburg
            (37.5665, 126.978, "KR.11"),  // Seoul
            (37.29, 127.01, "KR.13"),  // Suwon, Gyeonggi
            (50.45, 30.52, "UA.12"),  // Kyiv city
            (49.8, 30.11, "UA.13"),  // Bila Tserkva, Kyiv oblast
        ])
    func smallestPolygonWins(_ lat: Double, _ lon: Double, _ region: String) throws {
        #expect(try locate(lat, lon).region?.id == region)
    }

    @Test("Fiji on both sides of the antimeridian", arguments: [179.88, -179.88])
    func fiji(_ lon: Double) throws {
        let l = try locate(-16.76, lon)  // Taveuni, which the 180° meridian crosses
        #expect(l.country?.id == "FJ")
        #expect(l.region?.id == "FJ.03")
        #expect(l.city != nil)
    }

    @Test func atSea() throws {
        let l = try locate(0, -30)
        #expect(l.atSea)
        #expect(l.country == nil && l.region == nil)
        #expect(l.city == nil, "no city within 200 km of mid-Atlantic")
        #expect(l.json.contains("\"sea\":true"))
        #expect(l.json.contains("\"city\":null"))
        let offHelsinki = try locate(59.95, 24.95)  // the Gulf of Finland, ~25 km offshore
        #expect(offHelsinki.atSea)
        #expect(offHelsinki.city != nil, "a coastal city within 200 km is named")
        #expect((offHelsinki.city?.metres ?? 0) > 20_000)
    }

    @Test func byteOutputEqualsTheStringForm() throws {
        for (lat, lon) in [(60.1699, 24.9384), (60.3172, 24.9633), (0.0, -30.0), (-16.76, 179.88)] {
            let l = try locate(lat, lon)
            var bytes: [UInt8] = []
            l.appendJSON(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == l.json)
        }
    }

    /// The `--stdin` path (cached pieces) writes exactly `Location.appendJSON`'s bytes:
    /// at sea, in Antarctica (no city in region or country), at airports, across ±180°.
    @Test func cachedPiecesWriteTheSameBytesAsTheLocation() throws {
        var random = SeededRandom(seed: 11)
        var points = [(60.3172, 24.9633), (0.0, -30.0), (-16.76, 179.88), (-80.0, 30.0), (-89.9, 0.0)].map {
            Coordinate(latitude: $0.0, longitude: $0.1)
        }
        for _ in 0..<2_000 {
            points.append(
                Coordinate(
                    latitude: asin(random.nextUnit() * 2 - 1) * 180 / .pi,
                    longitude: random.nextUnit() * 360 - 180))
        }
        var kinds = (sea: 0, airport: 0, land: 0)
        try Artifacts.withGeocoder { geocoder in
            for p in points {
                let location = try geocoder.locate(p)
                var expected: [UInt8] = []
                location.appendJSON(to: &expected)
                var bytes: [UInt8] = []
                geocoder.appendJSON(try geocoder.locateJSON(p), to: &bytes)
                #expect(bytes == expected, "\(p)")
                if location.atSea { kinds.sea += 1 } else { kinds.land += 1 }
                if location.airport != nil { kinds.airport += 1 }
            }
        }
        #expect(kinds.sea > 100 && kinds.land > 100 && kinds.airport > 0, "\(kinds)")
    }

    /// Points around airports, just inside and just outside each one's reach: the fast
    /// path's airport-cell filter must not hide one the reference names.
    @Test func airportsNearTheirReachAgreeWithTheReference() throws {
        let db = try Artifacts.open()
        let reference = ReferenceGeocoder(database: db)
        var airports: [(Coordinate, Double)] = []
        try db.connection.prepare(
            "SELECT lat, lon, type FROM airport WHERE id % 29 = 0 OR abs(lat) > 70 OR abs(lon) > 178"
        )
        .forEach { row in
            airports.append(
                (
                    Coordinate(latitude: row.double(0), longitude: row.double(1)),
                    ReverseRules.radius(row.text(2) ?? "")
                ))
        }
        #expect(airports.count > 200)
        var random = SeededRandom(seed: 3)
        var mismatches: [String] = []
        var named = 0
        try Artifacts.withGeocoder { fast in
            for (centre, reach) in airports {
                for factor in [0.97, 1.03] {
                    let p = centre.offset(metres: reach * factor, bearing: random.nextUnit() * 360)
                    guard p.isValid else { continue }
                    let a = fast.locateIDs(p)
                    let b = try reference.locateIDs(p)
                    if a.airport != b.airport { mismatches.append("\(p): fast \(a) reference \(b)") }
                    if a.airport != nil { named += 1 }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(5))")
        #expect(named > airports.count / 2, "the points inside the reach name an airport")
    }

    @Test func jsonLine() throws {
        let json = try locate(60.1699, 24.9384).json
        #expect(
            json.hasPrefix(
                "{\"country\":{\"id\":\"FI\",\"name\":\"Finland\"},\"region\":{\"id\":\"FI.01\",\"name\":\"Uusimaa\"},\"city\":{\"id\":658225,\"name\":\"Helsinki\",\"metres\":"
            ))
    }
}

@Suite("Fast path equals the slow SQL reference")
struct ReferenceEquivalenceTests {
    /// Points within 5 km of admin boundaries: vertices of the region polygons, moved a
    /// random 0–5 km in a random direction.
    static func borderPoints(count: Int) throws -> [Coordinate] {
        let db = try Artifacts.open()
        let boundaries = try db.boundaries().filter(\.isRegion)
        var random = SeededRandom(seed: 2026)
        var points: [Coordinate] = []
        while points.count < count {
            let b = boundaries[Int(random.nextUnit() * Double(boundaries.count))]
            let ring = b.shape.polygons[Int(random.nextUnit() * Double(b.shape.polygons.count))].exterior
            let v = ring[Int(random.nextUnit() * Double(ring.count))]
            let p = Coordinate(latitude: v.lat, longitude: normalizedDegrees(v.lon))
                .offset(metres: random.nextUnit() * 5_000, bearing: random.nextUnit() * 360)
            if p.isValid { points.append(p) }
        }
        return points
    }

    @Test func identicalIDsOnBorderHeavyPoints() throws {
        let points = try Self.borderPoints(count: 1_200)
        let reference = ReferenceGeocoder(database: try Artifacts.open())
        var regions = Set<String>()
        var mismatches: [String] = []
        try Artifacts.withGeocoder { fast in
            for p in points {
                let a = fast.locateIDs(p)
                let b = try reference.locateIDs(p)
                if a != b { mismatches.append("\(p): fast \(a) reference \(b)") }
                if let r = a.region { regions.insert(r) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(points.count): \(mismatches.prefix(5))")
        #expect(regions.count > 300, "the points spread over many regions")
    }

    /// Random points over the whole globe: most fall in raster cells no edge touches, which
    /// the fast path answers without a polygon test; the reference tests polygons always.
    @Test func identicalIDsOnRandomPointsAcrossTheGlobe() throws {
        let reference = ReferenceGeocoder(database: try Artifacts.open())
        var random = SeededRandom(seed: 7)
        var mismatches: [String] = []
        var land = 0
        try Artifacts.withGeocoder { fast in
            for _ in 0..<1_500 {
                let lat = asin(random.nextUnit() * 2 - 1) * 180 / .pi
                let p = Coordinate(latitude: lat, longitude: random.nextUnit() * 360 - 180)
                let a = fast.locateIDs(p)
                let b = try reference.locateIDs(p)
                if a != b { mismatches.append("\(p): fast \(a) reference \(b)") }
                if a.country != nil { land += 1 }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(5))")
        #expect(land > 300, "about 29 % of the globe is land")
    }

    /// The reference's own geometry, checked on shapes and distances known by hand (it shares
    /// no code with the fast path, so the equivalence tests above check both).
    @Test func referenceGeometryIsRightOnItsOwn() {
        let square = [
            LonLat(lon: 0, lat: 0), LonLat(lon: 10, lat: 0), LonLat(lon: 10, lat: 10),
            LonLat(lon: 0, lat: 10),
        ]
        let hole = [
            LonLat(lon: 4, lat: 4), LonLat(lon: 6, lat: 4), LonLat(lon: 6, lat: 6), LonLat(lon: 4, lat: 6),
        ]
        let framed = [Polygon(exterior: square, holes: [hole])]
        #expect(ReferenceGeocoder.inside(framed, lon: 2, lat: 2))
        #expect(!ReferenceGeocoder.inside(framed, lon: 5, lat: 5), "in the hole")
        #expect(!ReferenceGeocoder.inside(framed, lon: 12, lat: 5))
        #expect(!ReferenceGeocoder.inside(framed, lon: -2, lat: 5))
        // Across the antimeridian: 170°E…170°W, stored unwrapped as 170…190.
        let fiji = [
            Polygon(exterior: [
                LonLat(lon: 170, lat: -20), LonLat(lon: 190, lat: -20), LonLat(lon: 190, lat: -10),
                LonLat(lon: 170, lat: -10),
            ])
        ]
        #expect(ReferenceGeocoder.inside(fiji, lon: 175, lat: -15))
        #expect(ReferenceGeocoder.inside(fiji, lon: -175, lat: -15))
        #expect(!ReferenceGeocoder.inside(fiji, lon: -165, lat: -15))

        let radius = 6_371_008.8
        let oneDegree = ReferenceGeocoder.metres(
            Coordinate(latitude: 10, longitude: 20), Coordinate(latitude: 11, longitude: 20))
        #expect(abs(oneDegree - radius * .pi / 180) < 1e-6)
        let quarter = ReferenceGeocoder.metres(
            Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 90))
        #expect(abs(quarter - radius * .pi / 2) < 1e-6)
        let antipode = ReferenceGeocoder.metres(
            Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 180))
        #expect(abs(antipode - radius * .pi) < 1e-6)
    }

    @Test func referenceAgreesOnTheNamedExamples() throws {
        let reference = ReferenceGeocoder(database: try Artifacts.open())
        let helsinki = try reference.locateIDs(Coordinate(latitude: 60.1699, longitude: 24.9384))
        #expect(helsinki == Location.IDs(country: "FI", region: "FI.01", city: 658225, airport: nil))
        let sea = try reference.locateIDs(Coordinate(latitude: 0, longitude: -30))
        #expect(sea.country == nil && sea.region == nil && sea.city == nil)
    }
}
