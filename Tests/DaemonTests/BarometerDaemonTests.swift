import Arrival
import Daemon
import Foundation
import Geo
import Glibc
import Positioning
import TestSupport
import Testing

/// The daemon's barometer: what feeds the calibration, on which clock, and what `status` and
/// the log say of it.
@Suite(.serialized) struct BarometerDaemonTests {
    /// The demo walk's epochs `epochs` (counted by RMC), moved so the first is at `start`,
    /// without its pressure sentences when `pressure` is false.
    static func demoWalk(epochs: Range<Int>, start: Date, pressure: Bool = true) throws -> String {
        let path = try #require(Bundle.module.path(forResource: "Fixtures/demo/walk.nmea", ofType: nil))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        /// The first epoch's time of day, seconds: moved to `start`.
        var first: Double?
        func moved(_ hhmmss: Substring) -> Date {
            let h = Double(hhmmss.prefix(2))!, m = Double(hhmmss.dropFirst(2).prefix(2))!
            let seconds = h * 3600 + m * 60 + Double(hhmmss.dropFirst(4))!
            if first == nil { first = seconds }
            return start.addingTimeInterval(seconds - first!)
        }
        func format(_ date: Date, _ pattern: String) -> String {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = pattern
            return f.string(from: date)
        }
        var rmc = -1
        var out: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            guard line.hasPrefix("$"), let star = line.firstIndex(of: "*") else { continue }
            var f = line[line.index(after: line.startIndex)..<star].split(
                separator: ",", omittingEmptySubsequences: false
            )
            .map(String.init)
            let type = f[0].dropFirst(2)
            if type == "RMC" { rmc += 1 }
            guard epochs.contains(rmc) else { continue }
            if type == "XDR", !pressure { continue }
            if ["RMC", "GGA", "GST"].contains(type) {
                let t = moved(Substring(f[1]))
                f[1] = format(t, "HHmmss.SS")
                if type == "RMC" { f[9] = format(t, "ddMMyy") }
            }
            let body = f.joined(separator: ",")
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            out.append("$" + body + "*" + String(format: "%02X", sum))
        }
        return out.joined(separator: "\r\n") + "\r\n"
    }

    /// A daemon on `nmea` (written to `dir/walk.nmea`, paced by its time stamps) with the config
    /// keys `extra`, listening.
    static func daemon(
        nmea: String, _ extra: String, in dir: TempDir, configTime: Date? = nil
    ) throws
        -> DaemonProcess
    {
        try nmea.write(toFile: dir.path + "/walk.nmea", atomically: true, encoding: .utf8)
        let config = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "mic": false,
         "speakWav": "\(dir.path)/wav", "nmea": "\(dir.path)/walk.nmea"\(extra)}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        if let configTime {
            try FileManager.default.setAttributes([.modificationDate: configTime], ofItemAtPath: config)
        }
        let daemon = try DaemonProcess(
            arguments: ["--config", config, "--log-level", "debug"], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        return daemon
    }

    /// `status` until `condition` holds on it (bounded, 20 s); the last one.
    static func status(
        of daemon: DaemonProcess, until condition: ([String: JSONValue]) -> Bool
    ) throws -> [String: JSONValue] {
        var client = try daemon.client()
        var last: [String: JSONValue] = [:]
        for _ in 0..<100 {
            last = fields(try client.request(#"{"cmd": "status"}"#))
            if condition(last) { return last }
            usleep(200_000)
            client = try daemon.client()
        }
        return last
    }

    static func calibration(_ status: [String: JSONValue]) -> [String: JSONValue]? {
        status["barometer"]?.objectValue?["calibration"]?.objectValue
    }

    /// An IIO sensor and a receiver whose fixes are dated 3 s ahead of the system clock (an
    /// offline Pi's clock): the altimeter calibrates from GNSS. Before, IIO readings were stamped
    /// with the system clock, never came within 2 s of a fix, and nothing calibrated, unsaid.
    @Test func iioPressurePairsWithFixesDatedAheadOfTheSystemClock() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let device = dir.path + "/iio/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "bmp280\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try "100.600\n".write(toFile: device + "/in_pressure_input", atomically: true, encoding: .utf8)
        let nmea = try Self.demoWalk(epochs: 0..<25, start: Date().addingTimeInterval(3), pressure: false)
        let daemon = try Self.daemon(
            nmea: nmea, #", "baro": "iio", "iioRoot": "\#(dir.path)/iio""#, in: dir)
        let status = try Self.status(of: daemon) { Self.calibration($0)?["from"] == "gnss" }
        #expect(Self.calibration(status)?["from"] == "gnss", "status: \(status)\n\(daemon.stderr)")
        let altitude = status["altitude"]?.objectValue
        #expect((altitude?["accuracy"]?.numberValue ?? 99) <= LevelCheck.usableAccuracyMetres, "\(status)")
        #expect(daemon.stderr.contains("barometer: calibrated from GNSS heights"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
    }

    /// A QNH set in the config, readings two hours after it was given (its `qnhTime`): GNSS heights take over once they are better, and the log said, once, that the QNH
    /// alone was too rough. Before, the QNH was dated at the daemon's start and then won
    /// whatever its age: two hours on no level check was ever made, unsaid.
    @Test func anAgedQNHGivesWayToGNSSCalibration() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let now = Date()
        let nmea = try Self.demoWalk(epochs: 440..<460, start: now)
        let given = Date.ISO8601FormatStyle().format(now.addingTimeInterval(-7200))
        let daemon = try Self.daemon(
            nmea: nmea, #", "baro": "nmea", "qnh": 1008.4, "qnhTime": "\#(given)""#, in: dir)
        let status = try Self.status(of: daemon) { Self.calibration($0)?["from"] == "gnss" }
        #expect(Self.calibration(status)?["from"] == "gnss", "status: \(status)\n\(daemon.stderr)")
        let accuracy = status["altitude"]?.objectValue?["accuracy"]?.numberValue ?? 99
        #expect(accuracy <= LevelCheck.usableAccuracyMetres, "\(status)")
        let rough = daemon.stderr.components(separatedBy: "is too rough for a level check").count - 1
        #expect(rough == 1, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("QNH 1008.4 hPa given 2.0 h before"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
    }

    /// Audit 6 R1-2: a `qnh` without `qnhTime` was dated by the config file's change, so an edit
    /// of any other key made a days-old QNH fresh (±4.1 m): 124 m off, it said "입구는 지금보다
    /// 아래에 있어." at the right door and was stored over the door's altitude. Now a QNH of
    /// unknown age gives altitudes too rough for a level check or a stored door, says so, and
    /// GNSS heights take over at once.
    @Test func aQNHWithoutItsTimeIsOfUnknownAgeAndDoesNoHarm() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let now = Date()
        let nmea = try Self.demoWalk(epochs: 440..<446, start: now)
        let daemon = try Self.daemon(
            nmea: nmea, #", "baro": "nmea", "qnh": 1023.4"#, in: dir, configTime: now)
        let status = try Self.status(of: daemon) { Self.calibration($0)?["from"] == "gnss" }
        #expect(Self.calibration(status)?["from"] == "gnss", "status: \(status)\n\(daemon.stderr)")
        #expect(
            daemon.stderr.contains(
                "barometer: calibrated from QNH 1023.4 hPa of unknown age (no qnhTime)"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("is too rough for a level check"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("given 0.0 h before"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
    }

    /// A QNH with its `qnhTime` now is used as given (it is better than one GNSS height, ±4.8 m),
    /// though the config file is a day old, and `status` says so.
    @Test func aFreshQNHIsUsedAndShown() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let now = Date()
        let nmea = try Self.demoWalk(epochs: 440..<442, start: now)
        let time = Date.ISO8601FormatStyle().format(now)
        let daemon = try Self.daemon(
            nmea: nmea, #", "baro": "nmea", "qnh": 1008.4, "qnhTime": "\#(time)""#, in: dir,
            configTime: now.addingTimeInterval(-86_400))
        let status = try Self.status(of: daemon) { $0["altitude"] != nil && $0["altitude"] != .null }
        #expect(Self.calibration(status)?["from"] == "qnh", "status: \(status)\n\(daemon.stderr)")
        #expect(Self.calibration(status)?["seaLevelPressure"] == .number(1008.4))
        #expect(status["barometer"]?.objectValue?["source"] == "nmea")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExitOrKill() == 0)
    }

    /// `status` says the altitude and what calibrates it: nothing before a reading, then the
    /// GNSS calibration with its samples. Before, it said nothing of the barometer.
    @Test func statusShowsTheAltitudeAndItsCalibration() throws {
        var core = DaemonCore(memory: EntranceMemory())
        core.barometer = DaemonBarometer(source: .nmea)
        func status() throws -> [String: JSONValue] {
            let actions = core.handle(.status, from: 2, now: Date(timeIntervalSince1970: 0))
            return try #require(
                actions.compactMap { if case .reply(2, let v) = $0 { v.objectValue } else { nil } }.first)
        }
        #expect(try status()["altitude"] == .null)
        #expect(try status()["barometer"] == .object(["source": "nmea", "calibration": .null]))
        let start = ContinuousClock.now
        let xdr = PressureReading(time: Date(timeIntervalSince1970: 0), hPa: 1000, source: .nmeaXDR)
        _ = core.barometer.observe(.pressure(xdr), received: start)
        _ = core.barometer.observe(.fix(fix(0, alt: 30)), received: start)
        let measured = core.barometer.observe(.pressure(xdr), received: start)
        #expect(measured.notes == ["barometer: calibrated from GNSS heights (1 sample)"])
        let altitude = try #require(try status()["altitude"]?.objectValue)
        #expect(altitude["metres"] == .number(30) && altitude["accuracy"] == .number(3.2))
        let calibration = try #require(try status()["barometer"]?.objectValue?["calibration"]?.objectValue)
        #expect(calibration["from"] == "gnss" && calibration["samples"] == .number(1))
    }

    /// Audit 6 R1-8: a `qnhTime` after the start (2099, or local time written with `Z`: 9 h
    /// ahead in Korea) was taken silently, and aged through `abs()`; one without `qnh` too.
    /// Now the first is said and the QNH is of unknown age (too rough to harm), the second said.
    @Test func aQNHTimeInTheFutureOrAloneIsSaid() throws {
        let start = Date(timeIntervalSince1970: 1_764_900_000)
        var config = DaemonConfig(environment: ["HOME": "/home/w"])
        config.baro = .nmea
        config.qnh = 1010
        config.qnhTime = start.addingTimeInterval(9 * 3600)
        var barometer = DaemonBarometer(config: config, start: start)
        #expect(
            barometer.startNotes.first?.contains(
                "qnhTime is 9.0 h after the start (a zone missing? the clock wrong?)")
                == true, "\(barometer.startNotes)")
        let reading = PressureReading(time: start, hPa: 1000, source: .nmeaXDR)
        let altitude = try #require(barometer.observe(.pressure(reading), received: .now).altitude)
        #expect(altitude.accuracy > LevelCheck.usableAccuracyMetres)
        // Within 5 minutes (clocks that disagree a little), taken as given.
        config.qnhTime = start.addingTimeInterval(120)
        #expect(DaemonBarometer(config: config, start: start).startNotes == [])
        config.qnh = nil
        #expect(
            DaemonBarometer(config: config, start: start).startNotes == [
                "barometer: qnhTime given without qnh: ignored"
            ])
    }

    /// Audit 6 R1-3: `status` showed a stopped barometer's last altitude with no age, as if
    /// current, while the core had dropped it after 3 s (no level check, none stored). Now
    /// `altitudeAge` says how old it is, as `positionAge` does for the position.
    @Test func statusSaysHowOldTheAltitudeIs() throws {
        var core = DaemonCore(memory: EntranceMemory())
        core.barometer = DaemonBarometer(source: .nmea)
        func status(at t: Double) throws -> [String: JSONValue] {
            let actions = core.handle(.status, from: 2, now: Date(timeIntervalSince1970: t))
            return try #require(
                actions.compactMap { if case .reply(2, let v) = $0 { v.objectValue } else { nil } }.first)
        }
        #expect(try status(at: 0)["altitudeAge"] == .null)
        let start = ContinuousClock.now
        let xdr = PressureReading(time: Date(timeIntervalSince1970: 0), hPa: 1000, source: .nmeaXDR)
        _ = core.barometer.observe(.pressure(xdr), received: start)
        _ = core.barometer.observe(.fix(fix(0, alt: 30)), received: start)
        let altitude = try #require(core.barometer.observe(.pressure(xdr), received: start).altitude)
        _ = core.handle(.altitude(altitude), now: Date(timeIntervalSince1970: 0.5))
        #expect(try status(at: 1)["altitudeAge"] == .number(0.5))
        // The pressure stopped: fixes only.
        for t in 1...10 {
            _ = core.moved(
                .init(
                    time: Date(timeIntervalSince1970: Double(t)),
                    coordinate: Coordinate(latitude: 60.17, longitude: 24.94), horizontalAccuracy: 5),
                now: Date(timeIntervalSince1970: Double(t)))
        }
        let later = try status(at: 10.5)
        #expect(later["altitudeAge"] == .number(10), "\(later)")
        #expect(later["altitude"] != .null, "the last one, with its age")
    }

    func fix(_ t: Double, alt: Double) -> Fix {
        Fix(
            time: Date(timeIntervalSince1970: t), coordinate: Coordinate(latitude: 60.17, longitude: 24.94),
            mode: .threeD, altitudeMSL: alt, verticalAccuracy: 3)
    }

    /// With `baro: iio`, pressure in the NMEA stream (another sensor, or PGRMZ's altitude made
    /// pressure) neither calibrates nor gives an altitude. Before, it fed the calibration.
    @Test func nmeaPressureDoesNotFeedAnIIOBarometer() throws {
        var barometer = DaemonBarometer(source: .iio)
        let start = ContinuousClock.now
        _ = barometer.observe(.fix(fix(0, alt: 30)), received: start)
        let iio = PressureReading(time: nil, hPa: 1000, source: .iio)
        _ = barometer.observe(iio: iio, received: start.advanced(by: .milliseconds(500)))
        _ = barometer.observe(.fix(fix(1, alt: 30)), received: start.advanced(by: .seconds(1)))
        let p0 = try #require(barometer.altimeter.seaLevelPressure)
        let xdr = PressureReading(time: Date(timeIntervalSince1970: 1.5), hPa: 1010, source: .nmeaXDR)
        let fromNMEA = barometer.observe(.pressure(xdr), received: start.advanced(by: .milliseconds(1500)))
        #expect(fromNMEA.altitude == nil)
        _ = barometer.observe(.fix(fix(2, alt: 30)), received: start.advanced(by: .seconds(2)))
        #expect(barometer.altimeter.seaLevelPressure == p0)
        #expect(barometer.altimeter.sampleCount == 2)
    }

    /// "Too rough" is said when the calibration becomes too rough (GNSS samples aged two hours
    /// without a fix), or when a QNH alone is; not while GNSS calibration warms up from one rough
    /// height. A QNH dated after the reading says so. Before, every start with GNSS calibration
    /// said it at the first reading, and an aged QNH said "given 0.0 h before".
    @Test func tooRoughIsSaidWhenItBecomesSo() {
        var barometer = DaemonBarometer(source: .nmea)
        let start = ContinuousClock.now
        var notes: [String] = []
        func reading(_ t: Double) -> PositionEvent {
            .pressure(PressureReading(time: Date(timeIntervalSince1970: t), hPa: 1000, source: .nmeaXDR))
        }
        func rough(_ t: Double, vAcc: Double) -> Fix {
            var f = fix(t, alt: 30)
            f.verticalAccuracy = vAcc
            return f
        }
        for second in 0..<5 {
            let t = Double(second)
            notes += barometer.observe(reading(t), received: start).notes
            notes += barometer.observe(.fix(rough(t, vAcc: second == 0 ? 8 : 3)), received: start).notes
        }
        notes += barometer.observe(reading(5), received: start).notes
        #expect(notes == ["barometer: calibrated from GNSS heights (1 sample)"], "\(notes)")
        notes = barometer.observe(reading(7204), received: start).notes
        notes += barometer.observe(reading(7205), received: start).notes
        #expect(
            notes == [
                "barometer: altitude accuracy 8.5 m (GNSS heights (5 samples)) is too rough for a level check (over 6.0 m)"
            ])
        var qnh = DaemonBarometer(source: .nmea, qnh: (1008.4, Date(timeIntervalSince1970: 7200)))
        #expect(
            qnh.observe(reading(0), received: start).notes == [
                "barometer: calibrated from QNH 1008.4 hPa dated 2.0 h after the reading",
                "barometer: altitude accuracy 9.3 m (QNH 1008.4 hPa dated 2.0 h after the reading) is too rough for a level check (over 6.0 m)",
            ])
    }

    /// Good fixes that never pair with a pressure reading are said once, with the gap.
    @Test func pressureThatNeverPairsIsSaidOnce() {
        var barometer = DaemonBarometer(source: .nmea)
        let start = ContinuousClock.now
        var notes: [String] = []
        for second in 0..<(DaemonBarometer.unpairedBeforeSaying + 10) {
            let t = Double(second)
            let xdr = PressureReading(time: Date(timeIntervalSince1970: t + 5), hPa: 1000, source: .nmeaXDR)
            notes += barometer.observe(.pressure(xdr), received: start).notes
            notes += barometer.observe(.fix(fix(t, alt: 30)), received: start).notes
        }
        #expect(
            notes == [
                "barometer: no GNSS calibration after 60 good fixes: pressure readings and GNSS fixes are 5.0 s apart (over 2.0 s); no level check"
            ])
    }
}
