import Foundation
import Testing

@testable import PathfinderCLI

/// What `replay` says and writes as speech, each case from audit 5 (B2, B10) on the binary.
@Suite("replay: what the walker hears")
struct ReplaySpeakingTests {
    /// The callouts of a replay's event log, as (t, text).
    static func callouts(_ out: String) -> [(t: Double, text: String)] {
        eventLines(out).compactMap { e in
            guard e["event"] as? String == "say", let text = e["text"] as? String, text.hasPrefix("입구까지"),
                let t = e["t"] as? Double
            else { return nil }
            return (t, text)
        }
    }

    /// Out of a taxi (20 s north at 8 m/s), then 3 minutes standing with door A due east: the
    /// walker is told the compass word, not a clock hour relative to the taxi (before: "세 시
    /// 방향" 12 times in the 3 minutes; the walker facing the building turned right, south).
    @Test func afterATaxiRide_theDoorIsACompassWord() async throws {
        let r = await runPathfinder([
            "replay", "--nmea", try fixture("taxi-then-stand/walk.nmea"), "--destination",
            try fixture("taxi-then-stand/dest.json"),
        ])
        #expect(r.code == 0, "\(r.err)")
        let standing = Self.callouts(r.out).filter { $0.t >= 20 }
        #expect(standing.count >= 10, "\(standing)")
        for callout in standing {
            #expect(callout.text == "입구까지 백오십 미터, 동쪽 방향", "at \(callout.t) s: \(callout.text)")
        }
    }

    /// A second replay into the folder of a first is refused before it runs, naming the folder
    /// and what it holds, and the first run's prompts stay as they were (before: the second
    /// run's 3 prompts were written over the first's 001…003 and the first's 20 others stayed,
    /// 24 files that looked like one walk's).
    @Test func aSecondRunIntoTheSameFolder_isRefused() async throws {
        let scratch = try Scratch()
        let wav = scratch.file("prompts")
        let first = await runPathfinder([
            "replay", "--nmea", try fixture("short-stretch/walk.nmea"), "--destination",
            try fixture("short-stretch/dest.json"), "--speak-wav", wav,
        ])
        #expect(first.code == 0, "\(first.err)")
        let said = eventLines(first.out).filter { $0["event"] as? String == "say" }.count
        let names = try FileManager.default.contentsOfDirectory(atPath: wav).sorted()
        #expect(names.count == said && said > 1, "\(names)")
        let before = names.map { FileManager.default.contents(atPath: wav + "/" + $0) }

        let second = await runPathfinder([
            "replay", "--nmea", try fixture("taxi-then-stand/walk.nmea"), "--destination",
            try fixture("taxi-then-stand/dest.json"), "--speak-wav", wav,
        ])
        #expect(second.code == 2)
        #expect(second.out.isEmpty, "the walk ran: \(second.out)")
        #expect(
            second.err.contains(
                "pathfinder replay: --speak-wav \(wav): holds \(said) WAV files already (\(names[0]) …); "
                    + "name an empty or new folder, so it holds this run's prompts alone"),
            "\(second.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: wav).sorted() == names)
        #expect(names.map { FileManager.default.contents(atPath: wav + "/" + $0) } == before)

        // Files that are not WAVs (a note beside them) do not make a folder another run's.
        let notes = scratch.file("notes")
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        try Data("what these are\n".utf8).write(to: URL(fileURLWithPath: notes + "/README"))
        let third = await runPathfinder([
            "replay", "--nmea", try fixture("short-stretch/walk.nmea"), "--destination",
            try fixture("short-stretch/dest.json"), "--speak-wav", notes,
        ])
        #expect(third.code == 0, "\(third.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes).count == said + 1)
    }

    /// Names sort in time order however many prompts a run has: the number takes as many
    /// digits as the last one needs, at least 3 (before: `%03d`, so the 1000th prompt,
    /// 1000-t…wav, sorted before 999-t…wav).
    @Test(arguments: [(3, 1), (999, 999), (1000, 1), (1000, 999), (1000, 1000), (12_345, 77)])
    func promptNamesSortInTimeOrder(count: Int, number: Int) {
        let name = ReplaySession.promptName(number, of: count, t: 12.4)
        let digits = max(3, String(count).count)
        #expect(name == String(repeating: "0", count: digits - String(number).count) + "\(number)-t00012.wav")
        if number > 1 {
            #expect(ReplaySession.promptName(number - 1, of: count, t: 9) < name)
        }
    }
}
