import Arrival
import Foundation
import Geo
import Glibc
import Storage
import Testing

/// The repository root (this file is Tests/PathfinderCLITests/MemoryWriteTests.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The bundled demo walk's files.
enum DemoWalk {
    static let directory = repositoryRoot + "/artifacts/demo"
    static let nmea = directory + "/walk.nmea"
    static let destination = directory + "/destination.json"
    static let heard = directory + "/heard.tsv"
    static let doors = repositoryRoot + "/artifacts/doors/helsinki.db"

    /// The walk from epoch `first` on (an epoch starts at each RMC), written to `path`.
    static func cut(from first: Int, to path: String) throws -> String {
        var epochs: [String] = []
        for line in try String(contentsOfFile: nmea, encoding: .utf8).split(whereSeparator: \.isNewline) {
            if line.dropFirst(3).hasPrefix("RMC") || epochs.isEmpty { epochs.append("") }
            epochs[epochs.count - 1] += line + "\n"
        }
        try epochs[first...].joined().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// Decodes event-log lines into dictionaries.
func eventLines(_ out: String) -> [[String: Any]] {
    out.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}

@Suite("replay: memory writes and the last stretch (issue #11 items 2, 3, 5)")
struct ReplayMemoryTests {
    /// Item 2: `--memory` where it cannot be written: `memoryFailed`, never `memorySaved`, the
    /// failure prompt instead of the promise, and exit 1 after the whole log.
    @Test func anUnwritableMemoryIsLoggedAndSaidAndExits1() async throws {
        let dir = try Scratch()
        let blocker = try dir.write("plain", "")
        let memory = blocker + "/memory.json"
        let r = await runPathfinder([
            "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--doors",
            DemoWalk.doors,
            "--heard", DemoWalk.heard, "--memory", memory,
        ])
        #expect(r.code == 1)
        #expect(
            r.err.contains("pathfinder replay: the memory was not saved: \(memory): cannot write"), "\(r.err)"
        )
        let lines = eventLines(r.out)
        #expect(!lines.contains { $0["event"] as? String == "memorySaved" })
        let failures = lines.filter { $0["event"] as? String == "memoryFailed" }
        #expect(failures.count == 3, "OSM's doors, the rejection, the confirmation")
        #expect((failures.first?["reason"] as? String)?.contains(memory) == true)
        let said = lines.filter { $0["event"] as? String == "say" }.compactMap { $0["text"] as? String }
        #expect(!said.contains(Prompts.remembered))
        #expect(said.last == Prompts.notRemembered)
        #expect(
            lines.contains { $0["event"] as? String == "walkEnded" && $0["reason"] as? String == "confirmed" }
        )
    }

    @Test func aWritableMemoryIsWrittenAtEachChange() async throws {
        let dir = try Scratch()
        let memory = dir.file("new/memory.json")  // its directory made on the first write
        let r = await runPathfinder([
            "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--doors",
            DemoWalk.doors,
            "--heard", DemoWalk.heard, "--memory", memory,
        ])
        #expect(r.code == 0, "\(r.err)")
        let lines = eventLines(r.out)
        #expect(lines.filter { $0["event"] as? String == "memorySaved" }.count == 3)
        // The promise stands right after the write that kept it.
        let kinds = lines.map { ($0["event"] as? String ?? "") + ":" + ($0["text"] as? String ?? "") }
        let saved = try #require(kinds.lastIndex(of: "memorySaved:"))
        #expect(kinds[saved + 1] == "say:" + Prompts.remembered)
        #expect(try MemoryFile.read(path: memory).buildings.first?.confirmed?.label == "D")
    }

