import Foundation
import TestSupport
import Testing

@testable import PathfinderCLI

@Suite("pathfinder where / search / gazetteer")
struct GazetteerCommandsTests {
    static let database = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("artifacts/gazetteer/gazetteer.sqlite").path

    @Test func whereNamesHelsinkiWithIDs() async {
        let (code, out, _) = await runPathfinder(["where", "60.1699", "24.9384", "--db", Self.database])
        #expect(code == 0)
        #expect(out.contains("\"country\":{\"id\":\"FI\",\"name\":\"Finland\"}"))
        #expect(out.contains("\"region\":{\"id\":\"FI.01\",\"name\":\"Uusimaa\"}"))
        #expect(out.contains("\"city\":{\"id\":658225,\"name\":\"Helsinki\""))
    }

    @Test func whereRejectsBadInput() async {
        let (none, _, noneErr) = await runPathfinder(["where", "--db", Self.database])
        #expect(none == 2)
        #expect(noneErr.contains("expected LAT LON or --stdin"))
        let (bad, _, badErr) = await runPathfinder(["where", "91", "24", "--db", Self.database])
        #expect(bad == 2)
        #expect(badErr.contains("91 24"))
        let (word, _, wordErr) = await runPathfinder(["where", "north", "24", "--db", Self.database])
        #expect(word == 2)
        #expect(wordErr.contains("\"north 24\" is not two numbers"))
    }

    /// `Double("0x10")` is 16: a point in Mali. Only decimal degrees are coordinates.
    @Test(arguments: ["0x10", "1e1", "inf", "nan", "1.2.3", "5-5", "5-", ".", "+"])
    func whereReadsDecimalDegreesOnly(latitude: String) async {
        let (code, out, err) = await runPathfinder(["where", latitude, "0", "--db", Self.database])
        #expect(code == 2)
        #expect(out.isEmpty)
        #expect(err.contains("\"\(latitude) 0\" is not two numbers in decimal degrees"))
    }

    @Test(arguments: ["16", "+16", "16.", "16.0", "-16", "-0.5", ".5"])
    func whereTakesEveryDecimalSpelling(latitude: String) async {
        let (code, out, _) = await runPathfinder(["where", latitude, "0", "--db", Self.database])
        #expect(code == 0)
        #expect(out.hasPrefix("{"))
    }

