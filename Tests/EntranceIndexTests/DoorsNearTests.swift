import Arrival
import Foundation
import Geo
import OSM
import Testing

@testable import EntranceIndex

/// `doors near` on the real Helsinki extract, checked by hand against the data.
@Suite("Ranked doors of a building from the door index")
struct DoorsNearTests {
    /// One index of the whole extract for the suite, imported once through the real osmium
    /// into the temporary directory; each test opens its own connection to it. It outlives
    /// every test, so it is removed when the test process exits.
    static let database: Result<String, any Error> = Result {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: DoorsNearTests.directory) }
        let db = directory.appendingPathComponent("helsinki.db").path
        _ = try DoorImporter.importFile(try Support.fixture("Helsinki.osm.pbf"), to: db)
        return db
    }
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "doors-test-\(UUID().uuidString)")

    static func open() throws -> DoorIndex { try DoorIndex(path: try database.get()) }

    static func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// Helsinki Central railway station (way 122595198, "Helsingin päärautatieasema").
    ///
    /// By hand from the data: 27 entrance nodes lie on the station's outline; two of them
    /// (318116680, 359457213) are `access=private` and must not appear. One more node,
    /// 6057756094 `entrance=main`, is loose (on no outline) 1–2 m off the south façade
    /// between the two mapped main doors: it belongs to the station. So 26 doors.
    /// The order: the three `entrance=main` doors on Kaivokatu first (the rule ranks main
    /// above everything), among them nearest the outline's centroid (60.17127, 24.94118)
    /// first: 315279614 at 60.3 m, 6057756094 at 60.8 m, 315279616 at 62.4 m. Then the
    /// `entrance=yes` doors by distance, starting with 317764829 in the main hall, 6.7 m
    /// from the centroid. The three `entrance=service` doors on the east side come last,
    /// again by distance: 6138118648 (70.7 m), 6138118657 (76.5 m), 6138118653 (78.6 m).
    /// That is the order a walker wants: the front doors, then the other public doors,
    /// the service doors only as a last resort.
    @Test func helsinkiCentralRailwayStation() throws {
        let index = try Self.open()
        let result = try index.doors(near: Self.c(60.1712, 24.9413))
        let building = try #require(result.building)
        #expect(building.kind == .way && building.id == 122_595_198)
        #expect(building.name == "Helsingin päärautatieasema")
        #expect(building.metres == 0)
        #expect(building.address["street"] == "Kaivokatu" && building.levels == "4")
        #expect(result.center == building.centroid)
        #expect(building.centroid.distance(to: Self.c(60.17127, 24.94118)) < 1)

        let doors = result.doors
        #expect(doors.count == 26)
        #expect(doors.allSatisfy { $0.source == .osm })
        #expect(
            Array(doors.prefix(4).map(\.coordinate)) == [
                Self.c(60.170747, 24.9414453),  // 315279614 main
                Self.c(60.1707534, 24.9415184),  // 6057756094 main, loose beside the façade
                Self.c(60.1707499, 24.9415857),  // 315279616 main
                Self.c(60.1712164, 24.9412205),  // 317764829 yes, nearest the centroid
            ])
        #expect(
            Array(doors.suffix(3).map(\.coordinate)) == [
                Self.c(60.1713219, 24.9424515),  // 6138118648 service
                Self.c(60.171049, 24.9424839),  // 6138118657 service
                Self.c(60.1710004, 24.942488),  // 6138118653 service
            ])
        // The private doors are not offered.
        for privateDoor in [Self.c(60.170862, 24.9418498), Self.c(60.1708376, 24.9411246)] {
            #expect(!doors.contains { $0.coordinate == privateDoor })
        }
        // Labels come from `ref`: the B, C, C, D doors on the west side keep them.
        #expect(doors.compactMap(\.label).sorted() == ["B", "C", "C", "D"])
    }

    /// The apartment block way 88777731 (building=apartments, 7 levels) on the north edge of
    /// the extract: three `entrance=staircase` nodes with `ref` A, B, C on its outline.
    ///
    /// By hand: all three have the same rank (staircase) and none is tagged wheelchair, so
    /// the rule orders them by distance from the outline's centroid (60.177484, 24.948134):
    /// C at 15.1 m (the middle of the façade), B at 22.1 m, A at 22.7 m. Its neighbour
    /// 88777735 shares the wall but its staircases belong to it, not to this block.
    @Test func residentialBlockWithStaircasesABC() throws {
        let index = try Self.open()
        let result = try index.doors(near: Self.c(60.17748, 24.94813))
        let building = try #require(result.building)
        #expect(building.kind == .way && building.id == 88_777_731)
        #expect(building.building == "apartments" && building.levels == "7")
        #expect(result.doors.map(\.label) == ["C", "B", "A"])
        #expect(
            result.doors.map(\.coordinate) == [
                Self.c(60.1773566, 24.9480402), Self.c(60.1774066, 24.9477651), Self.c(60.1773043, 24.948328),
            ])
    }

    @Test func aPointJustOutsideTakesTheNearestOutlineWithin50Metres() throws {
        let index = try Self.open()
        // 1 m south of the block's façade, on the pavement.
        let result = try index.doors(near: Self.c(60.17735, 24.948))
        let building = try #require(result.building)
        #expect(building.id == 88_777_731 && building.metres > 0 && building.metres < 50)
        #expect(result.doors.map(\.label) == ["C", "B", "A"])
    }

    @Test func withNoBuildingNearTheEntrancesWithinTheRadiusAreRanked() throws {
        let index = try Self.open()
        // Open ground in Kaisaniemi, over 80 m from every building outline node.
        let park = Self.c(60.17675, 24.947)
        #expect(try index.nearestBuilding(to: park) == nil)
        let result = try index.doors(near: park, radius: 150)
        #expect(result.building == nil && result.center == park)
        // Brute force over every entrance in the extract, ranked by the same rule.
        let data = try Support.readPBF(try Support.fixture("Helsinki.osm.pbf"))
        let near = data.entranceNodes.filter { $0.coordinate.distance(to: park) <= 150 }
        #expect(!near.isEmpty)
        #expect(result.doors == OSMDoors.ranked(near, around: park))
        #expect(try index.entrances(within: 150, of: park).map(\.id) == near.map(\.id).sorted())
    }

    @Test func buildingAtAnswersContainmentOnly() throws {
        let index = try Self.open()
        #expect(try index.building(at: Self.c(60.1712, 24.9413))?.id == 122_595_198)
        #expect(try index.building(at: Self.c(60.17735, 24.948)) == nil)
    }
}
