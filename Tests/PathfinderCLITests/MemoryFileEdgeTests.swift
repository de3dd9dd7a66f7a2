import Foundation
import Glibc
import Testing

/// The memory file at its edges, on the binary, each case found by an audit (stop 42) and
/// failing before its fix: nothing the walker taught is lost or silently changed, and what is
/// wrong is named.
@Suite("memory file: edges")
struct MemoryFileEdgeTests {
    static let confirmSilta = [
        "--name", "Siltavuorenpenger 10", "--center", "60.1753029,24.9516901", "--door", "60.17512,24.95167",
    ]

    /// A memory with two buildings, made by the binary: Siltavuorenpenger 10 (a confirmed door)
    /// and "X" (a door with `note`); its text.
    static func twoBuildings(at path: String, note: String = "") async throws -> String {
        var r = await runPathfinder(
            ["memory", "confirm", "--file", path, "--now", "2025-06-01T00:00:00Z"] + confirmSilta)
        try #require(r.code == 0, "\(r.err)")
        r = await runPathfinder(
            [
                "memory", "confirm", "--file", path, "--name", "X", "--center", "45,10", "--door",
                "45.0001,10",
                "--now", "2025-06-02T00:00:00Z",
            ] + (note.isEmpty ? [] : ["--note", note]))
        try #require(r.code == 0, "\(r.err)")
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Before: with no room to copy the damaged file aside, the save went ahead and the damaged
    /// building was gone for good, exit 0. (A file-size limit stands in for a full disk.)
    @Test func aDamagedFileThatCannotBeCopiedAside_isLeftAsItIs() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        let text = try await Self.twoBuildings(at: path, note: String(repeating: "북쪽 출입구 ", count: 400))
        // X (first: changed last) gets a time no one can read: skipped, the rest kept.
        let damaged = text.replacingOccurrences(of: "\"2025-06-02T00:00:00Z\"", with: "\"yesterday\"")
        try #require(damaged != text)
        try Data(damaged.utf8).write(to: URL(fileURLWithPath: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(before.count > 5 * 1024)
        let r = try BinaryTests.run(
            executable: "/bin/bash",
            [
                "-c", "trap '' XFSZ; ulimit -f 5; exec \"$0\" \"$@\"", try BinaryTests.binary(), "memory",
                "reject", "--file", path,
            ] + Self.confirmSilta)
        #expect(r.code == 1, "\(r.err)")
        #expect(r.err.contains("could not copy it aside"), "\(r.err)")
        #expect(r.err.contains("not writing over a file that could not be kept aside"), "\(r.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A memory file cut short (a full disk, a copy stopped) names the line where it ends
    /// (before: "not valid JSON: Unexpected end of file during JSON parse", no line).
    @Test func aTruncatedMemoryNamesItsLastLine() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        let text = try await Self.twoBuildings(at: path)
        let cut = String(text.prefix(text.count / 2))
        try Data((cut + "\n\n").utf8).write(to: URL(fileURLWithPath: path))
        let lastLine = cut.split(separator: "\n", omittingEmptySubsequences: false).count

        let show = await runPathfinder(["memory", "show", "--file", path])
        #expect(show.code == 2)
        #expect(show.err.contains("memory.json: line \(lastLine): not valid JSON"), "\(show.err)")
    }

    /// Before: "not valid JSON: Number 1e400 is not representable in Swift", no line, and the
    /// whole file set aside or ignored for one number.
    @Test func aNumberTooLargeToRead_skipsOnlyItsBuilding() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        let text = try await Self.twoBuildings(at: path)
        let huge = text.replacingOccurrences(of: "\"lat\" : 45.0001", with: "\"lat\" : 1e400")
        try #require(huge != text)
        try Data(huge.utf8).write(to: URL(fileURLWithPath: path))
        let line =
            huge.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("1e400") }!
            + 1

        let show = await runPathfinder(["memory", "show", "--file", path])
        #expect(show.code == 2)
        #expect(show.err.contains("line \(line): the number 1e400 is too large to read"), "\(show.err)")

        let plan = await runPathfinder([
            "plan", "--destination", DemoWalk.destination, "--memory", path, "--compact", "--now",
            "2025-06-20T00:00:00Z",
        ])
        #expect(plan.code == 0, "\(plan.err)")
        #expect(
            plan.err.contains(
                "line \(line): field buildings[0].confirmed.lat: building 0 (\"X\") skipped: the number 1e400 is too large to read"
            ), "\(plan.err)")
        #expect(plan.out.contains("\"source\":\"walker\""), "the other building still plans: \(plan.out)")
    }

    /// Audit 5-A F8: an altitude no barometer gives was read and used (an accuracy of −1 the
    /// level check took for a perfect one, 99999 m), though `--altitude 21,-1` was refused; and
    /// `--altitude 99999,1` was stored.
    @Test(arguments: [
        ("\"accuracy\" : -1", "field buildings[0].confirmed.altitude.accuracy: -1.0 m: an accuracy is ≥ 0"),
        (
            "\"metres\" : 99999",
            "field buildings[0].confirmed.altitude.metres: 99999.0 m is outside −500…9000 m above sea level"
        ),
        (
            "\"metres\" : -5000",
            "field buildings[0].confirmed.altitude.metres: -5000.0 m is outside −500…9000 m above sea level"
        ),
    ])
    func anAltitudeNoBarometerGives_isRefusedNamingIt(replacement: String, message: String) async throws {
        let scratch = try Scratch()
        let key = replacement.prefix { $0 != " " }
        let path = try await Self.altitudeEdited(
            in: scratch, replacing: key == "\"accuracy\"" ? "\"accuracy\" : 4.2" : "\"metres\" : 21",
            with: replacement)
        let show = await runPathfinder(["memory", "show", "--file", path])
        #expect(show.code == 2)
        #expect(show.err.contains(path) && show.err.contains(message), "\(show.err)")
    }

    /// A memory written by `memory confirm` with the door's altitude 21 m ±4.2, its text then
    /// edited by hand (`original` replaced with `replacement`, which must change it): its path.
    static func altitudeEdited(
        in scratch: Scratch, replacing original: String, with replacement: String
    ) async throws -> String {
        let path = scratch.file("memory.json")
        let made = await runPathfinder(
            ["memory", "confirm", "--file", path, "--altitude", "21,4.2", "--now", "2025-06-01T00:00:00Z"]
                + confirmSilta)
        try #require(made.code == 0, "\(made.err)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let bad = text.replacingOccurrences(of: original, with: replacement)
        try #require(bad != text, "\(text)")
        try Data(bad.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Audit 6 R1-11: a memory holding an altitude no barometer gives (the old CLI stored
    /// `--altitude 99999,1`) lost the whole building at load, its confirmed door with it
    /// ("building 0 (\"X\") skipped"). Now only the altitude goes, named, and the door stays.
    @Test(arguments: [("\"metres\" : 21", "\"metres\" : 99999"), ("\"accuracy\" : 4.2", "\"accuracy\" : -1")])
    func anImplausibleAltitude_dropsOnlyTheAltitudeAtLoad(original: String, replacement: String) async throws
    {
        let scratch = try Scratch()
        let path = try await Self.altitudeEdited(in: scratch, replacing: original, with: replacement)
        let field = original.contains("metres") ? "metres" : "accuracy"

        let r = await runPathfinder([
            "memory", "reject", "--file", path, "--name", "Other", "--center", "60.2,24.9", "--door",
            "60.2001,24.9",
        ])
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.err.contains(path) && r.err.contains("field buildings[0].confirmed.altitude.\(field)")
                && r.err.contains("altitude dropped, the door kept"), "\(r.err)")
        #expect(!r.err.contains("skipped"), "\(r.err)")
        let file =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any]
        let silta = (file?["buildings"] as? [[String: Any]])?.first {
            $0["name"] as? String == "Siltavuorenpenger 10"
        }
        let confirmed = try #require(silta?["confirmed"] as? [String: Any], "\(String(describing: file))")
        #expect(confirmed["lat"] as? Double == 60.17512)
        #expect(confirmed["altitude"] == nil)
    }

    @Test(arguments: ["99999,1", "-5000,1", "9000.1,1"])
    func confirmRefusesAnAltitudeNoDoorHas(altitude: String) async throws {
        let scratch = try Scratch()
        let r = await runPathfinder(
            ["memory", "confirm", "--file", scratch.file("m.json"), "--altitude", altitude]
                + Self.confirmSilta)
        #expect(r.code == 2)
        #expect(
            r.err.contains("pathfinder memory confirm: --altitude: ")
                && r.err.contains(" m is outside −500…9000 m above sea level"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("m.json")))
    }

    /// Before: "2025-02-30" read as 2 March, in the file and in `--now`, exit 0.
    @Test func anImpossibleDate_isRefusedNamingIt() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        let text = try await Self.twoBuildings(at: path)
        try Data(text.replacingOccurrences(of: "2025-06-02T00:00:00Z", with: "2025-02-30T00:00:00Z").utf8)
            .write(
                to: URL(fileURLWithPath: path))
        let show = await runPathfinder(["memory", "show", "--file", path])
        #expect(show.code == 2)
        #expect(
            show.err.contains(
                "field buildings[0].changed: \"2025-02-30T00:00:00Z\": day 30 is not in month 2 of 2025"),
            "\(show.err)")
        for now in ["2025-02-30T00:00:00Z", "2025-06-01T25:00:00Z"] {
            let confirm = await runPathfinder(
                ["memory", "confirm", "--file", scratch.file("other.json"), "--now", now] + Self.confirmSilta)
            #expect(confirm.code == 2, "\(now)")
            #expect(confirm.err.contains("--now \"\(now)\" is not an ISO 8601 time"), "\(confirm.err)")
        }
    }

    /// Before: a change dated before the file's newest (a replay of an older walk) went first,
    /// out of the most-recently-changed order trimming relies on.
    @Test func anOlderChange_takesItsPlaceByTime() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        _ = try await Self.twoBuildings(at: path)  // X (06-02) before Siltavuorenpenger (06-01)
        let r = await runPathfinder([
            "memory", "confirm", "--file", path, "--name", "Old", "--center", "50,10", "--door", "50,10",
            "--now", "2025-05-01T00:00:00Z",
        ])
        #expect(r.code == 0, "\(r.err)")
        // It prints the building it changed (a review found the first one printed, "X").
        #expect(r.out.contains("\"name\":\"Old\""), "\(r.out)")
        let file =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any]
        let names = (file?["buildings"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["X", "Siltavuorenpenger 10", "Old"])
    }

    /// A file of 200 buildings (OSM's doors alone) listed oldest first, and a walk to a 201st:
    /// the least recently changed (B199, listed first) goes, whatever the file's order, and the
    /// others stay in the order written (a read never reorders). Before, trimming went by
    /// position and dropped B000, the most recently changed.
    @Test func aFileListedOldestFirst_isTrimmedByChangedNotByPlace() async throws {
        let memory = try TwoDoorBuilding.memory(
            walkerTaught: { _ in false }, newest: TwoDoorBuilding.start - 86_400, oldestFirst: true)
        let (_, written) = try await TwoDoorBuilding.replay(memory: memory, heard: "")
        let file = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any]
        let names = (file?["buildings"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == [TwoDoorBuilding.name] + (0..<199).reversed().map { String(format: "B%03d", $0) })
    }

    /// Before: the link was replaced by a file and its target no longer kept.
    @Test func aLinkIsWrittenThrough() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(
            atPath: scratch.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: scratch.file("link"), withIntermediateDirectories: true)
        let real = scratch.file("real/memory.json"), link = scratch.file("link/memory.json")
        _ = try await Self.twoBuildings(at: real)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../real/memory.json")
        let r = await runPathfinder(
            ["memory", "confirm", "--file", link, "--name", "Z", "--center", "50,10", "--door", "50,10"])
        #expect(r.code == 0, "\(r.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../real/memory.json")
        let names =
            try String(contentsOfFile: real, encoding: .utf8).components(separatedBy: "\"name\"").count - 1
        #expect(names == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("real")) == ["memory.json"])

        // A link to a file that does not parse: the file itself is set aside, the link stays
        // and the save goes through it (a review found the link moved aside and replaced).
        try Data("{\"version\": 1, \"buildings\": [".utf8).write(to: URL(fileURLWithPath: real))
        let again = await runPathfinder(
            ["memory", "confirm", "--file", link, "--name", "Y", "--center", "51,10", "--door", "51,10"])
        #expect(again.code == 0, "\(again.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../real/memory.json")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("link")) == ["memory.json"])
        let real2 = try FileManager.default.contentsOfDirectory(atPath: scratch.file("real")).sorted()
        #expect(
            real2.count == 2 && real2[0] == "memory.json" && real2[1].hasPrefix("memory.json.corrupt-"),
            "\(real2)")
        #expect(try String(contentsOfFile: real, encoding: .utf8).contains("\"Y\""))
    }

    /// A chain of links (a → b → the file), the file there or not yet: the file is written,
    /// both links stay (a review found the middle link replaced by a file).
    @Test func aChainOfLinksIsWrittenThroughToItsEnd() async throws {
        let scratch = try Scratch()
        for folder in ["a", "b", "c"] {
            try FileManager.default.createDirectory(
                atPath: scratch.file(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("a/l1"), withDestinationPath: "../b/l2")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("b/l2"), withDestinationPath: "../c/f.json")
        for round in 0..<3 {
            if round == 2 {
                try Data("{not json".utf8).write(to: URL(fileURLWithPath: scratch.file("c/f.json")))
            }
            let r = await runPathfinder(
                [
                    "memory", "confirm", "--file", scratch.file("a/l1"), "--name", "A", "--center", "60,25",
                    "--door",
                    "60.000\(round + 1),25",
                ])
            #expect(r.code == 0, "round \(round): \(r.err)")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("a/l1")) == "../b/l2")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("b/l2"))
                    == "../c/f.json")
            #expect(
                try String(contentsOfFile: scratch.file("c/f.json"), encoding: .utf8).contains("\"A\""),
                "round \(round)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("c")).count == 2,
            "the file and the damaged one set aside")
    }

    /// A change to a building made earlier than its last change (a replay of an older walk)
    /// keeps its newer time (a review found it moved back, first in line for trimming).
    @Test func anOlderChangeNeverMovesABuildingBackInTime() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        var r = await runPathfinder(
            ["memory", "confirm", "--file", path, "--now", "2026-01-05T00:00:00Z"] + Self.confirmSilta)
        #expect(r.code == 0, "\(r.err)")
        r = await runPathfinder(
            ["memory", "reject", "--file", path, "--now", "2026-01-04T00:00:00Z"] + Self.confirmSilta)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\"changed\":\"2026-01-05T00:00:00Z\""), "\(r.out)")
    }

    /// Before: a FIFO hung until killed; /dev/zero ran out of memory (exit 134); a directory or a
    /// file that cannot be read was exit 2 for `show`, 1 for `confirm`.
    @Test func aPathThatIsNoFile_failsAtOnce() async throws {
        let scratch = try Scratch()
        let fifo = scratch.file("fifo.json")
        try #require(mkfifo(fifo, 0o600) == 0)
        let cases = [
            (fifo, "is a FIFO, not a file"), ("/dev/zero", "is a device, not a file"),
            (scratch.path, "Is a directory"),
        ]
        for (path, reason) in cases {
            let r = try BinaryTests.run(
                executable: try BinaryTests.binary(), ["memory", "show", "--file", path])
            #expect(r.code == 1, "\(path): \(r.err)")
            #expect(r.err.contains(reason), "\(r.err)")
        }
    }

    /// Before: "not valid JSON: The given data was not valid JSON." for a valid file.
    @Test func aFractionalVersion_isNamed() async throws {
        let scratch = try Scratch()
        let path = scratch.file("memory.json")
        let text = try await Self.twoBuildings(at: path)
        try Data(text.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 1.5").utf8).write(
            to: URL(fileURLWithPath: path))
        let r = await runPathfinder(["memory", "show", "--file", path])
        #expect(r.code == 2)
        #expect(r.err.contains("field version: version 1.5 is not one this Pathfinder reads (1)"), "\(r.err)")
    }

    /// Before: `--file=` was a file named "": an empty memory shown, exit 0.
    @Test func anEmptyPath_isAUsageError() async throws {
        for argv in [
            ["memory", "show", "--file="], ["plan", "--destination", DemoWalk.destination, "--memory="],
        ] {
            let r = await runPathfinder(argv)
            #expect(r.code == 2, "\(argv)")
            #expect(r.err.contains(" is empty (it needs a value)"), "\(r.err)")
        }
    }

    /// Standard input that is a socket (a program driving pathfinder over a socketpair, as
    /// Node.js does) is read as it is open (a review found "no such device or address").
    @Test func aDestinationOnAStandardInputSocket_isRead() throws {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let text = try Data(contentsOf: URL(fileURLWithPath: DemoWalk.destination))
        _ = text.withUnsafeBytes { write(pair[1], $0.baseAddress, $0.count) }
        close(pair[1])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["plan", "--destination", "/dev/stdin", "--compact"]
        process.standardInput = FileHandle(fileDescriptor: pair[0], closeOnDealloc: true)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        #expect(printed.contains("\"walkTo\""), "\(printed)")
    }

    /// Before: "cannot read Destination: permission denied" for a pipe that reads.
    @Test func aDestinationThroughAPipe_isRead() throws {
        let r = try BinaryTests.run(
            executable: "/bin/bash",
            [
                "-c", "cat \"$1\" | \"$0\" plan --destination /dev/stdin --compact", try BinaryTests.binary(),
                DemoWalk.destination,
            ])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\"walkTo\""), "\(r.out)")
    }

    /// A terminal or serial device as an input file fails at once (a review found one read
    /// forever, as a pipe is).
    @Test func aDeviceAsAnInputFile_isRefused() async throws {
        let r = await runPathfinder(["plan", "--destination", "/dev/zero"])
        #expect(r.code == 2)
        #expect(r.err.contains("/dev/zero: cannot read destination: is a device, not a file"), "\(r.err)")
    }

    /// Before: a directory of door indexes was opened as one SQLite file ("disk I/O error").
    @Test func replayDoorsTakesADirectory() async throws {
        let r = await runPathfinder([
            "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--doors",
            repositoryRoot + "/artifacts/doors", "--heard", DemoWalk.heard,
        ])
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.err.contains(
                "doors from the door index \(repositoryRoot)/artifacts/doors/helsinki.db: building way 28903274, 3 doors"
            ), "\(r.err)")
    }
}
