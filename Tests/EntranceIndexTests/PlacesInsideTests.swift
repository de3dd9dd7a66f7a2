import Foundation
import Geo
import OSM
import Testing

@testable import EntranceIndex

/// Shops, offices and amenities join the search text of the smallest building holding them,
/// placed while the buildings stream in (``PlacesInside``): whichever of two nested
/// buildings comes first, on equal areas the lowest row, as the reader's `building(at:)`.
@Suite("Shops and offices join the smallest building holding them")
struct PlacesInsideTests {
    static let origin = Coordinate(latitude: 60.17, longitude: 24.94)

    @Test func eachShopGoesToTheSmallestBuildingHoldingItWhicheverIsStoredFirst() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var city = GridCity(origin: Self.origin, buildings: 4)
        let base = Self.origin.offset(metres: 500, bearing: 0)
        // Small first (lower id), then a large one around it.
        let a = base
        city.add(building: 2_000_000_000, at: a.offset(metres: 50, bearing: 0), tags: ["building": "kiosk"])
        city.add(building: 2_000_000_010, at: a, metres: 200, tags: ["building": "mall"])
        // Large first, then a small one inside it.
        let b = base.offset(metres: 400, bearing: 90)
        city.add(building: 2_000_000_020, at: b, metres: 200, tags: ["building": "mall"])
        city.add(building: 2_000_000_030, at: b.offset(metres: 50, bearing: 0), tags: ["building": "kiosk"])
        // Two equal squares on the same spot: the first stored wins.
        let c = base.offset(metres: 800, bearing: 90)
        city.add(building: 2_000_000_040, at: c, tags: ["building": "yes"])
        city.add(building: 2_000_000_050, at: c, tags: ["building": "yes"])
        let shops: [(name: String, at: Coordinate, building: String?)] = [
            (
                "Kiosk Alpha", a.offset(metres: 60, bearing: 0).offset(metres: 10, bearing: 90),
                "way/2000000000"
            ),
            (
                "Mall Alpha", a.offset(metres: 150, bearing: 0).offset(metres: 150, bearing: 90),
                "way/2000000010"
            ),
            (
                "Kiosk Beta", b.offset(metres: 60, bearing: 0).offset(metres: 10, bearing: 90),
                "way/2000000030"
            ),
            (
                "Mall Beta", b.offset(metres: 150, bearing: 0).offset(metres: 150, bearing: 90),
                "way/2000000020"
            ),
            (
                "Twin Gamma", c.offset(metres: 10, bearing: 0).offset(metres: 10, bearing: 90),
                "way/2000000040"
            ),
            ("Nowhere Delta", base.offset(metres: 300, bearing: 180), nil),
        ]
        for (i, shop) in shops.enumerated() {
            city.extraNodes += GridCity.node(
                2_100_000_000 + Int64(i), shop.at, ["shop": "gift", "name": shop.name])
        }
        let pbf = try city.write(xml: dir.appendingPathComponent("nested.osm").path)
        let db = dir.appendingPathComponent("nested.db").path
        let summary = try DoorImporter.importFile(pbf, to: db)
        #expect(summary.placesInside == 5)
        // The word index holds the text as mended when a shop moved.
        let words = try DoorImportTests.wordIndex(db)
        #expect(words.contains("kiosk 2000000030") && !words.contains("kiosk 2000000020"))
        let index = try DoorIndex(path: db)
        for shop in shops {
            let found = try index.search(shop.name)
            #expect(found.map(\.osm) == (shop.building.map { [$0] } ?? []), "\(shop.name)")
            // The reader's rule for the same point agrees.
            let reader = try index.building(at: shop.at).map { "\($0.kind.rawValue)/\($0.id)" }
            #expect(reader == shop.building, "\(shop.name)")
        }
    }

    /// Input not in osmium's order: a shop after the building holding it is placed at the end.
    @Test func aShopAfterTheBuildingsIsPlacedAtTheEnd() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("late.db").path
        let corners = [
            Self.origin, Self.origin.offset(metres: 20, bearing: 90),
            Self.origin.offset(metres: 20, bearing: 90).offset(metres: 20, bearing: 0),
            Self.origin.offset(metres: 20, bearing: 0), Self.origin,
        ]
        let inside = Self.origin.offset(metres: 10, bearing: 0).offset(metres: 10, bearing: 90)
        do {
            let writer = try DoorIndexWriter(path: db, source: "late")
            try writer.add(
                .node(OSMNode(id: 1, coordinate: inside, tags: ["shop": "bakery", "name": "Early Bread"])))
            try writer.add(
                .way(
                    OSMWay(
                        id: 10, nodeIDs: [2, 3, 4, 5, 2], tags: ["building": "yes", "name": "Bakery House"]),
                    locations: corners))
            try writer.add(
                .node(OSMNode(id: 6, coordinate: inside, tags: ["amenity": "cafe", "name": "Late Coffee"])))
            #expect(try writer.finish().placesInside == 2)
        }
        let index = try DoorIndex(path: db)
        for name in ["Early Bread", "Late Coffee", "Bakery House"] {
            #expect(try index.search(name).map(\.osm) == ["way/10"], "\(name)")
        }
    }
}
