import Foundation
import Positioning
import TestSupport
import Testing

@testable import PathfinderCLI

/// `pathfinder fixes` on a real receiver log.
@Suite struct FixesCommandTests {

    func log() throws -> String {
        try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/nmea/mt3339.log").path
    }

    @Test func nmeaFilePrintsOneFixLineAnEpochAndASummary() async throws {
        let (code, out, err) = await runPathfinder(["fixes", "--nmea", try log()])
        #expect(code == 0)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 30)
        let firstLine = try #require(lines.first)
        let object = try JSONSerialization.jsonObject(with: Data(firstLine.utf8))
        let first = try #require(object as? [String: Any])
        #expect(first["type"] as? String == "fix")
        #expect(first["time"] as? String == "2015-04-13T20:26:40Z")
        #expect(first["mode"] as? String == "3d")
        #expect(first["altitudeMSL"] as? Double == 1127.7)
        #expect(first["lat"] as? Double == 44.068843333)
        #expect(first["lon"] as? Double == -121.314191667)
        #expect(
            err.contains("pathfinder fixes: 145 lines, 30 fixes, 0 no-fix epochs, 0 bad checksums, 0 junk"))
    }

    @Test func unknownValuesAreLeftOutNeverZero() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rmc.nmea").path
        try "$GPRMC,101010,A,1000.0,N,01000.0,E,,,010624,,*1D\r\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let (code, out, _) = await runPathfinder(["fixes", "--nmea", path])
        #expect(code == 0)
        #expect(out == #"{"lat":10,"lon":10,"mode":"2d","time":"2024-06-01T10:10:10Z","type":"fix"}"# + "\n")
    }

    /// A log whose receiver says some positions came from its simulator (GGA quality 8), were
    /// typed in (RMC mode M) or dead-reckoned with no error estimate (GGA quality 6): those
    /// epochs are no fix, counted as not GNSS. Before, all five epochs were printed as fixes.
    @Test func simulatedTypedInAndDeadReckonedPositionsAreNotPrintedAsFixes() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sources.nmea").path
        let epochs = [(0, "1", "A"), (1, "8", "A"), (2, "1", "M"), (3, "6", "E"), (4, "1", "A")]
        var text = ""
        for (second, quality, mode) in epochs {
            let t = "12000\(second).00"
            text += ReplayInputTests.sentence(
                "GPGGA,\(t),3733.0000,N,12658.0000,E,\(quality),08,1.0,50.0,M,20.0,M,,")
            text += ReplayInputTests.sentence(
                "GPRMC,\(t),A,3733.0000,N,12658.0000,E,0.5,90.0,010124,,,\(mode)")
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (code, out, err) = await runPathfinder(["fixes", "--nmea", path])
        #expect(code == 0)
        let times = out.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["time"] as? String
        }
        #expect(times == ["2024-01-01T12:00:00Z", "2024-01-01T12:00:04Z"], "\(out)")
        #expect(err.contains(" 2 fixes, 3 no-fix epochs, "), "\(err)")
        #expect(err.contains(", 3 not GNSS (simulated, typed in or dead reckoning)"), "\(err)")
    }

    /// A survey-grade σ below the printed millimetre, and a position a hair south-west of
    /// 0°N 0°E at an altitude a hair below sea level: no accuracy prints as 0 (a perfect fix),
    /// nothing as -0, and the line reads back as the same record. Before: accuracies 0, and
    /// `"lat":-0`, `"lon":-0`, `"altitudeMSL":-0`.
    @Test func aTinyAccuracyNeverPrintsAsZeroAndNothingAsMinusZero() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tiny.nmea").path
        let t = "120000.00"
        let text = [
            "GPGGA,\(t),0000.00000001,S,00000.00000001,W,4,20,0.5,-0.0004,M,0.0,M,,",
            "GPGST,\(t),0.001,,,,0.0003,0.0003,0.0002",
            "GPRMC,\(t),A,0000.00000001,S,00000.00000001,W,0.0,0.0,010124,,,R",
        ].map(ReplayInputTests.sentence).joined()
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (code, out, err) = await runPathfinder(["fixes", "--nmea", path])
        #expect(code == 0, "\(err)")
        #expect(!out.contains(":-0,") && !out.contains(":-0}"), "\(out)")
        #expect(
            out.contains(#""horizontalAccuracy":0.001"#) && out.contains(#""verticalAccuracy":0.001"#),
            "\(out)")
        let line = try #require(out.split(separator: "\n").first)
        let record = try JSONDecoder().decode(FixStreamRecord.self, from: Data(line.utf8))
        #expect(record.horizontalAccuracy == 0.001 && record.verticalAccuracy == 0.001)
        #expect(record.lat == 0 && record.lat?.sign == .plus && record.lon?.sign == .plus)
        #expect(record.altitudeMSL?.sign == .plus)
    }

    /// A receiver standing still may say its course is -0 (RMC `-0.0`, VTG `-0`): the course
    /// prints as 0, never `"course":-0` (before: copied as it came, past the -0 rule of 6917f6e).
    @Test func aCourseOfMinusZeroPrintsAsZero() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("still.nmea").path
        let text = [
            "GPGGA,120000.00,6010.00000,N,02456.00000,E,1,09,0.7,10.7,M,17.9,M,,",
            "GPRMC,120000.00,A,6010.00000,N,02456.00000,E,0.0,-0.0,010124,,,A",
            "GPGGA,120001.00,6010.00000,N,02456.00000,E,1,09,0.7,10.7,M,17.9,M,,",
            "GPVTG,-0,T,,M,0.0,N,0.0,K,A", "GPRMC,120001.00,A,6010.00000,N,02456.00000,E,0.0,,010124,,,A",
        ].map(ReplayInputTests.sentence).joined()
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (code, out, err) = await runPathfinder(["fixes", "--nmea", path])
        #expect(code == 0, "\(err)")
        let lines = out.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains(#""course":0,"#) }, "\(out)")
        #expect(!out.contains(":-0"), "\(out)")
    }

    @Test func countStopsEarly() async throws {
        let (code, out, err) = await runPathfinder(["fixes", "--nmea", try log(), "--count", "3"])
        #expect(code == 0)
        #expect(out.split(separator: "\n").count == 3)
        #expect(err.contains("stopped after 3 fixes"))
    }

    @Test(
        arguments: [
            (["fixes"], "exactly one of"), (["fixes", "--nmea", "a", "--gpsd", "h:1"], "exactly one of"),
            (["fixes", "--gpsd", "h:x"], "--gpsd \"h:x\" is not HOST:PORT"),
            (["fixes", "--device", "/dev/null", "--baud", "7"], "--baud \"7\""),
            (["fixes", "--nmea", "/nonexistent/a.nmea"], "cannot read /nonexistent/a.nmea"),
            (["fixes", "--nmea", "a", "--count", "0"], "--count \"0\""),
            (["fixes", "--gpsd", "h:1", "--paced"], "--paced goes with --nmea"),
            // Before, accepted and ignored: standard input was read as fast as it came.
            (["fixes", "--nmea", "-", "--paced"], "--paced needs a file, not standard input"),
            (["fixes", "--nmea", "/tmp"], "cannot read /tmp: is a directory, not a file"),
            // A flag where a value should be: before, "--baud" became the device path.
            (
                ["fixes", "--device", "--baud", "4800"],
                "--device needs a value (the next argument is --baud)"
            ),
        ] as [([String], String)])
    func badInputExits2(_ argv: [String], _ message: String) async {
        let (code, out, err) = await runPathfinder(argv)
        #expect(code == 2)
        #expect(out.isEmpty)
        #expect(err.contains(message), "\(err)")
    }

    /// A gpsd that is not there: said as it happens (before, nothing until the command was
    /// stopped), and the summary says why nothing came (before, only "0 connections").
    @Test func aGPSDThatRefusesIsSaidAsItHappensAndInTheSummary() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["fixes", "--gpsd", "127.0.0.1:1"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Stopped after 5 s whatever happens, so a silent command cannot hang the test.
        let deadline = DispatchWorkItem { process.interrupt() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 5, execute: deadline)
        let first = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        let stillRunning = process.isRunning
        deadline.cancel()
        process.interrupt()
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(stillRunning, "the first words came at the end: \(first)")
        #expect(
            first.hasPrefix(
                "pathfinder fixes: gpsd 127.0.0.1:1: connect 127.0.0.1:1: Connection refused; trying again"),
            "\(first)")
        #expect(
            (first + rest).contains("0 connections, last: connect 127.0.0.1:1: Connection refused"), "\(rest)"
        )
    }

    /// A real gpsd fed a receiver whose positions are simulated (RMC mode S, GGA quality 8),
    /// typed in (M) and dead reckoning alone (E, no GST): the summary counts them "not GNSS",
    /// as for `--nmea`. Before: no count, only "0 fixes, N no-fix epochs".
    @Test func aGPSDOfSimulatedPositionsIsCountedNotGNSSInTheSummary() throws {
        let lines = ["S", "S", "M", "E", "S", "M"].enumerated().flatMap { (i, mode) in
            let t = "12000\(i).00"
            return [
                "GPGGA,\(t),6010.0000,N,02456.0000,E,\(mode == "S" ? 8 : 1),08,0.9,10.0,M,17.0,M,,",
                "GPRMC,\(t),A,6010.0000,N,02456.0000,E,0.5,90.0,010124,,,\(mode)",
            ].map { ReplayInputTests.sentence($0).trimmingCharacters(in: .newlines) }
        }
        let feeder = try LineFeeder(lines: lines, pause: 0.05)
        defer { feeder.shutdown() }
        let port = try freeTCPPort()
        let gpsd = try GPSDProcess(port: port, feed: feeder.port)
        defer { gpsd.stop() }
        let (code, err) = try interrupted(["fixes", "--gpsd", "127.0.0.1:\(port)"], after: 3)
        #expect(code == 0, "\(err)")
        let counted = err.firstMatch(of: /, (\d+) not GNSS \(simulated, typed in or dead reckoning\)/)
        #expect((counted.flatMap { Int($0.1) } ?? 0) >= 5, "\(err)")
        #expect(err.contains("0 fixes"), "\(err)")
    }

    /// A FIFO or a plain file given as `--device` is not a serial device: said at once, with
    /// what reads it, exit 2. Before: a FIFO without a writer held open() until ^C (and with
    /// one, "tcgetattr …: Inappropriate ioctl for device", exit 2); a file said the latter.
    @Test(arguments: ["FIFO", "file"])
    func aFIFOOrFileGivenAsADeviceIsNamedAtOnce(_ kind: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("gps").path
        if kind == "FIFO" {
            try #require(mkfifo(path, 0o600) == 0)
        } else {
            try "$GPGGA\n".write(toFile: path, atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["fixes", "--device", path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Stopped after 5 s whatever happens, so a command blocked in open() cannot hang the test.
        let deadline = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 5, execute: deadline)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        deadline.cancel()
        #expect(process.terminationReason == .exit && process.terminationStatus == 2, "\(err)")
        let what = kind == "FIFO" ? "a FIFO" : "a regular file"
        #expect(
            err.contains(
                "pathfinder fixes: --device \(path) is \(what), not a serial device: read it with --nmea \(path)"
            ),
            "\(err)")
    }

    /// A receiver on a serial device that sends GGA but no RMC/ZDA (no date): its fixes come
    /// out dated today by the system clock (before: none ever, each dropped as undated, and
    /// nothing said why until the summary after ^C).
    @Test func aLiveReceiverSendingOnlyGGAGivesFixesDatedByTheSystemClock() throws {
        try liveGGAReceiver(coldStart: false)
    }

    /// The same receiver starting cold: "no fix" epochs under bogus times first, 11 h and then
    /// 22 h on from the clock (as the bundled cold-boot log's 23:59:48 … 00:04:10 before the
    /// real time). Its fixes are still dated today. Before: the first epoch set the day and
    /// the next ("past midnight") moved it on, so every fix was dated a day ahead.
    @Test func aLiveReceiverStartingColdUnderBogusTimesGivesFixesDatedToday() throws {
        try liveGGAReceiver(coldStart: true)
    }

    func liveGGAReceiver(coldStart: Bool) throws {
        let (master, device) = try openPseudoTerminal()
        defer { close(master) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = ["fixes", "--device", device, "--count", "2"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The receiver: one GGA epoch every 0.1 s stamped with the time of day now, until the
        // command has its two fixes or 10 s have passed (then it is stopped and fails below).
        let started = Date()
        func hhmmss(_ date: Date) -> String {
            let seconds = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
            return String(
                format: "%02d%02d%05.2f", Int(seconds) / 3600, Int(seconds) / 60 % 60,
                seconds.truncatingRemainder(dividingBy: 60))
        }
        func send(_ body: String) {
            let line = ReplayInputTests.sentence(body)
            _ = line.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
            usleep(100_000)
        }
        if coldStart {
            for hours in [11.0, 22.0] {
                send("GPGGA,\(hhmmss(started + hours * 3600)),0000.0000,N,00000.0000,E,0,00,0.0,,M,,M,,")
            }
        }
        while process.isRunning, Date().timeIntervalSince(started) < 10 {
            send("GPGGA,\(hhmmss(Date())),6010.0000,N,02456.0000,E,1,08,0.9,10.0,M,17.0,M,,")
        }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(err)")
        let times = out.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["time"] as? String
        }
        #expect(times.count == 2, "\(out)\(err)")
        for time in times {
            let date = try #require(FixStreamRecord.parseTime(time))
            #expect(abs(date.timeIntervalSince(started)) < 60, "\(time) is not now")
        }
        #expect(err.contains("stopped after 2 fixes"), "\(err)")
        // The summary counts the lines that made the fixes (the two fixes' GGAs, and the cold
        // start's two): the parser's counts are taken before its events are passed on (before,
        // after, so a command stopping at its count could read them one read behind).
        let lines = err.firstMatch(of: /: (\d+) lines,/).flatMap { Int($0.1) }
        #expect((lines ?? 0) >= (coldStart ? 4 : 2), "\(err)")
    }

    /// Runs the binary with `argv` and standard input held open, stops it with SIGINT after
    /// `seconds`, and returns its exit status and standard error.
    func interrupted(_ argv: [String], after seconds: Double) throws -> (code: Int32, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryTests.binary())
        process.arguments = argv
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        usleep(UInt32(seconds * 1_000_000))
        process.interrupt()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, err)
    }

    /// A gpsd never reached, stopped with ^C: exit 1, saying why. Before: exit 0, as if the
    /// count asked for had been printed.
    @Test(
        arguments: [
            (["--count", "1"], "stopped after 0 of the 1 fixes asked for"),
            ([], "never connected to gpsd 127.0.0.1:1"),
        ] as [([String], String)])
    func aGPSDNeverReachedExits1(_ more: [String], _ message: String) throws {
        let r = try interrupted(["fixes", "--gpsd", "127.0.0.1:1"] + more, after: 1)
        #expect(r.code == 1, "\(r.err)")
        #expect(r.err.contains("pathfinder fixes: \(message)"), "\(r.err)")
    }

    /// A barometer whose reading is not a number: said once on standard error, naming the file
    /// and the value, while the command goes on. Before: nothing, no pressure lines either.
    @Test func aBarometerThatCannotBeReadIsSaidOnce() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iio-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let device = root + "/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "bmp280\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try "n/a\n".write(toFile: device + "/in_pressure_input", atomically: true, encoding: .utf8)
        let r = try interrupted(["fixes", "--nmea", "-", "--iio", "--iio-root", root], after: 5)
        let line =
            "pathfinder fixes: --iio bmp280: \(device)/in_pressure_input: \"n/a\" is not a number; trying again"
        #expect(r.err.components(separatedBy: line).count == 2, "\(r.err)")
    }

    /// Every pressure `source` the code emits is listed, as one list, in `fixes --help` and in
    /// CONTRACT.md's pressure line. Before: CONTRACT.md lacked nmea-mmb and nmea-pgrmz, the help
    /// nmea-pgrmz.
    @Test func everyPressureSourceIsListedInTheHelpAndTheContract() async throws {
        let list = PressureReading.Source.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: "|")
        let (code, out, _) = await runPathfinder(["fixes", "--help"])
        #expect(code == 0)
        #expect(out.contains(#""source":"# + list + "}"), "\(out)")
        let contract = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/CONTRACT.md").standardized
        let text = try String(contentsOf: contract, encoding: .utf8)
        #expect(text.contains(#""source": "# + list + "}"), "CONTRACT.md's pressure line")
    }

    @Test func missingBarometerIsARuntimeFailure() async throws {
        let (code, _, err) = await runPathfinder([
            "fixes", "--nmea", try log(), "--iio", "--iio-root", "/nonexistent-iio",
        ])
        #expect(code == 1)
        #expect(err.contains("no IIO barometer under /nonexistent-iio"))
    }
}
