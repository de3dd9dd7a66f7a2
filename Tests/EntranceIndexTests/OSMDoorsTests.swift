import Arrival
import EntranceIndex
import Foundation
import Geo
import OSM
import Testing

@Suite("OSMDoors: which OSM doors, in which order")
struct OSMDoorsTests {
    let center = Coordinate(latitude: 60.1712, longitude: 24.9413)

    func node(_ id: Int64, _ metres: Double, _ tags: [String: String]) -> OSMNode {
        OSMNode(id: id, coordinate: center.offset(metres: metres, bearing: Double(id * 37 % 360)), tags: tags)
    }

    @Test(
        "dropped",
        arguments: [
            ["entrance": "emergency"], ["entrance": "exit"], ["entrance": "garage"],
            ["entrance": "main", "access": "private"], ["entrance": "yes", "access": "no"],
            ["building": "yes"], [:],
        ])
    func dropped(tags: [String: String]) {
        #expect(!OSMDoors.isUsable(tags))
        #expect(OSMDoors.ranked([node(1, 10, tags)], around: center).isEmpty)
    }

    /// `door=no` is an opening without a door (OSM's Key:door), still a way in. Before: it
    /// was dropped, and an arcade entered only through such openings had no doors.
    @Test(
        "kept",
        arguments: [
            ["entrance": "main"], ["entrance": "yes", "access": "yes"],
            ["entrance": "service", "door": "hinged"], ["entrance": "main", "door": "no"],
            ["entrance": "shop", "access": "customers"], ["entrance": "something_new"],
        ])
    func kept(tags: [String: String]) {
        #expect(OSMDoors.isUsable(tags))
    }

    /// Each row: id, metres from the centre, tags. The table is in the expected order.
    static let table: [(Int64, Double, [String: String])] = [
        (10, 90, ["entrance": "main"]),
        (11, 95, ["entrance": "main"]),
        (20, 80, ["entrance": "side", "wheelchair": "yes"]),
        (21, 20, ["entrance": "yes"]),
        (22, 30, ["entrance": "staircase"]),
        (23, 31, ["entrance": "home"]),
        (24, 40, ["entrance": "secondary", "wheelchair": "limited"]),
        (30, 60, ["entrance": "shop", "wheelchair": "yes"]),
        (31, 5, ["entrance": "service"]),
        (40, 1, ["entrance": "something_new"]),
    ]

    @Test func rankedByEntranceThenWheelchairThenDistanceThenID() {
        let nodes = Self.table.map { node($0.0, $0.1, $0.2) }
        let dropped = [
            node(90, 1, ["entrance": "exit"]), node(91, 1, ["entrance": "main", "access": "private"]),
        ]
        let expected = nodes.map(\.coordinate)
        for order in [nodes + dropped, (nodes + dropped).reversed(), (dropped + nodes).shuffled()] {
            #expect(OSMDoors.ranked(Array(order), around: center).map(\.coordinate) == expected)
        }
    }

    @Test func sameRankAndPlaceGoesByTheSmallerID() {
        let here = center.offset(metres: 30, bearing: 0)
        let nodes = [
            OSMNode(id: 9, coordinate: here, tags: ["entrance": "yes", "ref": "nine"]),
            OSMNode(id: 3, coordinate: here, tags: ["entrance": "side", "ref": "three"]),
        ]
        #expect(OSMDoors.ranked(nodes, around: center).map(\.label) == ["three", "nine"])
        #expect(OSMDoors.ranked(nodes.reversed(), around: center).map(\.label) == ["three", "nine"])
    }

    @Test(
        "fields",
        arguments: [
            (["ref": "A", "addr:door": "B", "addr:unit": "C", "name": "D"], "A"),
            (["addr:door": "B", "addr:unit": "C", "name": "D"], "B"),
            (["addr:unit": "C", "name": "D"], "C"),
            (["name": "D"], "D"),
            ([:], nil),
        ])
    func labelSources(tags: [String: String], label: String?) {
        let doors = OSMDoors.ranked(
            [node(1, 10, tags.merging(["entrance": "yes"]) { a, _ in a })], around: center)
        #expect(doors.map(\.label) == [label])
    }

    @Test func levelNoteAndSource() throws {
        let tags = ["entrance": "main", "level": "-1;0", "description": "Metro", "ref": "M"]
        let door = try #require(OSMDoors.ranked([node(7, 10, tags)], around: center).first)
        #expect(
            door
                == Door(
                    coordinate: node(7, 10, tags).coordinate, source: .osm, level: "-1;0", note: "Metro",
                    label: "M"))
    }
}
