import Arrival
import Foundation
import Geo
import Storage
import Testing

@Suite("pathfinder memory")
struct MemoryCommandTests {
    let center = ["--name", "Rautatieasema", "--center", "60.1713,24.9412"]

    @Test func confirmRejectOSMThenShowAndPlan() async throws {
        let dir = try Scratch()
        let m = dir.file("memory.json")
        var r = await runPathfinder(
            [
                "memory", "osm", "--file", m, "--osm", try rautatieasemaWithOutline(in: dir), "--now",
                "2025-05-01T12:00:00Z",
            ]
                + center)
        #expect(r.code == 0, "\(r.err)")
        // Reject the main door (OSM's first), from a point 3 m away.
        r = await runPathfinder(
            ["memory", "reject", "--file", m, "--door", "60.17072,24.94145", "--now", "2025-05-01T12:01:00Z"]
                + center)
        #expect(r.code == 0, "\(r.err)")
        r = await runPathfinder(
            [
                "memory", "confirm", "--file", m, "--door", "60.1722,24.9405", "--level", "0", "--note",
                "북쪽 문",
                "--label", "N", "--altitude", "14.5,7", "--now", "2025-05-01T15:02:00+03:00",
            ] + ["--name", "Helsinki Central", "--center", "60.1714,24.9410"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\"name\":\"Rautatieasema\""))

        let memory = try MemoryFile.read(path: m)
        let building = try #require(memory.buildings.first)
        #expect(memory.buildings.count == 1)
        #expect(building.rejected == [Coordinate(latitude: 60.17072, longitude: 24.94145)])
        #expect(building.osm?.doors.count == 25)
        #expect(building.osm?.read == Date(timeIntervalSince1970: 1_746_100_800))
        #expect(
            building.confirmed
                == Door(
                    coordinate: Coordinate(latitude: 60.1722, longitude: 24.9405), source: .walker,
                    level: "0",
                    note: "북쪽 문", label: "N"))  // altitude accurate to 7 m is not kept
        // 15:02+03:00 is 12:02Z, after the rejection (a change never moves a building back in time).
        #expect(building.changed == Date(timeIntervalSince1970: 1_746_100_920))

        let shown = await runPathfinder(["memory", "show", "--file", m])
        #expect(shown.code == 0)
        #expect(shown.out == String(decoding: try MemoryFile.encode(memory), as: UTF8.self))

