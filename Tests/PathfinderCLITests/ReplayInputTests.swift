import Arrival
import Foundation
import Storage
import Testing

/// `replay`'s inputs and outputs as a developer gives them, each case found by an audit on the
/// binary (stop 42) and failing before its fix.
@Suite("replay: inputs and outputs")
struct ReplayInputTests {
    /// The demo walk's trace, split into epochs (each starts at an RMC).
    static func epochs() throws -> [String] {
        var epochs: [String] = []
        for line in try String(contentsOfFile: DemoWalk.nmea, encoding: .utf8).split(
            whereSeparator: \.isNewline)
        {
            if line.dropFirst(3).hasPrefix("RMC") || epochs.isEmpty { epochs.append("") }
            epochs[epochs.count - 1] += line + "\r\n"
        }
        return epochs
    }

    /// `body` with its NMEA checksum: `$body*HH`.
    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
    }

    func replay(_ nmea: String, _ more: [String] = []) async -> (code: Int32, out: String, err: String) {
        await runPathfinder(
            ["replay", "--nmea", nmea, "--destination", DemoWalk.destination, "--doors", DemoWalk.doors]
                + more)
    }

    /// Before: a CRLF file was one line, a comment when it began with "#", and every answer in
    /// it was lost, exit 0.
    @Test func heardLinesEndingInCRLF_areEachHeard() async throws {
        let scratch = try Scratch()
        let lf = try String(contentsOfFile: DemoWalk.heard, encoding: .utf8)
        // With a byte-order mark, and a last line ending in a lone CR, as some editors save.
        var text = "\u{FEFF}" + lf.replacingOccurrences(of: "\n", with: "\r\n")
        if text.hasSuffix("\r\n") { text.removeLast() }
        text.append("\r")
        let crlf = try scratch.write("heard.tsv", text)
        #expect(crlf.isEmpty == false && lf.contains("#"), "the demo's file starts with a comment")
        let r = await replay(DemoWalk.nmea, ["--heard", crlf])
        #expect(r.code == 0, "\(r.err)")
        let lines = eventLines(r.out)
        let heard = lines.filter { $0["event"] as? String == "heard" }.compactMap { $0["text"] as? String }
        #expect(heard == ["여기 아니야", "여기가 입구야"])
        #expect(lines.contains { $0["event"] as? String == "confirmed" })
    }

    /// A trace whose positions the receiver says are simulated, typed in or dead reckoning
    /// alone says so. Before: "no dated fix in the trace (10 lines, 10 valid sentences, 0 bad
    /// checksums)", pointing at a date the trace has.
    @Test func aTraceOfSimulatedPositions_saysSo() async throws {
        let scratch = try Scratch()
        let modes = ["S", "S", "M", "E", "S"]
        let text = modes.enumerated().map { (i, mode) in
            let t = "10000\(i).00"
            return Self.sentence(
                "GPGGA,\(t),6010.0000,N,02456.0000,E,\(mode == "E" ? 6 : 8),08,0.9,10.0,M,17.0,M,,")
                + Self.sentence("GPRMC,\(t),A,6010.0000,N,02456.0000,E,0.5,90.0,150625,,,\(mode)")
        }.joined()
        let r = await replay(try scratch.write("simulated.nmea", text))
        #expect(r.code == 2, "\(r.err)")
        #expect(
            r.err.contains(
                "no fix in the trace: the receiver says its positions are simulated, typed in or dead reckoning (not GNSS): 5 epochs (10 lines, 10 valid sentences, 0 bad checksums)"
            ), "\(r.err)")
        #expect(!r.err.contains("dated"), "\(r.err)")
    }

    /// Before: "cannot read: the file could not be read", for a file that reads.
    @Test func heardThatIsNotUTF8_isNamedWhere() async throws {
        let scratch = try Scratch()
        let path = scratch.file("bad.tsv")
        var bytes = [UInt8]("1\t여기 아니야\n400.31\t".utf8)
        bytes += [0xFF, 0xFE, 0x0A]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let r = await replay(DemoWalk.nmea, ["--heard", path])
        #expect(r.code == 2)
        #expect(
            r.err.contains(
                "pathfinder replay: \(path): line 2: bytes that are not UTF-8 at byte \(bytes.count - 2)"),
            "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// A 10 Hz trace across a leap second (23:59:60.x): replayed. Before, 23:59:60.x read as
    /// the next day's 00:00:00.x, the real 00:00:00.0 after it went back 0.9 s, and the whole
    /// trace was refused ("time goes back at fix 21").
    @Test func aTenHertzTraceAcrossALeapSecond_isReplayed() async throws {
        let scratch = try Scratch()
        var text = ""
        for (hhmmss, date) in [("235959", "311216"), ("235960", "311216"), ("000000", "010117")] {
            for tenth in 0..<10 {
                let t = "\(hhmmss).\(tenth)0"
                text += Self.sentence("GPRMC,\(t),A,3733.0000,N,12658.0000,E,0.5,90.0,\(date),,,A")
                text += Self.sentence("GPGGA,\(t),3733.0000,N,12658.0000,E,1,08,1.0,50.0,M,20.0,M,,")
            }
        }
        let trace = try scratch.write("leap.nmea", text)
        let r = await replay(trace)
        #expect(r.code == 0, "\(r.err)")
        #expect(!r.out.isEmpty)
    }

    /// Before: the later half sorted in front, the walk logged at negative `t`, exit 0.
    @Test func aTraceWhoseTimeGoesBack_isRefusedNamingTheFix() async throws {
        let scratch = try Scratch()
        let epochs = try Self.epochs()
        let swapped = try scratch.write("swapped.nmea", (epochs[100...] + epochs[..<100]).joined())
        let r = await replay(swapped)
        #expect(r.code == 2)
        #expect(r.err.contains("\(swapped): time goes back at fix "), "\(r.err)")
        #expect(r.err.contains("two walks joined, or a wrong date?"))
        #expect(r.out.isEmpty)
    }

    /// 30 s without a fix after the walk's first fixes: "GPS 신호가 끊겼어" at 20 s and its
    /// return. A replay's walk starts at its first fix, so a signal was there: lost, never
    /// "GPS를 기다리는 중이야." (said only when no fix came in the walk at all: the daemon's `go`
    /// without gpsd).
    @Test func aGapAfterTheFirstFixes_isSaidLost() async throws {
        let scratch = try Scratch()
        let epochs = try Self.epochs()
        let r = await replay(try scratch.write("gap.nmea", (epochs[..<10] + epochs[40..<45]).joined()))
        #expect(r.code == 0, "\(r.err)")
        let gps = eventLines(r.out).filter { $0["event"] as? String == "gps" }
        #expect(gps.compactMap { $0["state"] as? String } == ["lost", "back"], "\(r.out)")
        #expect(gps.first?["t"] as? Double == 29)
        let said = eventLines(r.out).compactMap { $0["text"] as? String }
        #expect(said.contains(Prompts.noFix) && !said.contains { $0.hasPrefix("GPS를 기다리는") }, "\(said)")
    }

    /// A receiver's cold-start "no fix" (RMC `V`) at the trace's time of `epoch`, dated
    /// `ddmmyy`.
    static func noFix(like epoch: String, dated ddmmyy: String) -> String {
        // Half a second on, so it is an epoch of its own, not a late sentence of `epoch`'s.
        let time = epoch.split(separator: ",", omittingEmptySubsequences: false)[1]
            .replacingOccurrences(of: ".00", with: ".50")
        return sentence("GPRMC,\(time),V,,,,,,,\(ddmmyy),,,N")
    }

    /// Before: exit 0, the second walk logged at negative `t`: the cold start's 1980 date
    /// moved the clock back, so the "time goes back" check never saw the join.
    @Test func twoWalksJoinedByAColdStartNoFix_areRefused() async throws {
        let scratch = try Scratch()
        let epochs = try Self.epochs()
        let coldStart = Self.noFix(like: epochs[100], dated: "060180")
        let joined = try scratch.write(
            "joined.nmea", (epochs[100..<120] + [coldStart] + epochs[..<20]).joined())
        let r = await replay(joined)
        #expect(r.code == 2, "\(r.out)")
        #expect(
            r.err.contains("\(joined): time goes back at fix 21: 2025-06-15T10:00:01Z comes after "),
            "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// A no-fix dated days on, in the middle of the walk or at its end, is heard where it
    /// stands and moves no clock: the log is the walk's without it. Before: in the middle,
    /// "time goes back" at the next fix, exit 2; at the end, a tick a second up to its date,
    /// and "GPS lost" 20 s after the walk's last fix (dated 2030: gigabytes, then a crash).
    @Test(arguments: [10, 20])
    func aNoFixDatedDaysOn_staysWhereItStands(at index: Int) async throws {
        let scratch = try Scratch()
        let epochs = Array(try Self.epochs()[..<20])
        let wrong = Self.noFix(like: epochs[index - 1], dated: "180625")
        let path = try scratch.write(
            "wrong.nmea", (epochs[..<index] + [wrong] + epochs[index...]).joined())
        let r = await replay(path)
        #expect(r.code == 0, "\(r.err)")
        let without = await replay(try scratch.write("walk.nmea", epochs.joined()))
        #expect(r.out == without.out)
    }

    /// A "no fix" stamped a little ahead of the next fix — 4 s before the demo walk's first,
    /// or an hour on in its middle — moves the clock no further than that fix: the demo
    /// replays exactly as without it. Before: it moved the clock past the next fix, which was
    /// refused as "time goes back", exit 2.
    @Test(arguments: [0, 200])
    func aNoFixAheadOfTheNextFix_doesNotStopTheWalk(at index: Int) async throws {
        let scratch = try Scratch()
        let epochs = try Self.epochs()
        let ahead =
            index == 0
            ? Self.sentence("GPRMC,100005.00,V,,,,,,,150625,,,N")
            : Self.noFix(
                like: epochs[index - 1].replacingOccurrences(of: ",1003", with: ",1103"), dated: "150625")
        #expect(ahead.contains(index == 0 ? "100005.00,V" : ",1103"), "\(ahead)")
        let path = try scratch.write("ahead.nmea", (epochs[..<index] + [ahead] + epochs[index...]).joined())
        let r = await replay(path)
        #expect(r.code == 0, "\(r.err)")
        let demo = await replay(DemoWalk.nmea)
        #expect(r.out == demo.out)
    }

    /// A cold-booting receiver's "no fix" epochs dated 2006 and 1999 between fixes of 2025
    /// replay as the bundled cold-boot log does: the walk goes on.
    @Test func coldStartNoFixesWithOldDates_doNotStopTheWalk() async throws {
        let scratch = try Scratch()
        let epochs = Array(try Self.epochs()[..<30])
        let cold = [
            Self.noFix(like: epochs[9], dated: "010106"), Self.noFix(like: epochs[9], dated: "311299"),
        ]
        let path = try scratch.write("cold.nmea", (epochs[..<10] + cold + epochs[10...]).joined())
        let r = await replay(path)
        #expect(r.code == 0, "\(r.err)")
        let times = eventLines(r.out).compactMap { $0["t"] as? Double }
        #expect(times.allSatisfy { $0 >= 0 && $0 < 60 }, "\(times)")
    }

    /// One GGA of the walk's first second sent again ten seconds in is dropped as late: the
    /// walk replays as without it. Before: it became a fix of 10:00:01 again, and the whole
    /// recording was refused, "time goes back", exit 2.
    @Test func aRepeatedSentenceFromAnEarlierEpoch_isDropped() async throws {
        let scratch = try Scratch()
        let epochs = Array(try Self.epochs()[..<30])
        let firstGGA = try #require(
            epochs[0].split(separator: "\r\n").first { $0.dropFirst(3).hasPrefix("GGA") })
        let repeated = epochs[..<10] + [firstGGA + "\r\n"] + epochs[10...]
        let r = await replay(try scratch.write("repeated.nmea", repeated.joined()))
        #expect(r.code == 0, "\(r.err)")
        let without = await replay(try scratch.write("walk.nmea", epochs.joined()))
        #expect(r.out == without.out)
    }

    /// Before: a tick a second up to a fix 20 years on, 2 GB, then a crash.
    @Test func aTraceSpanningYears_isRefusedNamingTheFix() async throws {
        let scratch = try Scratch()
        let rollover = Self.sentence("GPRMC,100000.00,A,6010.518,N,02457.101,E,0.0,,301005,,,A")
        let rest = try Self.epochs()[..<20].joined()
        let path = try scratch.write("rollover.nmea", rollover + rest)
        let r = await replay(path)
        #expect(r.code == 2)
        #expect(r.err.contains("\(path): fix 2 at 2025-06-15T"), "\(r.err)")
        #expect(
            r.err.contains("days after the first fix (2005-10-30T10:00:00Z); a replay spans at most 48 h"))
    }

    /// Before: the log printed and the memory written, then exit 2 for the folder.
    @Test func aBadSpeakWavOrMap_isRefusedBeforeTheWalk() async throws {
        let scratch = try Scratch()
        let file = try scratch.write("plain", "")
        let memory = scratch.file("memory.json")
        for flags in [
            ["--speak-wav", file], ["--map", scratch.path], ["--map", scratch.file("no/map.svg")],
        ] {
            let r = await replay(DemoWalk.nmea, ["--heard", DemoWalk.heard, "--memory", memory] + flags)
            #expect(r.code == 2, "\(flags)")
            #expect(r.out.isEmpty, "\(flags): the walk ran")
            #expect(r.err.contains(flags[0] + " " + flags[1]), "\(r.err)")
            #expect(!FileManager.default.fileExists(atPath: memory), "\(flags): the memory was written")
        }
    }

    /// A last stretch shorter than the arrival radius (5 m; 12 m radius): the walker standing
    /// 8 m from the door arrives and is heard (before: never arrived, the answer ignored).
    @Test func aShortLastStretchStillArrives() async throws {
        let scratch = try Scratch()
        let r = await runPathfinder([
            "replay", "--nmea", try fixture("short-stretch/walk.nmea"), "--destination",
            try fixture("short-stretch/dest.json"), "--heard", try scratch.write("h.tsv", "45\t여기가 입구야\n"),
            "--last-stretch-metres", "5",
        ])
        #expect(r.code == 0, "\(r.err)")
        let events = eventLines(r.out).compactMap { $0["event"] as? String }
        #expect(events.contains("arrived") && events.contains("confirmed"), "\(events)")
    }

    /// The short-stretch walk (one epoch a second, 60 s; at door A from 28 s), its epochs
    /// `0..<gapFrom` and `gapTo...` kept, each GST's σ lat/lon set to `sigma` when given.
    static func shortStretch(gapFrom: Int = 60, gapTo: Int = 60, sigma: String? = nil) throws -> String {
        let lines = try String(contentsOfFile: try fixture("short-stretch/walk.nmea"), encoding: .utf8)
            .split(whereSeparator: \.isNewline)
        var out = ""
        for (i, line) in lines.enumerated() where i / 3 < gapFrom || i / 3 >= gapTo {
            var fields = line.dropFirst().prefix { $0 != "*" }.split(
                separator: ",", omittingEmptySubsequences: false
            )
            .map(String.init)
            if let sigma, fields[0] == "GPGST" { (fields[6], fields[7]) = (sigma, sigma) }
            out += sentence(fields.joined(separator: ","))
        }
        return out
    }

    func replayShortStretch(_ nmea: String, heard: String) async throws -> [[String: Any]] {
        let scratch = try Scratch()
        let r = await runPathfinder([
            "replay", "--nmea", try scratch.write("walk.nmea", nmea), "--destination",
            try fixture("short-stretch/dest.json"), "--heard", try scratch.write("h.tsv", heard),
            "--last-stretch-metres", "5",
        ])
        #expect(r.code == 0, "\(r.err)")
        return eventLines(r.out)
    }

    /// "여기가 입구야" said 23 s into a loss of GPS stores nothing and asks again; said again
    /// 2 s after the fix is back, it is acted on (FinalApproachEdgeTests proves the rule on the
    /// core; this is the walk a developer replays).
    @Test func anAnswerWithoutAPosition_isAskedAgainAndTheRepeatActs() async throws {
        let events = try await replayShortStretch(
            try Self.shortStretch(gapFrom: 30, gapTo: 55), heard: "52\t여기가 입구야\n57\t여기가 입구야\n")
        let story = events.compactMap { e -> String? in
            switch e["event"] as? String {
            case "say": e["text"] as? String
            case "confirmed": "confirmed at \(e["t"] ?? "?")"
            default: nil
            }
        }
        let asked = try #require(story.firstIndex(of: Prompts.cannotRemember), "\(story)")
        #expect(story[asked...].contains(Prompts.fixBack), "\(story)")
        #expect(story.last == Prompts.remembered, "\(story)")
        #expect(story.contains("confirmed at 57"), "\(story)")
    }

    /// Poor accuracy (GST σ 22 m) is said once across "여기 아니야" within the minute
    /// (FinalApproachEdgeTests proves it on the core, with lost GPS too).
    @Test func aPoorAccuracyWarning_isNotRepeatedByARejection() async throws {
        let events = try await replayShortStretch(try Self.shortStretch(sigma: "22.0"), heard: "35\t여기 아니야\n")
        #expect(events.contains { $0["event"] as? String == "rejected" })
        let warnings = events.compactMap { $0["text"] as? String }.filter { $0.hasPrefix("GPS가 부정확해") }
        #expect(warnings.count == 1, "\(warnings)")
    }

    /// A door's level is a label, said as OSM writes it: "01" is "영 일", "-0" "마이너스 영"
    /// (before: "일" and "영", another floor's label).
    @Test(arguments: [("01", "층 표시 영 일."), ("-0", "층 표시 마이너스 영.")])
    func aDoorsLevelIsSaidAsWritten(level: String, said: String) async throws {
        let scratch = try Scratch()
        let destination = try scratch.write(
            "dest.json",
            #"{"name": "테스트빌딩", "center": {"lat": 60.17, "lon": 24.94}, "door": {"lat": 60.16991006796363, "lon": 24.94, "label": "A", "level": "\#(level)"}}"#
        )
        let r = await runPathfinder([
            "replay", "--nmea", try fixture("short-stretch/walk.nmea"), "--destination", destination,
            "--last-stretch-metres", "5",
        ])
        #expect(r.code == 0, "\(r.err)")
        let sayings = eventLines(r.out).filter { $0["event"] as? String == "say" }.compactMap {
            $0["text"] as? String
        }
        #expect(sayings.contains { $0.hasPrefix("입구에 도착했어. A 입구. \(said)") }, "\(sayings)")
    }

    /// A replay holds the memory's lock from its read to its last write, as the `memory`
    /// commands do (before, a door confirmed beside a replay was written over by its next save).
    @Test func replayTakesTheMemorysLock() throws {
        let scratch = try Scratch()
        let memory = scratch.file("memory.json")
        let held = try MemoryFile.Lock(path: memory)
        let r = try BinaryTests.run(
            executable: try BinaryTests.binary(),
            [
                "replay", "--nmea", DemoWalk.nmea, "--destination", DemoWalk.destination, "--heard",
                DemoWalk.heard, "--memory", memory,
            ])
        withExtendedLifetime(held) {}
        #expect(r.code == 1)
        #expect(r.out.isEmpty)
        #expect(r.err.contains("in use by another pathfinder command changing the memory"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: memory))
    }
}