    /// A `--db` that is not there is bad input (2), as `doors near --db` says it (before, 1 with
    /// SQLite's "unable to open database file"); a missing installed one stays a run-time
    /// failure naming where an install holds it, never a copy in the working directory.
    @Test func aMissingDatabaseIsBadInputAndAMissingInstalledOneARuntimeFailure() async throws {
        let (code, _, err) = await runPathfinder(["where", "60", "24", "--db", "/nonexistent/g.sqlite"])
        #expect(code == 2)
        #expect(err.contains("cannot open gazetteer /nonexistent/g.sqlite: no such file"), "\(err)")
        let (searched, _, _) = await runPathfinder(["search", "x", "--db", "/nonexistent/g.sqlite"])
        #expect(searched == 2)
        #expect(
            Artifacts.gazetteer(environment: [:], executable: "/opt/pf/bin/pathfinder")
                == "/opt/pf/share/pathfinder/artifacts/gazetteer/gazetteer.sqlite")
        // A blank query is said, not answered with nothing and exit 0.
        let (blank, _, blankErr) = await runPathfinder(["search", " ", "--db", Self.database])
        #expect(blank == 2 && blankErr.contains("expected QUERY"), "\(blankErr)")
        // Nothing found is said (before: no output, nothing on stderr, exit 0).
        let (none, noneOut, noneErr) = await runPathfinder(["search", "세종대로", "--db", Self.database])
        #expect(none == 0 && noneOut.isEmpty)
        #expect(noneErr.contains("pathfinder search: no place matches \"세종대로\""), "\(noneErr)")
    }

    @Test func searchLeadsWithTheAirport() async throws {
        let (code, out, _) = await runPathfinder(["search", "LAX", "--limit", "3", "--db", Self.database])
        #expect(code == 0)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 3)
        let first = try #require(lines.first)
        #expect(
            first.hasPrefix(
                "{\"kind\":\"airport\",\"id\":\"LAX\",\"name\":\"Los Angeles International Airport\""))
        let (bad, _, _) = await runPathfinder(["search", "x", "--limit", "0", "--db", Self.database])
        #expect(bad == 2)
        // A limit above the candidate pools widens them (before, at most 63 places, unsaid).
        let (wide, many, _) = await runPathfinder(["search", "a", "--limit", "100", "--db", Self.database])
        #expect(wide == 0 && many.split(separator: "\n").count == 100)
        let (huge, _, hugeErr) = await runPathfinder([
            "search", "a", "--limit", "100000000", "--db", Self.database,
        ])
        #expect(huge == 2 && hugeErr.contains("1…1000"), "\(hugeErr)")
    }

    /// The contract's search line has `"lat": …, "lon": …` in degrees: a region with no city
    /// (Canillo) printed `"lat":null,"lon":null`.
    @Test func searchPrintsDegreesForAPlaceWithoutACity() async throws {
        let (code, out, err) = await runPathfinder([
            "search", "Canillo", "--limit", "1", "--db", Self.database,
        ])
        #expect(code == 0, "\(err)")
        let line = try #require(out.split(separator: "\n").first)
        #expect(line.hasPrefix(#"{"kind":"region","id":"AD.02","name":"Canillo""#), "\(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let lat = try #require(object["lat"] as? Double, "\(line)")
        let lon = try #require(object["lon"] as? Double, "\(line)")
        // `where` at that point names the same region.
        let (whereCode, whereOut, _) = await runPathfinder([
            "where", "\(lat)", "\(lon)", "--db", Self.database,
        ])
        #expect(whereCode == 0)
        #expect(whereOut.contains(#""region":{"id":"AD.02","name":"Canillo"}"#), "\(whereOut)")
    }

    /// `--timing` only means something with `--stdin`; without it, it was ignored (exit 0) while
    /// every other flag that depends on another is refused.
    @Test(arguments: [
        ["search", "helsinki", "--timing"], ["where", "60.17", "24.94", "--timing"], ["where", "--timing"],
    ])
    func timingWithoutStdinIsAUsageError(argv: [String]) async {
        let (code, out, err) = await runPathfinder(argv + ["--db", Self.database])
        #expect(code == 2)
        #expect(out.isEmpty, "\(out)")
        #expect(err.contains("--timing goes with --stdin"), "\(err)")
    }

    /// Runs the built executable with `argv` on `input`: exit status, stdout, stderr.
    func withInput(_ argv: [String], _ input: Data) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = try BuiltExecutable.pathfinder()
        process.arguments = argv
        let scratch = try Scratch()
        let inputFile = try scratch.write("in", "")
        try input.write(to: URL(fileURLWithPath: inputFile))
        let outputFile = try scratch.write("out", ""), errorFile = try scratch.write("err", "")
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOfFile: outputFile, encoding: .utf8),
            try String(contentsOfFile: errorFile, encoding: .utf8)
        )
    }

    /// A query line that is not UTF-8 was quietly repaired ("\xff\xfeabc" answered as "abc",
    /// exit 0): now it gets no answer, its line is named, and the command exits 2, as `where
    /// --stdin` does for a bad line. The good lines are answered, in order.
    @Test func searchStdinNamesALineThatIsNotUTF8() throws {
        let input = Data("helsinki\n".utf8) + Data([0xFF, 0xFE]) + Data("abc\nLAX\n".utf8)
        let (code, out, err) = try withInput(
            ["search", "--stdin", "--limit", "1", "--db", Self.database], input)
        #expect(code == 2)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 2, "\(out)")
        #expect(lines.first?.contains(#""name":"Helsinki""#) == true, "\(out)")
        #expect(lines.last?.contains(#""id":"LAX""#) == true, "\(out)")
        #expect(err.contains("pathfinder search: stdin line 2: not UTF-8 text"), "\(err)")
        // Valid UTF-8 and a Windows line end are queries as before.
        let (clean, cleanOut, cleanErr) = try withInput(
            ["search", "--stdin", "--limit", "1", "--db", Self.database], Data("헬싱키\r\nLAX".utf8))
        #expect(clean == 0 && cleanErr.isEmpty, "\(cleanErr)")
        #expect(
            cleanOut.split(separator: "\n").map { $0.contains("Helsinki") || $0.contains("LAX") } == [
                true, true,
            ])
        // `where --stdin` refuses such a line too, naming it.
        let (whereCode, whereOut, whereErr) = try withInput(
            ["where", "--stdin", "--db", Self.database],
            Data("60.17 24.94\n60".utf8) + Data([0xFF]) + Data(" 24\n".utf8))
        #expect(whereCode == 2)
        #expect(whereOut.split(separator: "\n").count == 1)
        #expect(whereErr.contains("pathfinder where: stdin line 2:"), "\(whereErr)")
    }

    @Test func gazetteerNeedsBuild() async {
        let (code, _, err) = await runPathfinder(["gazetteer", "rebuild"])
        #expect(code == 2)
        #expect(err.contains("expected \"build\""))
    }

    /// `--stdin` reads the process's standard input, so this runs the built executable.
    @Test func whereStdinAnswersEveryLineInOrder() throws {
        let executable = try BuiltExecutable.pathfinder()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["where", "--stdin", "--db", Self.database]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data("60.1699 24.9384\n0 -30\n52.52\t13.405\n".utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.contains("\"FI.01\"") == true)
        #expect(lines.dropFirst().first?.contains("\"sea\":true") == true)
        #expect(lines.last?.contains("\"DE.16\"") == true)

        let bad = Process()
        bad.executableURL = executable
        bad.arguments = ["where", "--stdin", "--db", Self.database]
        let badInput = Pipe()
        let badErrors = Pipe()
        bad.standardInput = badInput
        bad.standardOutput = Pipe()
        bad.standardError = badErrors
        try bad.run()
        badInput.fileHandleForWriting.write(Data("60 24\n60;24\n".utf8))
        try badInput.fileHandleForWriting.close()
        let message = String(decoding: badErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        bad.waitUntilExit()
        #expect(bad.terminationStatus == 2)
        #expect(message.contains("stdin line 2"))
    }

    /// Runs `pathfinder where --stdin` on `input`: exit status, stdout, stderr.
    func whereStdin(_ input: String) throws -> (Int32, String, String) {
        let executable = try BuiltExecutable.pathfinder()
        let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("where-\(UUID()).txt")
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("where-\(UUID()).out")
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("where-\(UUID()).err")
        defer {
            for file in [inputFile, outputFile, errorFile] { try? FileManager.default.removeItem(at: file) }
        }
        try Data(input.utf8).write(to: inputFile)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["where", "--stdin", "--db", Self.database]
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOf: outputFile, encoding: .utf8),
            try String(contentsOf: errorFile, encoding: .utf8)
        )
    }

    /// One bad line among many used to print nothing at all.
    @Test func whereStdinAnswersTheGoodLinesAndNamesEachBadOne() throws {
        let good = ["60.1699 24.9384", "0 -30", "52.52\t13.405", "35.6895 139.6917"]
        var lines: [String] = []
        for i in 0..<2000 { lines.append(good[i % good.count]) }
        lines[1] = "0x10 0"
        lines[999] = "91 24"
        lines[1500] = "60;24"
        let (code, out, err) = try whereStdin(lines.joined(separator: "\n") + "\n")
        #expect(code == 2)
        let (cleanCode, clean, cleanErr) = try whereStdin(
            lines.filter { good.contains($0) }.joined(separator: "\n") + "\n")
        #expect(cleanCode == 0)
        #expect(cleanErr.isEmpty)
        // The good lines' answers, in order, byte for byte as without the bad ones.
        #expect(out == clean)
        #expect(out.split(separator: "\n").count == 1997)
        let errors = err.split(separator: "\n")
        #expect(errors.count == 3)
        #expect(
            errors.first?.contains("stdin line 2: \"0x10 0\" is not two numbers in decimal degrees") == true)
        #expect(errors.dropFirst().first?.contains("stdin line 1000: 91 24 is outside") == true)
        #expect(errors.last?.contains("stdin line 1501: expected \"LAT LON\", got \"60;24\"") == true)
    }
}
