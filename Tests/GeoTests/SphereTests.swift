import Geo
import Testing

@Suite("Great-circle geometry")
struct SphereTests {
    // Airport reference points from OurAirports; the distances are the published airport
    // distances (great-circle on the WGS84 ellipsoid, as airlines and gcmap.com publish
    // them): LAX–JFK 2,475 mi, LHR–JFK 3,451 mi, LAX–SYD 7,488 mi.
    static let lhr = Coordinate(latitude: 51.4700, longitude: -0.4543)
    static let lax = Coordinate(latitude: 33.9425, longitude: -118.4081)
    static let jfk = Coordinate(latitude: 40.6398, longitude: -73.7789)
    static let syd = Coordinate(latitude: -33.9461, longitude: 151.1772)

    @Test(
        "ellipsoidal distance matches published airport distances to < 0.1 %; the sphere to < 0.5 %",
        arguments: [
            (lax, jfk, 3_983_000.0),
            (lhr, jfk, 5_554_000.0),
            (lax, syd, 12_051_000.0),
            (jfk, syd, 16_014_000.0),
        ])
    func airportDistances(from: Coordinate, to: Coordinate, expected: Double) {
        let d = from.ellipsoidalDistance(to: to)
        #expect(abs(d - expected) / expected < 0.001, "got \(d) m, expected \(expected) m")
        #expect(abs(to.ellipsoidalDistance(to: from) - d) < 1e-6)
        #expect(abs(from.distance(to: to) - expected) / expected < 0.005)
    }

    @Test func haversineMatchesThePublishedSphericalExample() {
        // Rosetta Code's haversine task: BNA (36.12, −86.67) to LAX (33.94, −118.40) is
        // 2887.2599506071106 km on a sphere of radius 6372.8 km; scaled to our radius.
        let bna = Coordinate(latitude: 36.12, longitude: -86.67)
        let lax = Coordinate(latitude: 33.94, longitude: -118.40)
        let expected = 2_887_259.9506071106 * Coordinate.earthRadiusMetres / 6_372_800
        #expect(abs(bna.distance(to: lax) - expected) < 1e-3)
    }

    @Test func oneDegreeOfLatitude() {
        let a = Coordinate(latitude: 0, longitude: 0)
        let b = Coordinate(latitude: 1, longitude: 0)
        #expect(abs(a.distance(to: b) - 111_195.08) < 0.1)
    }

    @Test func shortDistanceIsStable() {
        let a = Coordinate(latitude: 60.1709, longitude: 24.9420)
        let b = a.offset(metres: 1.5, bearing: 37)
        #expect(abs(a.distance(to: b) - 1.5) < 1e-6)
    }

    @Test(
        "bearing on known cases",
        arguments: [
            (0.0, 0.0, 1.0, 0.0, 0.0),
            (0.0, 0.0, 0.0, 1.0, 90.0),
            (0.0, 0.0, -1.0, 0.0, 180.0),
            (0.0, 0.0, 0.0, -1.0, 270.0),
        ])
    func bearings(lat1: Double, lon1: Double, lat2: Double, lon2: Double, expected: Double) {
        let b = Coordinate(latitude: lat1, longitude: lon1).bearing(
            to: .init(latitude: lat2, longitude: lon2))
        #expect(abs(b - expected) < 1e-9)
    }

    @Test func laxToJfkInitialBearing() {
        // Published initial course LAX→JFK is 65.9°.
        #expect(abs(Self.lax.bearing(to: Self.jfk) - 65.9) < 0.2)
    }

    @Test(arguments: [0.0, 45, 90, 135, 180, 225, 270, 315])
    func offsetRoundTrips(bearing: Double) {
        let start = Coordinate(latitude: 60.1711, longitude: 24.9414)
        let end = start.offset(metres: 250, bearing: bearing)
        #expect(abs(start.distance(to: end) - 250) < 1e-6)
        let back = start.bearing(to: end)
        let diff = abs(back - bearing).truncatingRemainder(dividingBy: 360)
        #expect(min(diff, 360 - diff) < 1e-6)
    }

    @Test func offsetCrossesTheAntimeridian() {
        let fiji = Coordinate(latitude: -17, longitude: 179.999)
        let east = fiji.offset(metres: 1000, bearing: 90)
        #expect(east.longitude < -179.98)
        #expect(east.isValid)
    }

    @Test func validity() {
        #expect(Coordinate(latitude: 90, longitude: 180).isValid)
        #expect(!Coordinate(latitude: 91, longitude: 0).isValid)
        #expect(!Coordinate(latitude: .nan, longitude: 0).isValid)
    }
}