        let plan = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--memory", m, "--now",
            "2025-05-31T09:02:00Z",
        ])
        let doors = try JSONDecoder().decode(ArrivalPlan.self, from: Data(plan.out.utf8)).doors
        #expect(doors.first?.source == .walker)
        #expect(doors.first?.coordinate == Coordinate(latitude: 60.1722, longitude: 24.9405))
        #expect(!doors.contains { $0.coordinate == Coordinate(latitude: 60.170747, longitude: 24.9414453) })
        #expect(doors.count == 11)  // 13 − the rejected main door − the two merged into the confirmed one
        // 30 days and a second after the OSM read, only the walker's door is known.
        let stale = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--memory", m, "--now",
            "2025-05-31T12:00:01Z", "--compact",
        ])
        #expect(stale.out.hasPrefix("{\"alternatives\":[],\"entrance\":{\"label\":\"N\""))
    }

    /// Audit 6 R1-4: at the same door, `--altitude 21,5` over a stored 144.7 ±4.2 printed the
    /// building with 144.7 and exited 0, unsaid (the walk's keep-the-better rule), and nothing
    /// could clear a stored altitude. A person's `--altitude` sets it; `--no-altitude` clears it;
    /// without either the stored one stays.
    @Test func anAltitudeGivenByAPerson_setsOrClearsTheDoorsAltitude() async throws {
        let dir = try Scratch()
        let m = dir.file("memory.json")
        let door = ["--door", "60.17072,24.94145", "--label", "D"]
        func altitude() throws -> BarometricAltitude? {
            try MemoryFile.read(path: m).buildings.first?.confirmed?.altitude
        }
        var r = await runPathfinder(
            ["memory", "confirm", "--file", m, "--altitude", "144.7,4.2"] + center + door)
        #expect(r.code == 0, "\(r.err)")
        r = await runPathfinder(["memory", "confirm", "--file", m, "--altitude", "21,5"] + center + door)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\"altitude\":{\"accuracy\":5,\"metres\":21}"), "\(r.out)")
        #expect(try altitude() == BarometricAltitude(metres: 21, accuracy: 5))
        r = await runPathfinder(["memory", "confirm", "--file", m] + center + door)
        #expect(r.code == 0, "\(r.err)")
        #expect(try altitude() == BarometricAltitude(metres: 21, accuracy: 5), "kept without --altitude")
        r = await runPathfinder(["memory", "confirm", "--file", m, "--no-altitude"] + center + door)
        #expect(r.code == 0, "\(r.err)")
        #expect(try altitude() == nil)
        #expect(try MemoryFile.read(path: m).buildings.first?.confirmed != nil)
        // One too rough to store is said, not silently dropped.
        r = await runPathfinder(["memory", "confirm", "--file", m, "--altitude", "21,7"] + center + door)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("--altitude: accuracy 7.0 m is over 6.0 m: not stored"), "\(r.err)")
        r = await runPathfinder(
            ["memory", "confirm", "--file", m, "--altitude", "21,5", "--no-altitude"] + center + door)
        #expect(r.code == 2)
        #expect(r.err.contains("--altitude and --no-altitude"), "\(r.err)")
    }

    /// OSM's doors stored while the clock was ahead (`memory osm --now` in 2046, a Pi whose
    /// clock was wrong) are not fresh once the clock is right: a read more than a day after
    /// now is no evidence of anything, so OSM is asked again. Before: "fresh" (a negative age)
    /// until 2046 + 30 days. Within a day ahead (clocks that disagree by hours) still fresh.
    @Test(arguments: [
        ("2046-01-01T00:00:00Z", false), ("2025-05-03T06:00:00Z", true), ("2025-05-03T12:00:01Z", false),
    ])
    func osmDoorsReadAfterNow_areNotFresh(read: String, fresh: Bool) async throws {
        let dir = try Scratch()
        let m = dir.file("memory.json")
        let stored = await runPathfinder(
            ["memory", "osm", "--file", m, "--osm", try rautatieasemaWithOutline(in: dir), "--now", read]
                + center)
        #expect(stored.code == 0, "\(stored.err)")
        let plan = await runPathfinder([
            "plan", "--destination", try fixture("example/destination.json"), "--memory", m, "--now",
            "2025-05-02T12:00:00Z",
        ])
        #expect(plan.code == 0, "\(plan.err)")
        let doors = try JSONDecoder().decode(ArrivalPlan.self, from: Data(plan.out.utf8)).doors
        #expect(doors.isEmpty == !fresh, "read \(read): \(plan.out)")
    }

    @Test func showOfAMissingFileIsAnEmptyMemory() async throws {
        let dir = try Scratch()
        let r = await runPathfinder(["memory", "show", "--file", dir.file("m.json")])
        #expect(r.code == 0)
        #expect(r.out == "{\n  \"buildings\" : [\n\n  ],\n  \"version\" : 1\n}\n")
        #expect(dir.entries.isEmpty)
    }

    @Test func aCorruptFileIsSetAsideByAChangeAndReportedByShow() async throws {
        let dir = try Scratch()
        let m = try dir.write("memory.json", "{\"version\": 1, \"buildings\": [\n  {\"name\": 5}]}")
        let shown = await runPathfinder(["memory", "show", "--file", m])
        #expect(shown.code == 2)
        #expect(
            shown.err.contains(
                "pathfinder memory show: \(m): line 2: field buildings[0].name: expected a string"))
        #expect(dir.entries == ["memory.json"])

        let r = await runPathfinder(
            ["memory", "reject", "--file", m, "--door", "60.1710,24.9412", "--now", "2025-05-01T12:00:00Z"]
                + center)
        #expect(r.code == 0)
        #expect(r.err.contains("warning: \(m): line 2: field buildings[0].name"))
        // Its one building is damaged: copied aside (nothing lost), the others (none) kept.
        #expect(r.err.contains("copied to \(m).corrupt-20250501T120000Z"))
        #expect(dir.entries == ["memory.json", "memory.json.corrupt-20250501T120000Z"])
        #expect(try MemoryFile.read(path: m).buildings.map(\.name) == ["Rautatieasema"])
    }

    @Test(
        "usage errors exit 2 naming the argument",
        arguments: [
            ([String](), "pathfinder memory: expected a subcommand (show, confirm, reject, osm)"),
            (["forget"], "pathfinder memory: unknown subcommand \"forget\""),
            (
                ["confirm", "--file", "m.json", "--center", "60,24", "--door", "60,24"],
                "pathfinder memory confirm: --name is required"
            ),
            (
                ["confirm", "--file", "m.json", "--name", "R", "--door", "60,24"],
                "pathfinder memory confirm: --center is required"
            ),
            (
                ["confirm", "--file", "m.json", "--name", "R", "--center", "60,24"],
                "pathfinder memory confirm: --door is required"
            ),
            (
                ["reject", "--file", "m.json", "--name", "R", "--center", "60;24", "--door", "60,24"],
                "--center \"60;24\" is not LAT,LON"
            ),
            (
                ["reject", "--file", "m.json", "--name", "R", "--center", "60,24", "--door", "91,24"],
                "--door \"91,24\" is not LAT,LON"
            ),
            (
                [
                    "confirm", "--file", "m.json", "--name", "R", "--center", "60,24", "--door", "60,24",
                    "--altitude", "12",
                ], "--altitude \"12\" is not METRES,ACCURACY"
            ),
            (
                [
                    "reject", "--file", "m.json", "--name", "R", "--center", "60,24", "--door", "60,24",
                    "--now", "noon",
                ], "--now \"noon\" is not an ISO 8601 time"
            ),
            (
                [
                    "reject", "--file", "m.json", "--name", "R", "--center", "60,24", "--door", "60,24",
                    "--level", "1",
                ], "pathfinder memory reject: unknown argument \"--level\""
            ),
            (
                ["osm", "--file", "m.json", "--name", "R", "--center", "60,24"],
                "pathfinder memory osm: --osm is required"
            ),
            // Before, accepted: a confirmed door at 10, 10 for a building in Helsinki (and
            // `plan` then sent the walker there), and a name the walker hears as nothing.
            (
                ["confirm", "--file", "m.json", "--name", "R", "--center", "60.17,24.95", "--door", "10,10"],
                "--door is 5715 km from --center (at most 2000 m): another building's door?"
            ),
            (
                [
                    "reject", "--file", "m.json", "--name", "R", "--center", "60.17,24.95", "--door",
                    "60.2,24.95",
                ],
                "--door is 3336 m from --center"
            ),
            (
                ["confirm", "--file", "m.json", "--name", "  ", "--center", "60,24", "--door", "60,24"],
                "pathfinder memory confirm: --name is empty"
            ),
        ])
    func usageErrors(argv: [String], message: String) async throws {
        let dir = try Scratch()
        let argv = argv.map { $0 == "m.json" ? dir.file("m.json") : $0 }
        let r = await runPathfinder(["memory"] + argv)
        #expect(r.code == 2)
        #expect(r.err.contains(message), "\(r.err)")
        #expect(dir.entries.isEmpty, "nothing is written on a usage error")
    }

    /// Memory commands run at once take turns on the file: every one's door is kept (before,
    /// each read, changed and renamed over the others: of 20, 16 doors were lost, all exit 0).
    @Test func commandsAtOnceKeepEveryChange() throws {
        let dir = try Scratch()
        let memory = dir.file("memory.json")
        let processes = try (10..<26).map { k in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
            process.arguments = [
                "memory", "confirm", "--file", memory, "--name", "B\(k)", "--center", "60.\(k),24.9",
                "--door", "60.\(k),24.9",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        #expect(
            Set(try MemoryFile.read(path: memory).buildings.map(\.name)) == Set((10..<26).map { "B\($0)" }))
    }

    @Test func missingOSMFileExits2AndWritesNothing() async throws {
        let dir = try Scratch()
        let r = await runPathfinder(
            ["memory", "osm", "--file", dir.file("m.json"), "--osm", dir.file("none.osm")] + center)
        #expect(r.code == 2)
        #expect(r.err.hasPrefix("pathfinder memory osm: \(dir.file("none.osm")): cannot read"))
        #expect(dir.entries.isEmpty)
    }

    /// `memory osm` at a point with no building within 50 m (a square): OSM's answer there is
    /// no building's doors, so nothing is stored, as in a walk (docs/ARCHITECTURE.md,
    /// candidatesLifetime). It says so naming the point and the file and exits 1; the memory
    /// file keeps its bytes, its inode and its time, and none is made where there was none
    /// (before: exit 0, the 3 entrances near the square stored as the OSM doors, read now, of
    /// the walker-taught building 46 m from it).
    @Test func osmWithNoBuildingAtTheCentreStoresNothing() throws {
        let dir = try Scratch()
        let binary = try BinaryTests.binary()
        let osm = try dir.write("square.osm", ReplayDoorsTests.squareAndBuilding)
        let memory = dir.file("memory.json")
        let taught = try BinaryTests.run(
            executable: binary,
            [
                "memory", "confirm", "--file", memory, "--door", "60.1713,24.9412", "--now",
                "2026-01-01T00:00:00Z",
            ]
                + center)
        try #require(taught.code == 0, "\(taught.err)")
        func state(_ path: String) throws -> (bytes: Data, inode: UInt, seconds: Int, nanoseconds: Int) {
            var info = stat()
            try #require(stat(path, &info) == 0)
            return (
                try Data(contentsOf: URL(fileURLWithPath: path)), UInt(info.st_ino), info.st_mtim.tv_sec,
                info.st_mtim.tv_nsec
            )
        }
        let before = try state(memory)
        usleep(20_000)  // a write now would show in the time, even on a coarse clock
        let square = ["--name", "Tori", "--center", "60.1709,24.94", "--osm", osm]
        let r = try BinaryTests.run(
            executable: binary,
            ["memory", "osm", "--file", memory, "--now", "2026-01-02T00:00:00Z"] + square)
        #expect(r.code == 1, "\(r.err)")
        #expect(
            r.err.contains(
                "pathfinder memory osm: nothing stored: no building within 50 m of --center 60.1709,24.94 in \(osm)"
            ),
            "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(r.out.isEmpty, "\(r.out)")
        let after = try state(memory)
        #expect(after.bytes == before.bytes)
        #expect(after.inode == before.inode)
        #expect(after.seconds == before.seconds && after.nanoseconds == before.nanoseconds)
        #expect(dir.entries == ["memory.json", "square.osm"], "nothing set aside or left beside it")

        // No memory yet, in a folder not yet made: neither is made.
        let fresh = dir.file("new/memory.json")
        let none = try BinaryTests.run(executable: binary, ["memory", "osm", "--file", fresh] + square)
        #expect(none.code == 1, "\(none.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("new")))

        // The building 100 m south of the square is still stored, with its own two doors.
        let talo = try BinaryTests.run(
            executable: binary,
            ["memory", "osm", "--file", fresh, "--name", "Talo", "--center", "60.17,24.94", "--osm", osm])
        #expect(talo.code == 0, "\(talo.err)")
        #expect(try MemoryFile.read(path: fresh).buildings.first?.osm?.doors.count == 2)
    }

    /// The no-building message says `--center` as it was typed, a form the command reads,
    /// and counts its entrances in words that agree ("1 entrance"). Before: `--center
    /// 1e-05,0.0` (a form the command refuses) for 0.00001,0, `-0.0,-0.0` for -0,-0, and "its 1
    /// entrances".
    @Test(arguments: [
        ("0.00001,0", "1 entrance"), ("-0,-0", "1 entrance"), ("0.0001, 0.00012", "2 entrances"),
    ])
    func theNoBuildingMessageSaysTheCentreAsTyped(typed: String, entrances: String) throws {
        let dir = try Scratch()
        let osm = try dir.write(
            "sq.json",
            #"{"elements":[{"type":"node","id":1,"lat":0.0001,"lon":0.0001,"tags":{"entrance":"main"}}"#
                + (entrances.hasPrefix("2")
                    ? #",{"type":"node","id":2,"lat":0.0002,"lon":0.0002,"tags":{"entrance":"yes"}}]}"#
                    : "]}"))
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            ["memory", "osm", "--file", dir.file("m.json"), "--name", "Sq", "--center", typed, "--osm", osm])
        #expect(r.code == 1, "\(r.err)")
        let said = typed.replacingOccurrences(of: " ", with: "")
        #expect(
            r.err
                == "pathfinder memory osm: nothing stored: no building within 50 m of --center \(said) in \(osm); OSM's answer there is no building's doors (its \(entrances) within 150 m would lead a walk there, not be remembered)\n",
            "\(r.err)")
    }

    @Test func helpListsTheSubcommands() async {
        let r = await runPathfinder(["memory", "--help"])
        #expect(r.code == 0)
        for sub in ["show", "confirm", "reject", "osm"] {
            #expect(r.out.contains("pathfinder memory \(sub) --file M"))
        }
    }

    /// Without --file, the memory commands use the daemon's memory, found as the daemon finds
    /// it: the default config file's `memory` (relative to that file's folder), else
    /// `$XDG_DATA_HOME/pathfinder/memory.json` (audit 10 A10-7: before, exit 2 "--file is
    /// required", and the family had to find the path themselves). Which file is said on stderr.
    @Test func withoutAFileTheDaemonsMemoryIsUsed() throws {
        let dir = try Scratch()
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = dir.path
        environment["XDG_DATA_HOME"] = dir.file("data")
        environment["XDG_CONFIG_HOME"] = dir.file("config")
        let binary = try BinaryTests.binary()
        func run(_ argv: [String]) throws -> (code: Int32, out: String, err: String) {
            try BinaryTests.run(executable: binary, ["memory"] + argv, environment: environment)
        }
        let door = ["--door", "60.1712,24.9410"]
        let data = dir.file("data/pathfinder/memory.json")
        // Before it is made, said so: no daemon may use it (audit 11 A11-4: "the daemon's memory"
        // was said of a file no daemon used, and an empty one shown as if it were).
        let none = try run(["show"])
        #expect(none.code == 0, "\(none)")
        #expect(
            none.err.contains("using \(data), the memory of a daemon run with the default config"), "\(none)")
        #expect(none.err.contains("no memory file there yet"), "\(none)")
        let confirmed = try run(["confirm"] + center + door)
        #expect(confirmed.code == 0, "\(confirmed)")
        #expect(
            confirmed.err.contains("using \(data), the memory of a daemon run with the default config"),
            "\(confirmed)")
        let memory = try MemoryFile.read(path: data)
        #expect(
            memory.buildings.first?.confirmed?.coordinate == Coordinate(latitude: 60.1712, longitude: 24.941))
        let shown = try run(["show"])
        #expect(shown.code == 0 && shown.out.contains("Rautatieasema"), "\(shown)")
        // A config file naming another memory: that one, as the daemon would read it.
        try FileManager.default.createDirectory(
            atPath: dir.file("config/pathfinder"), withIntermediateDirectories: true)
        _ = try dir.write("config/pathfinder/config.json", #"{"memory": "family/memory.json"}"#)
        let configured = dir.file("config/pathfinder/family/memory.json")
        let rejected = try run(["reject"] + center + door)
        #expect(rejected.code == 0, "\(rejected)")
        #expect(
            rejected.err.contains("using \(configured), the memory of a daemon run with the default config"),
            "\(rejected)")
        #expect(try MemoryFile.read(path: configured).buildings.first?.rejected.count == 1)
        // --file still chooses, and says nothing of the default.
        let given = try run(["show", "--file", data])
        #expect(given.code == 0 && given.err.isEmpty, "\(given)")
    }
}
