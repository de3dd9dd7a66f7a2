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

    /// Overpass JSON's `out geom;` form of a building relation: two outer pieces (one with a
    /// point outside the query's box, null), an inner ring, and its door, node 5, as a member.
    static let relationWithMemberGeometry = """
        {"type": "relation", "id": 7, "members": [
          {"type": "way", "ref": 100, "role": "outer", "geometry": [
            {"lat": 60.1000, "lon": 24.9000}, {"lat": 60.1000, "lon": 24.9005},
            {"lat": 60.1000, "lon": 24.9010}]},
          {"type": "way", "ref": 101, "role": "outer", "geometry": [
            {"lat": 60.1000, "lon": 24.9010}, {"lat": 60.1010, "lon": 24.9010},
            null, {"lat": 60.1000, "lon": 24.9000}]},
          {"type": "way", "ref": 102, "role": "inner", "geometry": [
            {"lat": 60.1004, "lon": 24.9004}, {"lat": 60.1004, "lon": 24.9006},
            {"lat": 60.1006, "lon": 24.9006}, {"lat": 60.1004, "lon": 24.9004}]},
          {"type": "node", "ref": 5, "role": "entrance", "lat": 60.1000, "lon": 24.9005}],
         "tags": {"building": "yes", "type": "multipolygon"}}
        """

    /// Overpass's `out geom;` on a relation gives each member way its `geometry` and need not
    /// list the ways: each becomes a way of its own, its points nodes, so the multipolygon has
    /// its rings (before, a relation whose ways the file did not list had no outline). A point
    /// where a listed node is (the door) is that node, and the two pieces of a split ring
    /// share their ends; a point outside the query's box (null) has no place.
    @Test func aRelationsMemberGeometryMakesItsWays() throws {
        let json = """
            {"elements": [
              {"type": "node", "id": 5, "lat": 60.1000, "lon": 24.9005, "tags": {"entrance": "main"}},
              \(Self.relationWithMemberGeometry)
            ]}
            """
        let data = try OSMReader.read(data: Data(json.utf8), path: "rel.json")
        #expect(data.relations.map(\.id) == [7])
        #expect(data.ways.map(\.id) == [100, 101, 102])
        #expect(data.ways.allSatisfy { $0.tags.isEmpty })
        let place = Dictionary(uniqueKeysWithValues: data.nodes.map { ($0.id, $0.coordinate) })
        func points(_ way: OSMWay) -> [Coordinate?] { way.nodeIDs.map { place[$0] } }
        let outer = data.ways[0]
        let rest = data.ways[1]
        // The door is the listed node, with its tags; the pieces meet at the same nodes.
        #expect(outer.nodeIDs[1] == 5)
        #expect(data.nodes.first { $0.id == 5 }?.tags == ["entrance": "main"])
        #expect(rest.nodeIDs.first == outer.nodeIDs.last && rest.nodeIDs.last == outer.nodeIDs.first)
        #expect(rest.nodeIDs.count == 4 && points(rest)[2] == nil)
        #expect(points(outer)[2] == Coordinate(latitude: 60.1, longitude: 24.901))
        // The closed inner ring is closed by id, and no made-up id is a listed one.
        #expect(data.ways[2].nodeIDs.count == 4 && data.ways[2].nodeIDs.first == data.ways[2].nodeIDs.last)
        #expect(Set(data.nodes.map(\.id)).count == data.nodes.count)
        // The door, two more corners of the first piece, one of the second, three of the yard.
        #expect(data.nodes.count == 1 + 2 + 1 + 3)
    }

    /// Overpass's `out geom;` in XML: a way's `<nd>` carries its node's place (`lat`, `lon`:
    /// none outside the query's box), and a relation's member way its points as `<nd>`s inside
    /// the `<member>`, the nodes and member ways perhaps not listed. It reads as the same data in
    /// JSON's form reads (before: the ways had only the nodes the file listed, the relation no
    /// member ways, so no outline).
    @Test func overpassXMLFromOutGeomReadsAsItsJSONForm() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <osm version="0.6" generator="Overpass API 0.7.62.1 084b4234">
            <note>The data included in this document is from www.openstreetmap.org.</note>
            <meta osm_base="2019-04-21T00:00:00Z"/>
              <node id="1" lat="60.1712" lon="24.9413"><tag k="entrance" v="main"/></node>
              <node id="5" lat="60.1000" lon="24.9005"><tag k="entrance" v="main"/></node>
              <way id="10">
                <bounds minlat="60.1712" minlon="24.9413" maxlat="60.1714" maxlon="24.9420"/>
                <nd ref="1" lat="60.1712" lon="24.9413"/><nd ref="2" lat="60.1714" lon="24.9420"/>
                <nd ref="3"/><nd ref="1" lat="60.1712" lon="24.9413"/>
                <tag k="building" v="yes"/>
              </way>
              <relation id="7">
                <bounds minlat="60.1000" minlon="24.9000" maxlat="60.1010" maxlon="24.9010"/>
                <member type="way" ref="100" role="outer">
                  <nd lat="60.1000" lon="24.9000"/><nd lat="60.1000" lon="24.9005"/><nd lat="60.1000" lon="24.9010"/>
                </member>
                <member type="way" ref="101" role="outer">
                  <nd lat="60.1000" lon="24.9010"/><nd lat="60.1010" lon="24.9010"/><nd/>
                  <nd lat="60.1000" lon="24.9000"/>
                </member>
                <member type="way" ref="102" role="inner">
                  <nd lat="60.1004" lon="24.9004"/><nd lat="60.1004" lon="24.9006"/>
                  <nd lat="60.1006" lon="24.9006"/><nd lat="60.1004" lon="24.9004"/>
                </member>
                <member type="node" ref="5" role="entrance" lat="60.1000" lon="24.9005"/>
                <tag k="building" v="yes"/><tag k="type" v="multipolygon"/>
              </relation>
            </osm>
            """
        let json = """
            {"elements": [
              {"type": "node", "id": 1, "lat": 60.1712, "lon": 24.9413, "tags": {"entrance": "main"}},
              {"type": "node", "id": 5, "lat": 60.1000, "lon": 24.9005, "tags": {"entrance": "main"}},
              {"type": "way", "id": 10, "nodes": [1, 2, 3, 1], "tags": {"building": "yes"},
               "geometry": [{"lat": 60.1712, "lon": 24.9413}, {"lat": 60.1714, "lon": 24.9420},
                            null, {"lat": 60.1712, "lon": 24.9413}]},
              \(Self.relationWithMemberGeometry)
            ]}
            """
        let fromXML = try OSMReader.read(data: Data(xml.utf8), path: "geom.osm")
        #expect(fromXML == (try OSMReader.read(data: Data(json.utf8), path: "geom.json")))
        #expect(fromXML.ways.map(\.id) == [10, 100, 101, 102])
        #expect(fromXML.nodes.contains { $0.id == 2 })
    }

    /// An out-geom `<nd>` whose place is no number is refused, naming the way and line.
    @Test func anOutGeomPlaceThatIsNoNumberIsNamed() {
        let xml = """
            <osm>
              <way id="10">
                <nd ref="1" lat="60.1712" lon="east"/>
              </way>
            </osm>
            """
        #expect(
            throws: OSMError(
                path: "g.osm", line: 3, element: "way 10",
                reason: "<nd> lat=\"60.1712\" lon=\"east\" are not numbers")
        ) {
            try OSMReader.read(data: Data(xml.utf8), path: "g.osm")
        }
    }

    /// A file JOSM saved keeps what its user deleted, marked `action="delete"`, and OSM's
    /// history or change files mark deleted elements `visible="false"`: neither is read (before,
    /// a deleted door was planned as the main one and a deleted building indexed). What JOSM
    /// changed (`action="modify"`) or made (negative ids) is read.
    @Test func elementsJOSMDeletedAreNotRead() throws {
        let xml = """
            <?xml version='1.0' encoding='UTF-8'?>
            <osm version='0.6' upload='never' generator='JOSM'>
              <node id='1' timestamp='2024-03-01T10:00:00Z' uid='7' user='a' visible='true' version='3' changeset='9' lat='60.1712' lon='24.9413'>
                <tag k='entrance' v='yes' />
              </node>
              <node id='4' action='delete' timestamp='2024-03-01T10:00:00Z' uid='7' user='a' visible='true' version='3' changeset='9' lat='60.1713' lon='24.9416'>
                <tag k='entrance' v='main' />
              </node>
              <node id='5' visible='false' version='4' changeset='9' lat='60.1715' lon='24.9414'>
                <tag k='entrance' v='main' />
              </node>
              <node id='-2' action='modify' visible='true' lat='60.1714' lon='24.9420' />
              <node id='3' action='modify' visible='true' version='1' lat='60.1716' lon='24.9413' />
              <way id='10' version='1' visible='true'>
                <nd ref='1' />
                <nd ref='-2' />
                <nd ref='3' />
                <nd ref='1' />
                <tag k='building' v='yes' />
              </way>
              <way id='11' action='delete' version='1' visible='true'>
                <nd ref='1' />
                <nd ref='3' />
                <nd ref='-2' />
                <nd ref='1' />
                <tag k='building' v='garage' />
              </way>
              <relation id='20' action='delete' version='1' visible='true'>
                <member type='way' ref='11' role='outer' />
                <tag k='building' v='yes' />
                <tag k='type' v='multipolygon' />
              </relation>
            </osm>
            """
        let data = try OSMReader.read(data: Data(xml.utf8), path: "josm.osm")
        #expect(data.nodes.map(\.id) == [1, -2, 3])
        #expect(data.entranceNodes.map(\.id) == [1])
        #expect(data.ways.map(\.id) == [10])
        #expect(data.ways[0].tags == ["building": "yes"] && data.ways[0].nodeIDs == [1, -2, 3, 1])
        #expect(data.relations.isEmpty)
    }

    /// OSM's history files hold every version of an element, oldest first: the last version
    /// in the file decides. Deleted last (`visible="false"` or `action="delete"`), no version
    /// of it is read (before: only the deleted version was dropped, and version 1 of a deleted
    /// door was read); visible again after (undeleted), that version; several visible versions,
    /// the last, as `osmium time-filter` gives it for now (before: all, refused as twice). An
    /// element listed twice without differing versions (Overpass Turbo's tagged and bare
    /// copies) is no history: both are read, for the commands to judge.
    @Test func aHistoryFileIsReadAsItsLastVersions() throws {
        let xml = """
            <?xml version='1.0' encoding='UTF-8'?>
            <osm version='0.6' generator='osmium/1.15.0'>
              <node id='1' version='1' visible='true' lat='37.5000' lon='127.0000' />
              <node id='2' version='1' visible='true' lat='37.5000' lon='127.0010' />
              <node id='3' version='1' visible='true' lat='37.5010' lon='127.0010' />
              <node id='4' version='1' visible='true' lat='37.5010' lon='127.0000' />
              <node id='5' version='1' visible='true' lat='37.5000' lon='127.0005'><tag k='entrance' v='main'/><tag k='ref' v='GONE'/></node>
              <node id='5' version='2' visible='false'/>
              <node id='6' version='1' visible='true' lat='37.5010' lon='127.0005'><tag k='entrance' v='yes'/><tag k='ref' v='B'/></node>
              <node id='6' version='2' visible='false'/>
              <node id='6' version='3' visible='true' lat='37.5010' lon='127.0004'><tag k='entrance' v='yes'/><tag k='ref' v='B2'/></node>
              <node id='7' version='1' visible='true' lat='37.5005' lon='127.0000'><tag k='entrance' v='main'/><tag k='ref' v='OLD'/></node>
              <node id='7' version='2' visible='true' lat='37.5005' lon='127.0010'><tag k='entrance' v='main'/><tag k='ref' v='NEW'/></node>
              <node id='8' lat='37.5006' lon='127.0010'><tag k='entrance' v='service'/></node>
              <node id='8' lat='37.5006' lon='127.0010'/>
              <node id='9' action='delete' version='2' lat='37.5007' lon='127.0010'><tag k='entrance' v='yes'/></node>
              <way id='10' version='1' visible='true'><nd ref='1'/><nd ref='5'/><nd ref='2'/><nd ref='3'/><nd ref='6'/><nd ref='4'/><nd ref='1'/><tag k='building' v='yes'/></way>
              <way id='10' version='2' visible='true'><nd ref='1'/><nd ref='2'/><nd ref='3'/><nd ref='6'/><nd ref='4'/><nd ref='1'/><tag k='building' v='yes'/></way>
              <way id='11' version='1' visible='true'><nd ref='1'/><nd ref='2'/><nd ref='3'/><nd ref='1'/><tag k='building' v='shed'/></way>
              <way id='11' version='2' visible='false'/>
              <relation id='20' version='1' visible='true'><member type='way' ref='10' role='outer'/><tag k='type' v='multipolygon'/><tag k='building' v='yes'/></relation>
              <relation id='20' version='2' action='delete'><member type='way' ref='10' role='outer'/><tag k='type' v='multipolygon'/><tag k='building' v='yes'/></relation>
            </osm>
            """
        let data = try OSMReader.read(data: Data(xml.utf8), path: "history.osm")
        #expect(data.nodes.map(\.id) == [1, 2, 3, 4, 6, 7, 8, 8])
        #expect(data.nodes.first { $0.id == 6 }?.tags["ref"] == "B2")
        #expect(
            data.nodes.first { $0.id == 6 }?.coordinate == Coordinate(latitude: 37.5010, longitude: 127.0004))
        #expect(data.nodes.first { $0.id == 7 }?.tags["ref"] == "NEW")
        #expect(data.ways == [OSMWay(id: 10, nodeIDs: [1, 2, 3, 6, 4, 1], tags: ["building": "yes"])])
        #expect(data.relations.isEmpty)
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

    /// A file cut anywhere after its first line, inside a tag, an attribute's value or
    /// between elements, says it ends early, at the line where it ends (before, a cut inside a
    /// start tag named the attribute left empty: `lat="60.1" lon="" are not numbers`,
    /// `<node> without a numeric id (id="")`).
    @Test func aFileCutAnywhereSaysItEndsEarlyWhereItEnds() {
        let text = Self.xml
        // From the first byte of the second line (the declaration alone is no OSM file).
        let start = text.utf8.index(text.utf8.firstIndex(of: UInt8(ascii: "\n"))!, offsetBy: 2)
        for end in text.utf8.indices[start...].dropLast("</osm>".utf8.count) {
            let cut = Data(text.utf8[..<end])
            // Its last line with anything on it.
            let trimmed = String(decoding: cut, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let lines = 1 + trimmed.count(where: { $0 == "\n" })
            do throws(OSMError) {
                _ = try OSMReader.read(data: cut, path: "cut.osm")
                Issue.record("read a file cut at byte \(cut.count)")
            } catch {
                #expect(error.reason.hasSuffix("(truncated?)"), "cut at byte \(cut.count): \(error)")
                #expect(error.line == lines, "cut at byte \(cut.count): \(error)")
            }
        }
    }

    /// Something after `</osm>`, which ends the document, is no cut file: it is named with its
    /// line (before: "the file ends inside a tag, before </osm> (truncated?)" at the last line,
    /// or "the document ends too early (truncated?)"; other XML readers refuse it too, as XML
    /// allows only comments and white space there). Two files joined with `cat` are told how
    /// to join them (before: the second's declaration was "a processing instruction").
    /// Comments and white space after it are read.
    @Test(arguments: [
        ("\ntrailing words", 2, #"text after </osm> ("trailing words"), which ends the document"#),
        ("\n\n  trailing words\n\n", 3, #"text after </osm> ("trailing words")"#),
        ("<!-- fine -->\n<x/>\n", 2, #"text after </osm> ("<x/>")"#),
        (
            "\n<osm version=\"0.6\"><node id=\"9\" lat=\"1\" lon=\"2\"/></osm>\n", 2,
            "XML allows only comments and white space after it (two files joined? join OSM files with `osmium merge`)"
        ),
        ("\n<node id=\"9\" lat=", 2, "text after </osm>"),
        (
            "\n" + OSMReaderTests.xml, 2,
            "an XML declaration (<?xml …?>) after the start of the file, where XML allows none (two files joined? join OSM files with `osmium merge`)"
        ),
    ])
    func textAfterTheRootIsNamed(tail: String, linesAfter: Int, expected: String) throws {
        let text = Self.xml + tail
        let rootLine = Self.xml.count(where: { $0 == "\n" }) + 1
        #expect {
            _ = try OSMReader.read(data: Data(text.utf8), path: "tail.osm")
        } throws: { error in
            guard let error = error as? OSMError else { return false }
            let said =
                error.line == rootLine + linesAfter - 1 && error.reason.contains(expected)
                && !error.reason.contains("truncated")
            if !said { Issue.record("\(error)") }
            return said
        }
        for fine in ["\n", "\n<!-- exported by hand -->\n  \n"] {
            #expect(try OSMReader.read(data: Data((Self.xml + fine).utf8), path: "fine.osm").nodes.count == 2)
        }
    }

    @Test(
        arguments: [
            ("<osm><node id=\"x\" lat=\"1\" lon=\"2\"/></osm>", "numeric id"),
            ("<osm><node id=\"5\" lat=\"north\" lon=\"2\"/></osm>", "node 5"),
            ("<osm><node id=\"5\" lat=\"95\" lon=\"2\"/></osm>", "out of range"),
            ("<html></html>", "a web page (HTML), not OSM data"),
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

    /// The advice's output is named after its input, beside it, and is never it nor a file
    /// there (`taken`): before, every advice wrote FILE.osm.
    @Test(arguments: [
        (OSMFormat.pbf, "x.osm.pbf", String?(".osm"), [String](), "x.osm"),
        (.pbf, "d/x.pbf", ".osm", [], "d/x.osm"),
        (.pbf, "FILE.osm", ".osm", [], "FILE-xml.osm"),
        (.pbf, "x.osm.pbf", ".osm", ["x.osm", "x-xml.osm"], "x-xml-2.osm"),
        (.gzip, "x.osm.gz", nil, [], "x.osm"),
        (.gzip, "x.osm.gz", nil, ["x.osm"], "x-decompressed.osm"),
        (.gzip, "x.json.gz", nil, ["x.json"], "x-decompressed.json"),
        (.gzip, "/d/x.json.gz", nil, [], "/d/x.json"),
        (.gzip, "x.osm.pbf.gz", nil, [], "x.osm.pbf"),
        (.gzip, "pbfgz.osm", nil, [], "pbfgz-decompressed.osm"),
        (.bzip2, "x.osm.bz2", ".osm.pbf", [], "x.osm.pbf"),
        (.gzip, "FILE.osm.pbf", ".osm.pbf", [], "FILE-converted.osm.pbf"),
        (.gzip, ".gz", nil, [], ".gz-decompressed"),
    ])
    func convertedNamesAreNeverTheirInput(
        format: OSMFormat, path: String, ending: String?, taken: [String], expected: String
    ) {
        #expect(format.convertedName(path, ending: ending, exists: { taken.contains($0) }) == expected)
    }

    @Test func missingFile() {
        #expect(throws: OSMError.self) { _ = try OSMReader.read(path: "/nonexistent.osm") }
    }
}
