import Arrival
import Foundation
import Geo
import OSM
import TestSupport
import Testing

@testable import EntranceIndex

/// A building across the antimeridian (±180°), as on Taveuni, Fiji: 0.0004° (≈ 43 m) wide, its
/// west wall at 179.9998°, its east wall at −179.9998°. Before, its outline was read as going
/// round the world the other way: points inside it were "outside the door index", a point at
/// 0° was inside, its centroid was at 0° and its area ≈ 850 km².
@Suite("A building across the antimeridian")
struct AntimeridianTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6">
          <node id="1" lat="-16.8000" lon="179.9998"/>
          <node id="2" lat="-16.8000" lon="-179.9998"/>
          <node id="3" lat="-16.7998" lon="-179.9998"/>
          <node id="4" lat="-16.7998" lon="179.9998"/>
          <node id="6" lat="-16.79981" lon="179.9998"><tag k="entrance" v="yes"/></node>
          <node id="8" lat="-16.7999" lon="-179.9998"><tag k="entrance" v="yes"/></node>
          <node id="9" lat="-16.79985" lon="-179.99978"><tag k="entrance" v="service"/></node>
          <node id="11" lat="-16.79983" lon="179.99978"><tag k="entrance" v="service"/></node>
          <node id="12" lat="-16.79995" lon="-179.9999"><tag k="shop" v="bakery"/><tag k="name" v="Vunivesi Bakery"/></node>
          <node id="13" lat="-18.1416" lon="178.4419"><tag k="shop" v="bakery"/><tag k="name" v="Suva Bakery"/></node>
          <node id="14" lat="-16.4322" lon="179.3646"><tag k="shop" v="bakery"/><tag k="name" v="Labasa Bakery"/></node>
          <way id="10">
            <nd ref="1"/><nd ref="2"/><nd ref="8"/><nd ref="3"/><nd ref="4"/><nd ref="6"/><nd ref="1"/>
            <tag k="building" v="yes"/><tag k="name" v="Across"/>
          </way>
        </osm>
        """

    static let westHalf = Coordinate(latitude: -16.7999, longitude: 179.99995)
    static let eastHalf = Coordinate(latitude: -16.7999, longitude: -179.99995)

    func index() throws -> (DoorIndex, URL) {
        let dir = try Support.temporaryDirectory()
        let db = dir.appendingPathComponent("fiji.db").path
        let summary = try DoorImporter.write(
            try OSMReader.read(data: Data(Self.xml.utf8), path: "fiji.osm"), to: db, source: "fiji.osm")
        #expect(summary.entrances == 4 && summary.entrancesOnOutlines == 2 && summary.buildingWays == 1)
        return (try DoorIndex(path: db), dir)
    }

    @Test func itsOutlineIsTheSmallOneAcrossTheLine() throws {
        let (index, dir) = try index()
        defer { try? FileManager.default.removeItem(at: dir) }
        for point in [Self.westHalf, Self.eastHalf, Coordinate(latitude: -16.7999, longitude: 180)] {
            #expect(index.bounds?.contains(point) == true, "\(point)")
            #expect(try index.building(at: point)?.id == 10, "\(point)")
        }
        // Round the world the other way is not inside.
        #expect(try index.building(at: Coordinate(latitude: -16.7999, longitude: 0)) == nil)
        let building = try #require(try index.building(at: Self.eastHalf))
        #expect(building.centroid.distance(to: Coordinate(latitude: -16.7999, longitude: 180)) < 0.5)
        let area = building.outline.area
        #expect(area > 900 && area < 1000, "\(area) m²")
        // 0.0001° west of the west wall, 0.0001° east of the east wall: ≈ 10.7 m from it.
        for (outside, side) in [(179.9997, "west"), (-179.9997, "east")] {
            let point = Coordinate(latitude: -16.7999, longitude: outside)
            #expect(try index.building(at: point) == nil, "\(side)")
            let near = try #require(try index.nearestBuilding(to: point), "\(side)")
            #expect(near.id == 10 && abs(near.metres - 10.66) < 0.1, "\(side): \(near.metres) m")
        }
    }

    /// Its doors: those on the outline ranked by distance from the centroid (the east wall's,
    /// nearer, first, though its id is the larger), then the loose ones a step off either wall.
    @Test func itsDoorsAreRankedAroundItsCentroid() throws {
        let (index, dir) = try index()
        defer { try? FileManager.default.removeItem(at: dir) }
        for point in [Self.westHalf, Self.eastHalf] {
            let found = try index.doors(near: point)
            #expect(found.building?.id == 10)
            #expect(found.center.distance(to: Coordinate(latitude: -16.7999, longitude: 180)) < 0.5)
            #expect(
                found.doors.map(\.coordinate) == [
                    Coordinate(latitude: -16.7999, longitude: -179.9998),
                    Coordinate(latitude: -16.79981, longitude: 179.9998),
                    Coordinate(latitude: -16.79985, longitude: -179.99978),
                    Coordinate(latitude: -16.79983, longitude: 179.99978),
                ], "\(point)")
        }
        // The bakery in the east half names the building (bakeries elsewhere, so that the
        // building's cells are looked at, not every bakery).
        #expect(try index.search("vunivesi").first?.osm == "way/10")
    }

    /// The index's box is the short one across the line (179.99978…−179.99978, stored run on
    /// past 180 as a building's is), not every longitude: the same latitude elsewhere is
    /// outside it, and so said by the binary; distances to it go the short way. Before: the
    /// box of a west wall at 179.9998 and doors at −179.9998 was −179.9998…180.0002, so a
    /// point at 0° was "in" the index and `doors near` found "no building within 50 m", exit 0.
    @Test func theIndexBoxIsTheShortOneAcrossTheLine() throws {
        let (index, dir) = try index()
        defer { try? FileManager.default.removeItem(at: dir) }
        let box = try #require(index.bounds)
        #expect(abs(box.minLon - 179.99978) < 1e-9 && abs(box.maxLon - 180.00022) < 1e-9, "\(box)")
        #expect(box.description == "-16.8000..-16.7998, 179.9998..-179.9998")
        for lon in [0, 24.9, -179.99, 179.99] {
            #expect(!box.contains(Coordinate(latitude: -16.7999, longitude: lon)), "\(lon)")
        }
        // 0.00078° east of its east end at −179.99978: ≈ 83 m (not round the world, nor to its west end).
        let east = box.distance(to: Coordinate(latitude: -16.7999, longitude: -179.999))
        #expect(abs(east - 83.1) < 1, "\(east) m")
        let db = dir.appendingPathComponent("fiji.db").path
        #expect(throws: OutsideDoorIndex.self) {
            try DoorIndexes(path: db).index(at: Coordinate(latitude: -16.7999, longitude: 0))
        }
        let pathfinder = try BuiltExecutable.pathfinder().path
        let outside = try runCapturing(pathfinder, ["doors", "near", "-16.7999", "0", "--db", db])
        #expect(outside.status == 1, "\(outside.text)")
        #expect(
            outside.text.contains(
                "outside the door index (it covers -16.8000..-16.7998, 179.9998..-179.9998)"),
            "\(outside.text)")
        let inside = try runCapturing(pathfinder, ["doors", "near", "-16.7999", "-179.99995", "--db", db])
        #expect(
            inside.status == 0 && inside.text.contains("way 10 \"Across\" contains the point"),
            "\(inside.text)")
    }

    /// Longitudes of two boxes' union (west, east), the short way round: as `min`/`max` when not
    /// across the antimeridian; across it, run on past 180 from a west end in −180…180.
    @Test(arguments: [
        ((24.9, 24.95), (24.93, 25.0), (24.9, 25.0)),
        ((179.9998, 180.0002), (-179.9998, -179.9998), (179.9998, 180.0002)),
        ((179.99978, 179.99978), (-179.99978, -179.99978), (179.99978, 180.00022)),
        ((-179.99978, -179.99978), (179.99978, 179.99978), (179.99978, 180.00022)),
        ((-100, -100), (100, 100), (100, 260)),
        ((-180, 180), (10, 20), (-180, 180)),
        ((170, 200), (-170, 160), (170, 520)),
    ])
    func unionGoesTheShortWayRound(a: (Double, Double), b: (Double, Double), union: (Double, Double)) {
        func box(_ lon: (Double, Double)) -> DoorIndexBounds {
            DoorIndexBounds(minLat: 0, maxLat: 1, minLon: lon.0, maxLon: lon.1)
        }
        let made = box(a).union(box(b))
        #expect(abs(made.minLon - union.0) < 1e-9 && abs(made.maxLon - union.1) < 1e-9, "\(made)")
    }

    /// Boxes within half the world, not across ±180°: the union is `min`/`max`, bit for bit.
    @Test func unionOfBoxesNotAcrossIsMinAndMax() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let lons = (0..<4).map { _ in Double.random(in: -89...89, using: &random) }.sorted()
            let (a, b) =
                Bool.random(using: &random)
                ? ((lons[0], lons[2]), (lons[1], lons[3])) : ((lons[1], lons[2]), (lons[0], lons[3]))
            let made = DoorIndexBounds(minLat: 0, maxLat: 1, minLon: a.0, maxLon: a.1)
                .union(DoorIndexBounds(minLat: -1, maxLat: 0.5, minLon: b.0, maxLon: b.1))
            #expect(
                made == DoorIndexBounds(minLat: -1, maxLat: 1, minLon: min(a.0, b.0), maxLon: max(a.1, b.1)))
        }
    }
}
