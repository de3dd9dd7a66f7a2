import Arrival
import Foundation
import Geo
import Glibc
import TestSupport
import Testing

@testable import Daemon

/// `go QUERY` leads to the doors of the building the search found (audit 12 A12-7) and, when
/// the query named one of its doors, to that door first (A12-9). A daemon on its real socket,
/// positions from an NMEA file of a walker standing near Seoul City Hall, a door index
/// imported by the binary from hand-written OSM (`seoulXML`), the walk's door read by `status`.
@Suite(.serialized) struct GoDoorMatchTests {
    /// Seoul City Hall (way/2001: 정문 main south, 후문 (ref B) service east); an L-shaped
    /// office (way/2008, 엘자빌딩, its one door on its west wall) whose centroid lies in the
    /// shop in its inner corner (way/2009, 이웃상가, a door of its own); a multipolygon with a
    /// courtyard (relation/3001, 덕수궁 별관, its door on the south wall) whose centroid lies in
    /// a pavilion in the courtyard (way/2007, 정자, a door of its own). After audit 12's
    /// seoul2.osm and seoul3.osm.
    static let seoulXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6">
         <node id="1001" lat="37.5660" lon="126.9775"/><node id="1002" lat="37.5660" lon="126.9785"/>
         <node id="1003" lat="37.5668" lon="126.9785"/><node id="1004" lat="37.5668" lon="126.9775"/>
         <node id="1005" lat="37.5660" lon="126.9780"><tag k="entrance" v="main"/><tag k="name" v="정문"/></node>
         <node id="1006" lat="37.5664" lon="126.9785">
          <tag k="entrance" v="service"/><tag k="name" v="후문"/><tag k="ref" v="B"/></node>
         <way id="2001"><nd ref="1001"/><nd ref="1005"/><nd ref="1002"/><nd ref="1006"/><nd ref="1003"/>
          <nd ref="1004"/><nd ref="1001"/>
          <tag k="building" v="government"/><tag k="name" v="서울특별시청"/>
          <tag k="addr:street" v="세종대로"/><tag k="addr:housenumber" v="110"/></way>
         <node id="1031" lat="37.5640" lon="126.9770"/><node id="1032" lat="37.5640" lon="126.9780"/>
         <node id="1033" lat="37.5646" lon="126.9780"/><node id="1034" lat="37.5646" lon="126.9770"/>
         <node id="1035" lat="37.5640" lon="126.9775"><tag k="entrance" v="main"/></node>
         <node id="1041" lat="37.5642" lon="126.9773"/><node id="1042" lat="37.5642" lon="126.9777"/>
         <node id="1043" lat="37.5644" lon="126.9777"/><node id="1044" lat="37.5644" lon="126.9773"/>
         <way id="2004"><nd ref="1031"/><nd ref="1035"/><nd ref="1032"/><nd ref="1033"/><nd ref="1034"/>
          <nd ref="1031"/></way>
         <way id="2005"><nd ref="1041"/><nd ref="1042"/><nd ref="1043"/><nd ref="1044"/><nd ref="1041"/></way>
         <relation id="3001">
          <member type="way" ref="2004" role="outer"/><member type="way" ref="2005" role="inner"/>
          <tag k="type" v="multipolygon"/><tag k="building" v="yes"/><tag k="name" v="덕수궁 별관"/></relation>
         <node id="1071" lat="37.56425" lon="126.97745"/><node id="1072" lat="37.56425" lon="126.97755"/>
         <node id="1073" lat="37.56435" lon="126.97755"/><node id="1074" lat="37.56435" lon="126.97745"/>
         <node id="1075" lat="37.56425" lon="126.9775"><tag k="entrance" v="main"/></node>
         <way id="2007"><nd ref="1071"/><nd ref="1075"/><nd ref="1072"/><nd ref="1073"/><nd ref="1074"/>
          <nd ref="1071"/><tag k="building" v="yes"/><tag k="name" v="정자"/></way>
         <node id="1081" lat="37.5620" lon="126.9800"/><node id="1082" lat="37.5620" lon="126.9810"/>
         <node id="1083" lat="37.5622" lon="126.9810"/><node id="1084" lat="37.5622" lon="126.9802"/>
         <node id="1085" lat="37.5630" lon="126.9802"/><node id="1086" lat="37.5630" lon="126.9800"/>
         <node id="1087" lat="37.5625" lon="126.9800"><tag k="entrance" v="main"/></node>
         <way id="2008"><nd ref="1081"/><nd ref="1082"/><nd ref="1083"/><nd ref="1084"/><nd ref="1085"/>
          <nd ref="1086"/><nd ref="1087"/><nd ref="1081"/>
          <tag k="building" v="office"/><tag k="name" v="엘자빌딩"/>
          <tag k="addr:street" v="을지로"/><tag k="addr:housenumber" v="5"/></way>
         <node id="1091" lat="37.56225" lon="126.98025"/><node id="1092" lat="37.56225" lon="126.98060"/>
         <node id="1093" lat="37.56260" lon="126.98060"/><node id="1094" lat="37.56260" lon="126.98025"/>
         <node id="1095" lat="37.56260" lon="126.98040"><tag k="entrance" v="main"/></node>
         <way id="2009"><nd ref="1091"/><nd ref="1092"/><nd ref="1093"/><nd ref="1095"/><nd ref="1094"/>
          <nd ref="1091"/><tag k="building" v="retail"/><tag k="name" v="이웃상가"/>
          <tag k="addr:street" v="을지로"/><tag k="addr:housenumber" v="7"/></way>
        </osm>
        """

    static let mainDoor = Coordinate(latitude: 37.5660, longitude: 126.9780)
    static let backDoor = Coordinate(latitude: 37.5664, longitude: 126.9785)

    /// A daemon in `dir` with `seoulXML` imported as its door index, no gazetteer, the walker
    /// standing near City Hall; `memory`, when given, is its memory file's text at the start.
    static func seoulDaemon(_ dir: TempDir, memory: String? = nil) throws -> DaemonProcess {
        try GoQueryTests.importDoors(seoulXML, as: "seoul", in: dir)
        if let memory {
            try memory.write(toFile: dir.path + "/memory.json", atomically: true, encoding: .utf8)
        }
        return try daemon(
            dir, doors: try GoQueryTests.doorsFolder(dir),
            standing: .init(latitude: 37.5655, longitude: 126.9770))
    }

    /// A daemon in `dir` on the door indexes `doors` (no gazetteer), the walker standing at
    /// `point` (an NMEA file, paced); listening (the test stops at once if it does not).
    static func daemon(_ dir: TempDir, doors: String, standing point: Coordinate) throws -> DaemonProcess {
        let nmea = dir.path + "/standing.nmea"
        try GoQueryTests.standing(at: point).write(toFile: nmea, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--speak-wav", dir.path + "/wav", "--baro", "none", "--nmea", nmea,
                "--gazetteer", dir.path + "/no-gazetteer.sqlite", "--doors", doors,
            ], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        return daemon
    }

    /// Sends `go QUERY` (the test stops at once unless it is accepted, matching `osm`), then
    /// asks `status` until the walk has OSM's doors (its log's "door index: … for NAME"), and
    /// returns the walk's door (nil: none, the building's centre); `reply`, the go's reply.
    static func goDoor(
        _ query: String, osm: String, client: ControlClient, daemon: DaemonProcess,
        reply: (([String: JSONValue]) -> Void)? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Door? {
        // A new walk each time (the same destination again within 10 s goes on, asking nothing).
        _ = try client.request(#"{"cmd": "stop"}"#)
        let asked = daemon.stderr.components(separatedBy: "door index: ").count
        let go = fields(try client.request(#"{"cmd": "go", "query": "\#(query)"}"#))
        try #require(go["ok"] == .bool(true), "\(query): \(go)", sourceLocation: sourceLocation)
        try #require(
            go["match"]?.objectValue?["osm"] == .string(osm), "\(query): \(go)",
            sourceLocation: sourceLocation)
        reply?(go)
        for _ in 0..<250 where daemon.stderr.components(separatedBy: "door index: ").count == asked {
            usleep(20_000)
        }
        let status = fields(try client.request(#"{"cmd": "status"}"#))
        guard let door = status["door"], door != .null else { return nil }
        return try door.decode(Door.self)
    }

    /// "엘자빌딩", an L-shaped office whose centroid lies in the shop in its corner, is led to
    /// its own door, not the shop's; "덕수궁 별관", whose centroid lies in the pavilion in its
    /// courtyard, to its own, not the pavilion's. Before: the doors of the building at the
    /// centroid (the walker led to, and asked about, the neighbour's door).
    @Test func goLeadsToTheDoorsOfTheBuildingFoundNotOfTheOneAtItsCentroid() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.seoulDaemon(dir)
        let client = try daemon.client()
        let office = try Self.goDoor("엘자빌딩", osm: "way/2008", client: client, daemon: daemon)
        #expect(office?.coordinate == Coordinate(latitude: 37.5625, longitude: 126.9800), "\(daemon.stderr)")
        let annex = try Self.goDoor("덕수궁 별관", osm: "relation/3001", client: client, daemon: daemon)
        #expect(annex?.coordinate == Coordinate(latitude: 37.5640, longitude: 126.9775), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// The bundled Helsinki index: the cathedral (way/419479428, 3 doors) has its centroid in
    /// a small building of no doors in its middle. Before: "0 doors for Helsingin
    /// tuomiokirkko", the walker led to the centre.
    @Test func theCathedralInTheBundledIndexHasItsDoors() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.daemon(
            dir, doors: GoQueryTests.repo + "/artifacts/doors/helsinki.db",
            standing: Coordinate(latitude: 60.1699, longitude: 24.9500))
        let client = try daemon.client()
        let door = try Self.goDoor(
            "Helsingin tuomiokirkko", osm: "way/419479428", client: client, daemon: daemon)
        // Its entrance=main, node 324702975.
        #expect(
            door?.coordinate == Coordinate(latitude: 60.1703651, longitude: 24.9516588), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("door index: 3 doors for Helsingin tuomiokirkko"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// "후문", the mapped name of City Hall's service door, leads to that door, and so does
    /// "서울특별시청 후문" and its ref "서울특별시청 B"; the building's own name leads to its main
    /// door. Before: found by the door's name, then led to 정문.
    @Test func aQueryNamingADoorLeadsToThatDoor() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try Self.seoulDaemon(dir)
        let client = try daemon.client()
        for query in ["후문", "서울특별시청 후문", "서울특별시청 B"] {
            var reply: [String: JSONValue]?
            let door = try Self.goDoor(query, osm: "way/2001", client: client, daemon: daemon) { reply = $0 }
            #expect(door?.coordinate == Self.backDoor, "\(query): \(daemon.stderr)")
            #expect(door?.label == "B", "\(query)")
            #expect(
                reply?["match"]?.objectValue?["door"]?.objectValue?["label"] == "B",
                "\(query): \(reply ?? [:])")
        }
        for query in ["서울특별시청", "세종대로 110"] {
            let door = try Self.goDoor(query, osm: "way/2001", client: client, daemon: daemon)
            #expect(door?.coordinate == Self.mainDoor, "\(query): \(daemon.stderr)")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// The walker rejected 후문 on an earlier walk: "후문" leads to 정문 (ARCHITECTURE: every door
    /// within 15 m of a rejection is dropped, a named one too).
    @Test func aRejectedDoorIsNotLedToWhenNamed() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let memory = """
            {"version": 1, "buildings": [{"name": "서울특별시청", "center": {"lat": 37.5664, "lon": 126.978},
             "changed": "2026-01-01T00:00:00Z", "rejected": [{"lat": 37.5664, "lon": 126.9785}]}]}
            """
        let daemon = try Self.seoulDaemon(dir, memory: memory)
        let client = try daemon.client()
        var note: String?
        let door = try Self.goDoor("후문", osm: "way/2001", client: client, daemon: daemon) {
            note = $0["note"]?.stringValue
        }
        #expect(door?.coordinate == Self.mainDoor, "\(daemon.stderr)")
        // The reply says the door asked for is not the one led to, and why.
        #expect(
            note?.contains("\"후문\" names door B") == true && note?.contains("the walker rejected it") == true,
            "\(note ?? "no note")")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// An address tagged on an entrance (OSM's way to map a building of several addresses)
    /// finds its building and leads to that door: a building with no address of its own, its
    /// two entrances tagged 퇴계로 100 and 명동길 7 (audit 12's addrent.osm); in the bundled
    /// Helsinki index, the University main building (relation/1320784), whose museum door is
    /// tagged Fabianinkatu 33. Before: "no place called …".
    @Test func anAddressTaggedOnAnEntranceLeadsToThatEntrance() throws {
        let dir = TempDir()
        defer { dir.remove() }
        try GoQueryTests.importDoors(
            """
            <osm version="0.6">
             <node id="1" lat="37.5600" lon="126.9900"/><node id="2" lat="37.5600" lon="126.9906"/>
             <node id="3" lat="37.5604" lon="126.9906"/><node id="4" lat="37.5604" lon="126.9900"/>
             <node id="5" lat="37.5600" lon="126.9903"><tag k="entrance" v="main"/>
              <tag k="addr:street" v="퇴계로"/><tag k="addr:housenumber" v="100"/></node>
             <node id="6" lat="37.5602" lon="126.9906"><tag k="entrance" v="yes"/>
              <tag k="addr:street" v="명동길"/><tag k="addr:housenumber" v="7"/></node>
             <way id="10"><nd ref="1"/><nd ref="5"/><nd ref="2"/><nd ref="6"/><nd ref="3"/><nd ref="4"/>
              <nd ref="1"/><tag k="building" v="commercial"/></way>
            </osm>
            """, as: "addrent", in: dir)
        try FileManager.default.copyItem(
            atPath: GoQueryTests.repo + "/artifacts/doors/helsinki.db",
            toPath: try GoQueryTests.doorsFolder(dir) + "/helsinki.db")
        let daemon = try Self.daemon(
            dir, doors: try GoQueryTests.doorsFolder(dir),
            standing: Coordinate(latitude: 37.5655, longitude: 126.9770))
        let client = try daemon.client()
        for (query, door) in [
            ("퇴계로 100", Coordinate(latitude: 37.5600, longitude: 126.9903)),
            ("명동길 7", Coordinate(latitude: 37.5602, longitude: 126.9906)),
        ] {
            var name: JSONValue?
            let led = try Self.goDoor(query, osm: "way/10", client: client, daemon: daemon) {
                name = $0["destination"]?.objectValue?["name"]
            }
            #expect(led?.coordinate == door, "\(query): \(daemon.stderr)")
            // Called by the address asked for, not "이름 없는 건물" (the building has no name
            // or address of its own).
            #expect(name == .string(query), "\(query): \(String(describing: name))")
        }
        let go = fields(try client.request(#"{"cmd": "go", "query": "Fabianinkatu 33", "far": true}"#))
        #expect(go["match"]?.objectValue?["osm"] == "relation/1320784", "\(go)")
        let museum = try #require(go["destination"]).decode(Destination.self).door
        #expect(museum?.coordinate == Coordinate(latitude: 60.1694916, longitude: 24.949413), "\(go)")
        // A building with no name or address of its own, found by an address mapped as a point
        // inside it: called by that address, its words as sent (audit 14's A14-5: before, "이름
        // 없는 건물"); by the point's own number where the query's was shorter ("36" of "36b").
        for (query, osm, name) in [
            ("Korkeavuorenkatu 41", "way/22498746", "Korkeavuorenkatu 41"),
            ("Pitkänsillanranta 17", "relation/1681392", "Pitkänsillanranta 17"),
            ("36 Aleksanterinkatu, Helsinki", "way/123550792", "Aleksanterinkatu 36a"),
        ] {
            let reply = fields(
                try client.request(#"{"cmd": "go", "query": "\#(query)", "far": true}"#))
            #expect(reply["match"]?.objectValue?["osm"] == .string(osm), "\(query): \(reply)")
            #expect(reply["destination"]?.objectValue?["name"] == .string(name), "\(query): \(reply)")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