    /// Item 5: the demo walk cut at epoch 375 (44 m from the building) starts inside the last
    /// stretch; OSM's doors arrive and the walk goes to door A at once, not to the centre
    /// until the walker says "여기 아니야".
    @Test func aWalkStartingNearTheBuildingUsesTheDoors() async throws {
        let dir = try Scratch()
        let nmea = try DemoWalk.cut(from: 375, to: dir.file("near.nmea"))
        let r = await runPathfinder([
            "replay", "--nmea", nmea, "--destination", DemoWalk.destination, "--doors", DemoWalk.doors,
        ])
        #expect(r.code == 0, "\(r.err)")
        let lines = eventLines(r.out)
        let plan = try #require(
            lines.first { $0["event"] as? String == "plan" && $0["reason"] as? String == "doorsArrived" })
        let entrance = try #require((plan["plan"] as? [String: Any])?["entrance"] as? [String: Any])
        #expect(entrance["label"] as? String == "A")
        let said = lines.filter { $0["event"] as? String == "say" }.compactMap { $0["text"] as? String }
        #expect(said.contains("지도에서 입구를 찾았어. A 입구로 바꿔서 안내할게."))
        let arrived = try #require(lines.first { $0["event"] as? String == "arrived" })
        #expect(
            (arrived["door"] as? [String: Any])?["label"] as? String == "A",
            "arrived at a door, not the centre")
    }

    /// One last-stretch distance: 300 m by default (the daemon's default too), set with
    /// `--last-stretch-metres`, checked as the daemon's `lastStretchMetres` is.
    @Test func theLastStretchDistanceIsOneSetting() async throws {
        func stretchStart(_ extra: [String]) async throws -> Double {
            let r = await runPathfinder(
                [
                    "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--doors",
                    DemoWalk.doors,
                ]
                    + extra)
            #expect(r.code == 0, "\(r.err)")
            let line = try #require(
                eventLines(r.out).first { ($0["text"] as? String)?.contains("거의 다 왔어") == true })
            return try #require(line["t"] as? Double)
        }
        let byDefault = try await stretchStart([])
        #expect(try await stretchStart(["--last-stretch-metres", "300"]) == byDefault)
        #expect(try await stretchStart(["--last-stretch-metres", "60"]) > byDefault + 100)
        #expect(FinalApproach.Settings().lastStretchMetres == 300)
        let bad = await runPathfinder([
            "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--last-stretch-metres",
            "2",
        ])
        #expect(bad.code == 2)
        #expect(
            bad.err.contains("--last-stretch-metres \"2\" is not a distance in metres (5…1000)"), "\(bad.err)"
        )
    }
}

/// Issue #14 item 8 in `plan`: one damaged building no longer means "planning without the
/// memory"; the file is left as it is (plan never writes).
@Suite("plan: a damaged building")
struct DamagedBuildingPlanTests {
    @Test func theOtherBuildingsStillPlan() async throws {
        let dir = try Scratch()
        var memory = EntranceMemory()
        let kamppi = Coordinate(latitude: 60.1690, longitude: 24.9320)
        memory.confirm(
            Door(coordinate: Coordinate(latitude: 60.1692, longitude: 24.9321), label: "K"), name: "Kamppi",
            center: kamppi, now: Date(timeIntervalSince1970: 1e9))
        memory.recordOSM(
            [], name: "Damaged", center: Coordinate(latitude: 60.2, longitude: 24.9),
            now: Date(timeIntervalSince1970: 2e9))
        let text = String(decoding: try MemoryFile.encode(memory), as: UTF8.self)
            .replacingOccurrences(of: "\"lat\" : 60.2,", with: "\"lat\" : \"x\",")
        let path = try dir.write("memory.json", text)
        let destination = try dir.write(
            "d.json", #"{"name": "Kamppi", "center": {"lat": 60.1690, "lon": 24.9320}}"#)
        let r = await runPathfinder(["plan", "--destination", destination, "--memory", path, "--compact"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\"label\":\"K\""), "\(r.out)")
        #expect(r.err.contains("field buildings[0].center.lat: building 0 (\"Damaged\") skipped"), "\(r.err)")
        #expect(!r.err.contains("planning without the memory"))
        #expect(dir.entries == ["d.json", "memory.json"])
    }
}

/// Item 3 on the command line: a memory file that exists but cannot be read (EACCES) is
/// never written over; `memory confirm` exits 1 and the file keeps its bytes. The file is
/// `nobody`'s (mode 0600) and the command runs as root without the capabilities that let root
/// read any file, so the binary and fixtures stay reachable wherever the checkout lies.
@Suite("memory: a file that cannot be read")
struct UnreadableMemoryCommandTests {
    /// Runs the binary as root without the capabilities that let root read any file.
    static func runWithoutReadOverride(_ argv: [String]) throws -> (code: Int32, out: String, err: String) {
        try BinaryTests.run(
            executable: "/usr/bin/setpriv",
            [
                "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search",
                "--",
            ]
                + [try BinaryTests.binary()] + argv)
    }

