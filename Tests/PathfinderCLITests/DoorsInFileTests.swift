import Foundation
import Glibc
import Testing

/// `plan --osm`, `memory osm` and `replay --osm` read an OSM file through a door index made
/// from it in a temporary folder (stop 43); a review of that change found these.
@Suite("an OSM file read as a door index")
struct DoorsInFileTests {
    static let repo = DemoTests.repo
    static let destination = repo + "/artifacts/demo/destination.json"

    /// A building way listed twice (a file joined by hand) is read once (before: exit 2,
    /// "an OSM element appears twice … osmium cat", where only nodes were read and it worked).
    @Test func anElementTwiceIsReadOnce() async throws {
        let scratch = try Scratch()
        let osm = try String(contentsOfFile: Self.repo + "/artifacts/demo/doors.osm", encoding: .utf8)
        let way = try #require(osm.range(of: "<way")).lowerBound
        let end = try #require(osm.range(of: "</way>")).upperBound
        let twice = try scratch.write(
            "twice.osm", osm.replacingCharacters(in: end..<end, with: "\n" + osm[way..<end]))
        let plan = await runPathfinder([
            "plan", "--destination", Self.destination, "--osm", twice, "--compact",
        ])
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("\"label\":\"A\""), "\(plan.out)")
    }

    /// Door A listed twice with different tags (two versions of it, joined by hand): which is
    /// right is not for `plan` to guess, so it exits 2 naming the node (before: the first
    /// was taken and the other dropped unsaid). The same copy twice is still read once.
    @Test func anElementTwiceWithDifferentContentIsNamed() async throws {
        let scratch = try Scratch()
        let osm = try String(contentsOfFile: Self.repo + "/artifacts/demo/doors.osm", encoding: .utf8)
        let ref = try #require(osm.range(of: "<tag k=\"ref\" v=\"A\"/>"))
        let node = try #require(
            osm.range(of: "<node", options: .backwards, range: osm.startIndex..<ref.lowerBound))
        let end = try #require(osm.range(of: "</node>", range: ref.upperBound..<osm.endIndex)).upperBound
        let door = String(osm[node.lowerBound..<end])
        let id = try #require(door.split(separator: "\"").dropFirst().first)
        for (name, copy, code) in [
            ("same.osm", door, 0),
            ("other.osm", door.replacingOccurrences(of: "v=\"A\"", with: "v=\"B\""), 2),
        ] {
            let file = try scratch.write(name, osm.replacingCharacters(in: end..<end, with: "\n" + copy))
            let plan = await runPathfinder([
                "plan", "--destination", Self.destination, "--osm", file, "--compact",
            ])
            #expect(plan.code == code, "\(name): \(plan.err)")
            if code == 2 {
                #expect(
                    plan.err.contains("\(file) (node \(id)): appears twice with different content"),
                    "\(plan.err)")
                #expect(plan.out.isEmpty)
            } else {
                #expect(plan.out.contains("\"label\":\"A\""), "\(plan.out)")
            }
        }
    }

    /// Overpass Turbo's usual query (`out body; >; out skel qt;`) lists each door on a building
    /// twice: with its tags, then again without them (`skel`), at the same place. A copy that
    /// only lacks tags is the same node: the tagged one is read, whichever comes first, from
    /// OSM XML and Overpass JSON, by `plan` and `memory osm` (before: exit 2, "appears twice
    /// with different content", advising `osmium merge`, which keeps both). A copy without tags
    /// somewhere else, or a way's copy with other nodes, is still refused naming it.
    @Test func anOverpassTurboExportIsRead() throws {
        let scratch = try Scratch()
        let destination = try scratch.write(
            "dest.json", #"{"name":"T","center":{"lat":37.5005,"lon":127.0005}}"#)
        // (id, lat, lon, tags) of the doors and corners; the way's node list.
        let doors: [(Int, String, String, [(String, String)])] = [
            (100, "37.5000", "127.0005", [("entrance", "main"), ("ref", "A")]),
            (101, "37.5010", "127.0005", [("entrance", "yes"), ("ref", "B")]),
        ]
        let corners = [
            (1, "37.5000", "127.0000"), (2, "37.5000", "127.0010"), (3, "37.5010", "127.0010"),
            (4, "37.5010", "127.0000"),
        ]
        let nodeList = [1, 100, 2, 3, 101, 4, 1]
        typealias Place = (lat: String, lon: String)
        func xml(skelFirst: Bool, skelDoor: Place? = nil, skelWay: [Int]? = nil) -> String {
            let body =
                doors.map { id, lat, lon, tags in
                    "<node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\">"
                        + tags.map { "<tag k=\"\($0)\" v=\"\($1)\"/>" }.joined() + "</node>"
                }
                + [
                    "<way id=\"10\">" + nodeList.map { "<nd ref=\"\($0)\"/>" }.joined()
                        + "<tag k=\"building\" v=\"yes\"/><tag k=\"name\" v=\"Turbo Hall\"/></way>"
                ]
            var skel = (corners + doors.map { ($0.0, $0.1, $0.2) }).map { id, lat, lon in
                let place = id == 100 ? skelDoor ?? (lat, lon) : (lat, lon)
                return "<node id=\"\(id)\" lat=\"\(place.0)\" lon=\"\(place.1)\"/>"
            }
            if let skelWay {
                skel.append("<way id=\"10\">" + skelWay.map { "<nd ref=\"\($0)\"/>" }.joined() + "</way>")
            }
            return
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"Overpass API\">\n"
                + (skelFirst ? skel + body : body + skel).joined(separator: "\n") + "\n</osm>\n"
        }
        func json(skelFirst: Bool, skelDoor: Place? = nil) -> String {
            let body =
                doors.map { id, lat, lon, tags in
                    "{\"type\":\"node\",\"id\":\(id),\"lat\":\(lat),\"lon\":\(lon),\"tags\":{"
                        + tags.map { "\"\($0)\":\"\($1)\"" }.joined(separator: ",") + "}}"
                }
                + [
                    "{\"type\":\"way\",\"id\":10,\"nodes\":[\(nodeList.map(String.init).joined(separator: ","))],"
                        + "\"tags\":{\"building\":\"yes\",\"name\":\"Turbo Hall\"}}"
                ]
            let skel = (corners + doors.map { ($0.0, $0.1, $0.2) }).map { id, lat, lon in
                let place = id == 100 ? skelDoor ?? (lat, lon) : (lat, lon)
                return "{\"type\":\"node\",\"id\":\(id),\"lat\":\(place.0),\"lon\":\(place.1)}"
            }
            return "{\"version\":0.6,\"generator\":\"Overpass API\",\"elements\":[\n"
                + (skelFirst ? skel + body : body + skel).joined(separator: ",\n") + "\n]}\n"
        }
        let binary = try BinaryTests.binary()
        for (name, text) in [
            ("turbo.osm", xml(skelFirst: false)), ("skel-first.osm", xml(skelFirst: true)),
            ("turbo.json", json(skelFirst: false)), ("skel-first.json", json(skelFirst: true)),
        ] {
            let file = try scratch.write(name, text)
            let plan = try BinaryTests.run(
                executable: binary, ["plan", "--destination", destination, "--osm", file, "--compact"])
            #expect(plan.code == 0, "\(name): \(plan.err)")
            #expect(plan.out.contains(#""entrance":{"label":"A""#), "\(name): \(plan.out)")
            #expect(plan.out.contains(#""label":"B""#), "\(name): \(plan.out)")
            let memory = try BinaryTests.run(
                executable: binary,
                [
                    "memory", "osm", "--file", scratch.file("memory-\(name).json"), "--name", "T",
                    "--center", "37.5005,127.0005", "--osm", file, "--now", "2026-01-01T00:00:00Z",
                ])
            #expect(memory.code == 0, "\(name): \(memory.err)")
            #expect(
                memory.out.contains(#""label":"A""#) && memory.out.contains(#""label":"B""#),
                "\(name): \(memory.out)")
        }
        for (name, text, element) in [
            ("moved.osm", xml(skelFirst: false, skelDoor: ("37.5002", "127.0005")), "node 100"),
            ("moved-first.json", json(skelFirst: true, skelDoor: ("37.5002", "127.0005")), "node 100"),
            ("other-nodes.osm", xml(skelFirst: true, skelWay: [1, 2, 3, 4, 1]), "way 10"),
        ] {
            let file = try scratch.write(name, text)
            let plan = try BinaryTests.run(
                executable: binary, ["plan", "--destination", destination, "--osm", file, "--compact"])
            #expect(plan.code == 2, "\(name): \(plan.err)")
            #expect(
                plan.err.contains("\(file) (\(element)): appears twice with different content"), "\(plan.err)"
            )
            #expect(plan.out.isEmpty)
        }
    }

    /// Two different copies of a building, in a file without any `entrance=*` node: refused as
    /// with doors, exit 2 naming it (before: the refusal was taken for "nothing to index",
    /// exit 0 with no building).
    @Test func twoVersionsOfABuildingWithoutDoorsAreNamed() throws {
        let scratch = try Scratch()
        let corners = (1...4).map { i in
            "<node id=\"\(i)\" lat=\"\(i > 2 ? "37.5010" : "37.5000")\" lon=\"\(i == 2 || i == 3 ? "127.0010" : "127.0000")\"/>"
        }
        let way = { (name: String) in
            "<way id=\"10\"><nd ref=\"1\"/><nd ref=\"2\"/><nd ref=\"3\"/><nd ref=\"4\"/><nd ref=\"1\"/>"
                + "<tag k=\"building\" v=\"yes\"/><tag k=\"name\" v=\"\(name)\"/></way>"
        }
        let file = try scratch.write(
            "twice.osm",
            "<osm version=\"0.6\">\n" + (corners + [way("A"), way("B")]).joined(separator: "\n")
                + "\n</osm>\n")
        let destination = try scratch.write(
            "dest.json", #"{"name":"T","center":{"lat":37.5005,"lon":127.0005}}"#)
        let plan = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["plan", "--destination", destination, "--osm", file, "--compact"])
        #expect(plan.code == 2, "\(plan.out)")
        #expect(plan.err.contains("\(file) (way 10): appears twice with different content"), "\(plan.err)")
        #expect(plan.out.isEmpty)
    }

    /// An OSM history file (every version of each element, as osmium writes one) whose door 5
    /// was deleted in version 2 and whose building lost it in its version 2: neither `plan`
    /// nor `doors import` has door 5 (before: its version 1 was planned as the main door and
    /// indexed, and the building's two versions refused by the import as twice).
    @Test func aDoorDeletedInAHistoryFileIsNeitherPlannedNorIndexed() throws {
        let scratch = try Scratch()
        let history = try scratch.write(
            "history.osm",
            """
            <?xml version='1.0' encoding='UTF-8'?>
            <osm version='0.6' generator='osmium/1.15.0'>
              <node id='1' version='1' visible='true' lat='37.5000' lon='127.0000' />
              <node id='2' version='1' visible='true' lat='37.5000' lon='127.0010' />
              <node id='3' version='1' visible='true' lat='37.5010' lon='127.0010' />
              <node id='4' version='1' visible='true' lat='37.5010' lon='127.0000' />
              <node id='5' version='1' visible='true' lat='37.5000' lon='127.0005'><tag k='entrance' v='main'/><tag k='ref' v='GONE'/></node>
              <node id='5' version='2' visible='false'/>
              <node id='6' version='1' visible='true' lat='37.5010' lon='127.0005'><tag k='entrance' v='yes'/><tag k='ref' v='B'/></node>
              <way id='10' version='1' visible='true'><nd ref='1'/><nd ref='5'/><nd ref='2'/><nd ref='3'/><nd ref='6'/><nd ref='4'/><nd ref='1'/><tag k='building' v='yes'/></way>
              <way id='10' version='2' visible='true'><nd ref='1'/><nd ref='2'/><nd ref='3'/><nd ref='6'/><nd ref='4'/><nd ref='1'/><tag k='building' v='yes'/></way>
            </osm>

            """)
        let destination = try scratch.write(
            "dest.json", #"{"name":"T","center":{"lat":37.5005,"lon":127.0005}}"#)
        let binary = try BinaryTests.binary()
        let plan = try BinaryTests.run(
            executable: binary, ["plan", "--destination", destination, "--osm", history, "--compact"])
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains(#""entrance":{"label":"B""#) && !plan.out.contains("GONE"), "\(plan.out)")
        let db = scratch.file("history.db")
        let imported = try BinaryTests.run(executable: binary, ["doors", "import", history, "--out", db])
        #expect(imported.code == 0, "\(imported.err)")
        #expect(imported.err.contains("1 entrances (1 on building outlines), 1 buildings"), "\(imported.err)")
        let near = try BinaryTests.run(
            executable: binary, ["doors", "near", "37.5005", "127.0005", "--db", db])
        #expect(
            near.code == 0 && near.out.contains(#""label":"B""#) && !near.out.contains("GONE"), "\(near.out)")
    }

    /// A building with no `entrance=*` node is still the building: the map draws it and the
    /// note names it (before: "no building within 50 m", the outline lost).
    @Test func aBuildingWithoutEntrancesIsStillDrawn() async throws {
        let scratch = try Scratch()
        let osm = try String(contentsOfFile: Self.repo + "/artifacts/demo/doors.osm", encoding: .utf8)
        let noEntrances = osm.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("k=\"entrance\"") }.joined(separator: "\n")
        let file = try scratch.write("noent.osm", noEntrances)
        let r = await runPathfinder([
            "replay", "--nmea", Self.repo + "/artifacts/demo/walk.nmea", "--destination", Self.destination,
            "--osm", file, "--map", scratch.file("map.svg"),
        ])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("doors from \(file): building way 28903274, 0 doors"), "\(r.err)")
        let svg = try String(contentsOfFile: scratch.file("map.svg"), encoding: .utf8)
        #expect(
            svg.split(separator: "\n").contains { $0.hasPrefix("<polygon points=") }, "the building is drawn")
    }

    /// Any POSIX path in TMPDIR holds the temporary door index: "//x" (before: SQLite read
    /// "//tmp/…" as a URI authority, "invalid uri authority: tmp", exit 2), a trailing slash, a
    /// doubled one, a relative path, and an empty TMPDIR is /tmp (before: "/", the root
    /// folder); nothing is left in it.
    @Test func anyPathInTMPDIRHoldsTheTemporaryIndex() throws {
        let scratch = try Scratch()
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let golden = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["plan", "--destination", Self.destination, "--osm", Self.repo + "/artifacts/demo/doors.osm"],
            environment: ["PATH": "/usr/bin:/bin"])
        try #require(golden.code == 0 && golden.out.contains("\"label\""), "\(golden.err)")
        for value in ["/" + tmp, tmp + "/", scratch.file("") + "//tmp", "tmp", "./tmp//", ""] {
            let r = try BinaryTests.run(
                executable: try BinaryTests.binary(),
                [
                    "plan", "--destination", Self.destination, "--osm",
                    Self.repo + "/artifacts/demo/doors.osm",
                ],
                directory: scratch.file(""), environment: ["TMPDIR": value, "PATH": "/usr/bin:/bin"])
            #expect(r.code == 0 && r.out == golden.out && r.err == golden.err, "TMPDIR=\(value): \(r.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == [], "TMPDIR=\(value)")
        }
    }

    /// A TMPDIR nothing can be made in is said, naming TMPDIR and why, exit 1: `plan --osm`,
    /// `demo`, and `doors import` of a `.osm.pbf` (osmium's messages are kept there) (before:
    /// "/x: cannot make a temporary folder …: No such file or directory", the demo named no
    /// folder, and the import blamed its output file with Foundation's error text).
    @Test func aTMPDIRThatCannotBeUsedIsSaid() throws {
        let scratch = try Scratch()
        let file = try scratch.write("file", "not a folder")
        for (value, reason) in [
            (scratch.file("missing"), "no such file or directory"), (file, "not a directory"),
        ] {
            let environment = ["TMPDIR": value, "PATH": "/usr/bin:/bin"]
            let said = "TMPDIR=\(value): cannot make a temporary folder"
            let plan = try BinaryTests.run(
                executable: try BinaryTests.binary(),
                [
                    "plan", "--destination", Self.destination, "--osm",
                    Self.repo + "/artifacts/demo/doors.osm",
                ],
                environment: environment)
            #expect(plan.code == 1, "\(plan.err)")
            #expect(
                plan.err
                    == "pathfinder plan: \(said) for the door index: \(reason) (TMPDIR must name a folder you can write in)\n"
            )
            let demo = try BinaryTests.run(
                executable: try BinaryTests.binary(), ["demo", "--speak-wav", scratch.file("wav")],
                environment: environment)
            #expect(demo.code == 1, "\(demo.err)")
            #expect(
                demo.err
                    == "pathfinder demo: \(said) for the demo: \(reason) (TMPDIR must name a folder you can write in)\n"
            )
            let imported = try BinaryTests.run(
                executable: try BinaryTests.binary(),
                [
                    "doors", "import", Self.repo + "/Tests/EntranceIndexTests/Fixtures/Helsinki.osm.pbf",
                    "--out",
                    scratch.file("h.db"),
                ], environment: environment)
            #expect(imported.code == 1, "\(imported.err)")
            #expect(
                imported.err.hasSuffix(
                    ": TMPDIR=\(value): cannot make a file for osmium's messages: \(reason) (TMPDIR must name a folder you can write in)\n"
                ), "\(imported.err)")
            #expect(!FileManager.default.fileExists(atPath: scratch.file("h.db")))
        }
    }

    /// SIGTERM while the file is being imported leaves no `pathfinder-doors-*` folder in
    /// $TMPDIR (before: one empty folder each time), and the process ends by the signal.
    @Test func aSignalLeavesNoTemporaryFolder() throws {
        let scratch = try Scratch()
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let file = try Self.block(in: scratch)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["plan", "--destination", Self.destination, "--osm", file]
        process.environment = ["TMPDIR": tmp, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Watched for as long as the plan runs, not for a count of polls: the folder is made
        // once the file is read, 2.3 s in alone, but 29 s in beside CPU-bound work on two
        // cores, where 3000 polls of 2 ms had lapsed at 9 s ("never seen"). It then lives as
        // long as the import (1.5 s alone), a long time next to a 2 ms poll.
        var made = false
        while !made && process.isRunning {
            made = ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).contains {
                $0.hasPrefix("pathfinder-doors-")
            }
            if !made { usleep(2_000) }
        }
        try #require(
            made, "the temporary folder was never seen, the plan ended (\(process.terminationStatus))")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "stopped by the signal, not finished")
        let left = FileManager.default.subpaths(atPath: tmp) ?? ["?"]
        #expect(left == [], "left in $TMPDIR: \(left)")
    }

    /// SIGTERM while the words of names and addresses are indexed (a second database beside
    /// the temp index, `….tmp-PID-XXXX-words`) leaves neither file (before: the `-words` file
    /// was not among those the signal removes, so it stayed, and under `plan --osm` the
    /// temporary folder that held it: aSignalLeavesNoTemporaryFolder failed so under load).
    @Test func aSignalWhileTheWordsAreIndexedLeavesNoFile() throws {
        let scratch = try Scratch()
        let file = try Self.block(in: scratch)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["doors", "import", file, "--out", scratch.file("block.db")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // As long as the import runs (see aSignalLeavesNoTemporaryFolder).
        var seen = false
        while !seen && process.isRunning {
            seen = ((try? FileManager.default.contentsOfDirectory(atPath: scratch.file(""))) ?? []).contains {
                $0.hasSuffix("-words")
            }
            if !seen { usleep(1_000) }
        }
        try #require(seen, "the words' database was never seen")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "stopped by the signal, not finished")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("")).sorted() == ["block.osm"])
    }

    /// The block of ``aSignalLeavesNoTemporaryFolder()``: 40 000 small buildings, a few
    /// seconds to import.
    static func block(in scratch: Scratch) throws -> String {
        var xml = "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n"
        for i in 0..<40_000 {
            let lat = 60.0 + Double(i / 200) * 0.001
            let lon = 24.0 + Double(i % 200) * 0.001
            let n = i * 5
            for (k, (a, b)) in [
                (0, (lat, lon)), (1, (lat, lon + 0.0002)), (2, (lat + 0.0002, lon + 0.0002)),
                (3, (lat + 0.0002, lon)),
            ] {
                xml += "<node id=\"\(n + k + 1)\" lat=\"\(a)\" lon=\"\(b)\"/>\n"
            }
            xml +=
                "<node id=\"\(n + 5)\" lat=\"\(lat)\" lon=\"\(lon + 0.0001)\"><tag k=\"entrance\" v=\"main\"/></node>\n"
            xml +=
                "<way id=\"\(i + 1)\"><nd ref=\"\(n + 1)\"/><nd ref=\"\(n + 5)\"/><nd ref=\"\(n + 2)\"/><nd ref=\"\(n + 3)\"/><nd ref=\"\(n + 4)\"/><nd ref=\"\(n + 1)\"/><tag k=\"building\" v=\"yes\"/></way>\n"
        }
        return try scratch.write("block.osm", xml + "</osm>\n")
    }

    /// An import started under `nohup` (SIGHUP ignored) outlives a SIGHUP, as `nohup` promises,
    /// and writes its index (before: the temp-file handler replaced the ignored action, and
    /// the closing terminal ended the import, its work lost).
    @Test func anIgnoredHangUpDoesNotStopAnImport() throws {
        let scratch = try Scratch()
        let file = try Self.block(in: scratch)
        let out = scratch.file("block.db")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        process.arguments = [try BinaryTests.binary(), "doors", "import", file, "--out", out]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.file(""))
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // As long as the import runs (see aSignalLeavesNoTemporaryFolder).
        var started = false
        while !started && process.isRunning {
            started = ((try? FileManager.default.contentsOfDirectory(atPath: scratch.file(""))) ?? [])
                .contains {
                    $0.hasPrefix("block.db.tmp-")
                }
            if !started { usleep(2_000) }
        }
        try #require(started, "the import's temporary file was never seen")
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// `doors import --out` a FIFO is refused at once (before: it waited for a writer for ever,
    /// checking whether the FIFO was a door index it could replace).
    @Test func importOntoAFIFOIsRefused() async throws {
        let scratch = try Scratch()
        let fifo = scratch.file("x.db")
        #expect(mkfifo(fifo, 0o600) == 0)
        let osm = Self.repo + "/artifacts/demo/doors.osm"
        let r = await runPathfinder(["doors", "import", osm, "--out", fifo])
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("--out replaces only a door index"), "\(r.err)")
    }
}
