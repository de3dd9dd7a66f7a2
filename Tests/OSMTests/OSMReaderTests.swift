import Foundation
import Geo
import OSM
import Testing

@Suite("Reading OSM XML and Overpass JSON")
struct OSMReaderTests {
    static let xml = """
        <?xml version='1.0' encoding='UTF-8'?>
        <osm version="0.6" generator="test">
          <node id="1" lat="60.1712" lon="24.9413">
            <tag k="entrance" v="main"/>
            <tag k="ref" v="A"/>
          </node>
          <node id="2" lat="60.1714" lon="24.9420"/>
          <way id="10">
            <nd ref="1"/><nd ref="2"/><nd ref="1"/>
            <tag k="building" v="train_station"/>
          </way>
          <relation id="20">
            <member type="way" ref="10" role="outer"/>
            <tag k="type" v="multipolygon"/>
          </relation>
        </osm>
        """

    static let overpass = """
        {"version": 0.6, "elements": [
          {"type": "node", "id": 1, "lat": 60.1712, "lon": 24.9413, "tags": {"entrance": "main", "ref": "A"}},
          {"type": "node", "id": 2, "lat": 60.1714, "lon": 24.9420},
          {"type": "way", "id": 10, "nodes": [1, 2, 1], "tags": {"building": "train_station"}},
          {"type": "relation", "id": 20, "members": [{"type": "way", "ref": 10, "role": "outer"}],
           "tags": {"type": "multipolygon"}}
        ]}
        """

    /// Overpass's `out geom;` places a way's nodes in its `geometry` instead of listing them:
    /// they become untagged nodes, so the way keeps its outline (before, only the door the file
    /// listed: the building's outline was that one point). A listed node keeps its tags.
    @Test func aWaysGeometryPlacesTheNodesTheFileDoesNotList() throws {
        let json = """
            {"elements": [
              {"type": "node", "id": 1, "lat": 60.1712, "lon": 24.9413, "tags": {"entrance": "main"}},
              {"type": "way", "id": 10, "nodes": [1, 2, 3, 1], "tags": {"building": "yes"},
               "geometry": [{"lat": 60.1712, "lon": 24.9413}, {"lat": 60.1714, "lon": 24.9420},
                            null, {"lat": 60.1712, "lon": 24.9413}]}
            ]}
            """
        let data = try OSMReader.read(data: Data(json.utf8), path: "geom.json")
        #expect(data.nodes.map(\.id) == [1, 2])
        #expect(data.nodes[0].tags == ["entrance": "main"])
        #expect(
            data.nodes[1]
                == OSMNode(id: 2, coordinate: Coordinate(latitude: 60.1714, longitude: 24.9420), tags: [:]))
    }

    @Test func xmlAndOverpassGiveTheSameData() throws {
        let a = try OSMReader.read(data: Data(Self.xml.utf8), path: "a.osm")
        let b = try OSMReader.read(data: Data(Self.overpass.utf8), path: "b.json")
        #expect(a == b)
        #expect(a.nodes.count == 2)
        #expect(a.entranceNodes.map(\.id) == [1])
        #expect(a.nodes[0].tags == ["entrance": "main", "ref": "A"])
        #expect(a.ways == [OSMWay(id: 10, nodeIDs: [1, 2, 1], tags: ["building": "train_station"])])
        #expect(a.relations[0].members == [OSMMember(type: "way", ref: 10, role: "outer")])
    }

    /// Files saved by Windows editors start with the UTF-8 byte-order mark EF BB BF: they were
    /// refused as "neither OSM XML nor Overpass JSON". The mark is skipped; the rest is read
    /// as without it, and an error names the same line.
    @Test func aByteOrderMarkIsSkipped() throws {
        let bom = Data([0xEF, 0xBB, 0xBF])
        let xml = try OSMReader.read(data: Data(Self.xml.utf8), path: "a.osm")
        #expect(try OSMReader.read(data: bom + Data(Self.xml.utf8), path: "a.osm") == xml)
        #expect(
            try OSMReader.read(data: bom + Data(("\n  " + Self.xml.dropFirst(38)).utf8), path: "a.osm") == xml
        )
        #expect(try OSMReader.read(data: bom + Data(Self.overpass.utf8), path: "b.json") == xml)
        for (text, expected) in [
            ("", "empty"), ("\n", "empty"), ("hello", "neither OSM XML nor Overpass JSON"),
        ] {
            #expect {
                _ = try OSMReader.read(data: bom + Data(text.utf8), path: "bom")
            } throws: { error in
                (error as? OSMError)?.description.contains(expected) == true
            }
        }
        let cut = Data(String(Self.xml.prefix(150)).utf8)
        func line(_ data: Data) -> Int? {
            do throws(OSMError) {
                _ = try OSMReader.read(data: data, path: "cut.osm")
                return nil
            } catch { return error.line }
        }
        #expect(line(bom + cut) != nil && line(bom + cut) == line(cut))
    }

    @Test func truncatedXMLFailsNamingTheLine() {
        let cut = String(Self.xml.prefix(150))
        #expect {
            _ = try OSMReader.read(data: Data(cut.utf8), path: "cut.osm")
        } throws: { error in
            guard let e = error as? OSMError else { return false }
            return e.path == "cut.osm" && e.line != nil && e.description.hasPrefix("cut.osm:")
        }
    }

    @Test(
        arguments: [
            ("<osm><node id=\"x\" lat=\"1\" lon=\"2\"/></osm>", "numeric id"),
            ("<osm><node id=\"5\" lat=\"north\" lon=\"2\"/></osm>", "node 5"),
            ("<osm><node id=\"5\" lat=\"95\" lon=\"2\"/></osm>", "out of range"),
            ("<html></html>", "expected <osm>"),
            ("{\"elements\": [{\"type\": \"node\", \"id\": 7}]}", "node without lat/lon"),
            ("{\"elements\": [{\"type\": \"node\", \"id\": \"seven\"}]}", "elements[0].id"),
            ("{\"nodes\": []}", "elements"),
            ("   ", "empty"),
            ("hello", "neither OSM XML nor Overpass JSON"),
        ])
    func badInputIsNamed(text: String, expected: String) {
        #expect {
            _ = try OSMReader.read(data: Data(text.utf8), path: "bad")
        } throws: { error in
            (error as? OSMError)?.description.contains(expected) == true
        }
    }

    @Test func missingFile() {
        #expect(throws: OSMError.self) { _ = try OSMReader.read(path: "/nonexistent.osm") }
    }
}
