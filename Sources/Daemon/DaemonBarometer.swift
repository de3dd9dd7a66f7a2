package import Arrival
package import Foundation
import Geo
package import Positioning

/// The daemon's altimeter and what feeds it: the configured pressure source only, IIO
/// readings put on the fixes' clock, the QNH with its own time, and the lines worth logging
/// once. A value changed by the one loop in `Daemon.run`; tests drive it directly.
package struct DaemonBarometer: Sendable {
    /// Where pressure comes from (`baro`).
    package let source: DaemonConfig.Barometer
    package private(set) var altimeter = BarometricAltimeter()
    /// The last fix's receiver time and when it came (monotonic): an IIO reading is stamped on
    /// that clock, so it pairs with fixes whatever the system clock says.
    private var lastFix: (time: Date, received: ContinuousClock.Instant)?
    /// The last altitude handed on, for `status`.
    package private(set) var altitude: BarometricAltitude?
    /// The calibration that gave it.
    private var calibration: BarometricAltimeter.Calibration?
    /// Good fixes (3D, a height with an accuracy the altimeter takes) that found no pressure
    /// within the pairing gap, while none did; and the gap of the last one.
    private var unpaired = 0
    private var lastGap: Double?
    private var pairedOnce = false
    /// "Too rough" said, and not yet usable again; an altitude usable for a level check seen
    /// since then.
    private var roughSaid = false
    private var wasUsable = false
    /// Whether the last calibration said came from a QNH (nil: none said yet).
    private var saidQNH: Bool?
    /// Warnings about the configured QNH, for the log at start.
    package private(set) var startNotes: [String] = []

    /// How many good fixes in a row may find no pressure reading to pair with before the log
    /// says so: a minute at 1 Hz.
    package static let unpairedBeforeSaying = 60

    /// - Parameters:
    ///   - qnh: a sea-level pressure (hPa) given, and when it was given (its drift grows from
    ///     then); a time `nil` is unknown: ``BarometricAltimeter/unknownAgeQNHAccuracyMetres``.
    package init(source: DaemonConfig.Barometer, qnh: (hPa: Double, time: Date?)? = nil) {
        self.source = source
        if let qnh {
            if let time = qnh.time {
                altimeter.calibrate(qnh: qnh.hPa, at: time)
            } else {
                altimeter.calibrate(qnh: qnh.hPa, accuracy: BarometricAltimeter.unknownAgeQNHAccuracyMetres)
            }
        }
    }

    /// What one input gives: the walker's altitude (for FinalApproach) and lines to log.
    package struct Outcome: Sendable, Equatable {
        package var altitude: BarometricAltitude?
        package var notes: [String] = []
    }

    /// A position event from the GPS source: fixes calibrate; its pressure (`$--XDR`, `$--MDA`,
    /// …) counts only when `baro` is `nmea` (before, it fed the calibration with `baro: iio` too).
    /// - Parameter received: when it came, on the monotonic clock.
    package mutating func observe(_ event: PositionEvent, received: ContinuousClock.Instant) -> Outcome {
        switch event {
        case .fix(let fix):
            lastFix = (fix.time, received)
            return calibrate(with: fix)
        case .noFix:
            return Outcome()
        case .pressure(let reading):
            guard source == .nmea else { return Outcome() }
            return measured(reading)
        }
    }

    /// An IIO reading, stamped again on the fixes' clock: the last fix's time plus the time
    /// since it came (before, the system clock's time: a clock seconds off the receiver's never
    /// paired, and the altimeter never calibrated).
    package mutating func observe(iio reading: PressureReading, received: ContinuousClock.Instant) -> Outcome
    {
        var reading = reading
        if let lastFix {
            reading.time = lastFix.time.addingTimeInterval((received - lastFix.received).inSeconds)
        }
        return measured(reading)
    }

    private mutating func measured(_ reading: PressureReading) -> Outcome {
        altimeter.observe(reading)
        var outcome = Outcome()
        guard let calibration = altimeter.calibration(at: reading.time),
            let (metres, accuracy) = altimeter.altitude(for: reading)
        else { return outcome }
        self.calibration = calibration
        altitude = BarometricAltitude(metres: metres, accuracy: accuracy)
        outcome.altitude = altitude
        // Said at the first calibration and whenever it changes between the QNH and GNSS.
        let fromQNH = calibration.source == .qnh
        if saidQNH != fromQNH {
            saidQNH = fromQNH
            outcome.notes.append("barometer: calibrated from \(Self.describe(calibration, at: reading.time))")
        }
        // Said when it becomes too rough, or when a QNH alone is: not while GNSS calibration
        // warms up from its first rough heights (before, every start said it).
        if accuracy > LevelCheck.usableAccuracyMetres, !roughSaid, wasUsable || fromQNH {
            roughSaid = true
            wasUsable = false
            outcome.notes.append(
                "barometer: altitude accuracy \(Self.tenths(accuracy)) m (\(Self.describe(calibration, at: reading.time))) is too rough for a level check (over \(Self.tenths(LevelCheck.usableAccuracyMetres)) m)"
            )
        } else if accuracy <= LevelCheck.usableAccuracyMetres {
            roughSaid = false
            wasUsable = true
        }
        return outcome
    }

    private mutating func calibrate(with fix: Fix) -> Outcome {
        if altimeter.observe(fix) {
            pairedOnce = true
            return Outcome()
        }
        // A good fix that found no pressure near it in time: the two clocks may differ.
        guard !pairedOnce, source != .none, fix.mode == .threeD, fix.altitudeMSL != nil,
            let v = fix.verticalAccuracy, v <= BarometricAltimeter.maximumCalibrationAccuracy
        else { return Outcome() }
        unpaired += 1
        if let pressure = altimeter.lastPressure, let t = pressure.time {
            lastGap = t.timeIntervalSince(fix.time)
        }
        guard unpaired == Self.unpairedBeforeSaying else { return Outcome() }
        let why =
            lastGap.map {
                "pressure readings and GNSS fixes are \(Self.tenths(abs($0))) s apart (over \(Self.tenths(BarometricAltimeter.maximumPairingGap)) s)"
            } ?? "no pressure reading came"
        return Outcome(
            notes: ["barometer: no GNSS calibration after \(unpaired) good fixes: \(why); no level check"])
    }

    /// `status`'s fields: `altitude` (`{"metres","accuracy"}` or null) and `barometer`
    /// (`{"source", "calibration"}`, calibration null until there is one).
    package var status: [String: JSONValue] {
        var barometer: [String: JSONValue] = ["source": .string(source.rawValue)]
        if let calibration {
            var c: [String: JSONValue] = [
                "seaLevelPressure": .number((calibration.seaLevelPressure * 10).rounded() / 10)
            ]
            switch calibration.source {
            case .qnh:
                c["from"] = "qnh"
                c["time"] = calibration.time.map { .string(Daemon.timestamp($0)) } ?? .null
            case .gnss(let samples):
                c["from"] = "gnss"
                c["samples"] = .number(Double(samples))
            }
            barometer["calibration"] = .object(c)
        } else {
            barometer["calibration"] = .null
        }
        return [
            "altitude": altitude.map(\.rounded).map {
                .object(["metres": .number($0.metres), "accuracy": .number($0.accuracy)])
            } ?? .null,
            "barometer": .object(barometer),
        ]
    }

    private static func describe(_ calibration: BarometricAltimeter.Calibration, at time: Date?) -> String {
        switch calibration.source {
        case .qnh:
            // A QNH dated after the reading (a clock set wrong, a recording) says so (before:
            // "given 0.0 h before", with an accuracy that said otherwise).
            guard let given = calibration.time else {
                return "QNH \(tenths(calibration.seaLevelPressure)) hPa of unknown age (no qnhTime)"
            }
            let age = time.map {
                let hours = $0.timeIntervalSince(given) / 3600
                return hours >= 0
                    ? " given \(tenths(hours)) h before" : " dated \(tenths(-hours)) h after the reading"
            }
            return "QNH \(tenths(calibration.seaLevelPressure)) hPa\(age ?? "")"
        case .gnss(let samples): return "GNSS heights (\(samples) sample\(samples == 1 ? "" : "s"))"
        }
    }

    private static func tenths(_ x: Double) -> String { String(format: "%.1f", x) }
}

