import Foundation
import Geo
import OSM
import Testing

@Suite("Reading osmium's OPL as a stream")
struct OPLReaderTests {
    /// Writes `text` to a temporary file and reads it through a file descriptor.
    func read(_ text: String) throws -> [OSMElement] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opl-\(UUID().uuidString).opl")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var reader = OPLReader(path: "x.osm.pbf")
        var out: [OSMElement] = []
        try reader.read(fd: fd) { out.append($0) }
        return out
    }

    @Test func nodesWaysWithLocationsAndRelationsWithEscapes() throws {
        let elements = try read(
            """
            n1 v3 dV c9 t2020-01-01T00:00:00Z i7 uanna Tentrance=main,name=%c138%%c885%%b300%%b85c%%20%110 x126.9769 y37.5663
            n2 T x-0.1 y-33.9
            w10 Tbuilding=yes,addr:street=Quai%20%Jean-Charles%20%Rey,note=a%2c%b%3d%c Nn1x126.9769y37.5663,n2x-0.1y-33.9,n3xy
            r20 Ttype=multipolygon,building=yes Mw10@outer,w11@inner,n1@

            """)
        #expect(elements.count == 4)
        guard case .node(let node) = elements[0], case .way(let way, let locations) = elements[2],
            case .relation(let relation) = elements[3]
        else {
            Issue.record("\(elements)")
            return
        }
        #expect(node.id == 1 && node.tags == ["entrance": "main", "name": "세종대로 110"])
        #expect(node.coordinate == Coordinate(latitude: 37.5663, longitude: 126.9769))
        #expect(way.nodeIDs == [1, 2, 3])
        #expect(way.tags["addr:street"] == "Quai Jean-Charles Rey" && way.tags["note"] == "a,b=c")
        #expect(
            locations == [
                Coordinate(latitude: 37.5663, longitude: 126.9769),
                Coordinate(latitude: -33.9, longitude: -0.1), nil,
            ])
        #expect(relation.members.map(\.ref) == [10, 11, 1])
        #expect(relation.members.map(\.role) == ["outer", "inner", ""])
        #expect(relation.members.map(\.type) == ["way", "way", "node"])
    }

    @Test(
        "bad lines are named by line and element",
        arguments: [
            ("n1 T x1 y2\nq5 T\n", 2, nil as String?, "unknown element type"),
            ("n1 T x1 y2\nn2 T x1\n", 2, "node 2", "without a location"),
            ("n1 T x1 y95\n", 1, "node 1", "out of range"),
            ("w3 Tbuilding=yes Nn1x1y2,q\n", 1, "way 3", "bad node reference"),
            ("w3 Tbuilding Nn1\n", 1, "way 3", "without \"=\""),
            ("n1 T x1 y2\nn2 T x1 y", 2, nil, "ends inside a line"),
        ])
    func badLines(text: String, line: Int, element: String?, reason: String) {
        #expect {
            _ = try read(text)
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.path == "x.osm.pbf" && e.line == line && e.element == element
                && e.reason.contains(reason)
        }
    }
}