    @Test func confirmRefusesAndExits1() throws {
        try #require(getuid() == 0, "needs root to make a file another user cannot read")
        let dir = try Scratch()
        let path = dir.file("memory.json")
        var memory = EntranceMemory()
        let kamppi = Coordinate(latitude: 60.1690, longitude: 24.9320)
        memory.confirm(
            Door(coordinate: kamppi), name: "Kamppi", center: kamppi, now: Date(timeIntervalSince1970: 1e9))
        try MemoryFile.save(memory, path: path)
        #expect(chown(path, 65534, 65534) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let confirm = try Self.runWithoutReadOverride([
            "memory", "confirm",
            "--file", path, "--name", "Kamppi", "--center", "60.1690,24.9320", "--door", "60.1691,24.9321",
        ])
        let text = confirm.err
        #expect(confirm.code == 1, "\(text)")
        #expect(text.contains("pathfinder memory confirm: \(path): cannot read"), "\(text)")
        #expect(text.contains("not writing over a file that cannot be read"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["memory.json"])

        // replay --memory on it: stopped before the walk, exit 1, the file as it was.
        let replay = try Self.runWithoutReadOverride([
            "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--heard",
            DemoWalk.heard,
            "--memory", path,
        ])
        let replayText = replay.err
        #expect(replay.code == 1, "\(replayText)")
        #expect(
            replayText.contains("pathfinder replay: \(path): cannot read: open \(path): Permission denied"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

/// Item 9: every default data path is found beside the executable as `Scripts/install` lays
/// it out (`P/bin/pathfinder`, `P/share/pathfinder/{artifacts,models}`), or through
/// `$PATHFINDER_DATA`, from any working directory. (`Scripts/check-install` runs the real
/// install script end to end; it needs a release build, too slow for this suite.)
@Suite("installed data paths")
struct InstalledDataTests {
    /// Runs `binary` from `/` with no PATHFINDER_* variable (plus `environment`).
    func run(
        _ binary: String, _ argv: [String], environment: [String: String] = [:]
    ) throws -> (
        code: Int32, out: String, err: String
    ) {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PATHFINDER_") }
        env.merge(environment) { _, new in new }
        return try BinaryTests.run(executable: binary, argv, directory: "/", environment: env)
    }

    /// A copy of the built binary at `prefix/bin/pathfinder` (a copy, not a link: a link
    /// would lead back to the checkout).
    func copyBinary(to prefix: String) throws -> String {
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        let binary = prefix + "/bin/pathfinder"
        // Copied by `cp`, not in this process: a copy written here is open for writing while
        // other tests spawn processes, which inherit the descriptor, and running the copy then
        // fails with ETXTBSY ("Text file busy") until they exit.
        let copy = try BinaryTests.run(executable: "/bin/cp", [try BinaryTests.binary(), binary])
        try #require(copy.code == 0, "cp \(binary): \(copy.err)")
        return binary
    }

    func expectEverythingFound(_ binary: String, in dir: Scratch, environment: [String: String] = [:]) throws
    {
        let place = try run(binary, ["where", "60.17", "24.94"], environment: environment)
        #expect(place.code == 0, "\(place.err)")
        #expect(place.out.contains("\"id\":\"FI\""), "\(place.out)")
        let doors = try run(binary, ["doors", "near", "60.1712", "24.9413"], environment: environment)
        #expect(doors.code == 0, "\(doors.err)")
        #expect(doors.out.contains("\"lat\""))
        let wav = dir.file("x.wav")
        #expect(try run(binary, ["say", "여기 아니야", "--wav", wav], environment: environment).code == 0)
        let heard = try run(binary, ["listen", "--wav", wav], environment: environment)
        #expect(heard.code == 0, "\(heard.err)")
        #expect(heard.out.contains("\"meaning\":\"notHere\""), "\(heard.out)")
    }

    @Test func besideTheExecutableAsInstalled() throws {
        let dir = try Scratch()
        let prefix = dir.file("prefix")
        let binary = try copyBinary(to: prefix)
        let share = prefix + "/share/pathfinder"
        try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
        for name in ["artifacts", "models"] {
            try FileManager.default.createSymbolicLink(
                atPath: share + "/" + name, withDestinationPath: repositoryRoot + "/" + name)
        }
        try expectEverythingFound(binary, in: dir)
    }

    @Test func throughPathfinderData() throws {
        let dir = try Scratch()
        let binary = try copyBinary(to: dir.file("elsewhere"))
        try expectEverythingFound(binary, in: dir, environment: ["PATHFINDER_DATA": repositoryRoot])
        // Nothing to find: the message says where it looked.
        let lost = try run(binary, ["doors", "near", "60.1712", "24.9413"])
        #expect(lost.code != 0)
        #expect(lost.err.contains("cannot find Pathfinder's data"), "\(lost.err)")
    }
}