extension DaemonBarometer {
    /// How far after the start a `qnhTime` may be and still be taken (seconds): clocks that
    /// disagree a little. Later, it is no time the QNH was read off.
    package static let qnhTimeAheadSeconds = 300.0

    /// The configured barometer: `baro`, and `qnh` given at `qnhTime`; without `qnhTime` the
    /// QNH's age is unknown and its altitudes too rough to harm (no level check, no door's
    /// altitude), GNSS heights taking over at once. Before (audit 6 R1-2) it was dated by the
    /// config file's change: an edit of any other key made a days-old QNH fresh. A `qnhTime`
    /// after `start` (a zone missing, the clock wrong) is said, and the QNH's age is then
    /// unknown; one without `qnh` is said (``startNotes``).
    package init(config: DaemonConfig, start: Date) {
        var time = config.qnhTime
        var notes: [String] = []
        if let given = time, config.qnh != nil, given.timeIntervalSince(start) > Self.qnhTimeAheadSeconds {
            notes.append(
                "barometer: qnhTime is \(Self.tenths(given.timeIntervalSince(start) / 3600)) h after the start (a zone missing? the clock wrong?): the QNH is taken as of unknown age, too rough for a level check"
            )
            time = nil
        }
        if config.qnhTime != nil, config.qnh == nil {
            notes.append("barometer: qnhTime given without qnh: ignored")
        }
        self.init(source: config.baro, qnh: config.qnh.map { ($0, time) })
        startNotes = notes
    }
}
