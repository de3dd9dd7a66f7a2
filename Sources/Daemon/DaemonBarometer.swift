package import Arrival
package import Foundation
package import Positioning

/// The daemon's altimeter and what feeds it, and what `status` and the log say of it. A value changed by the one loop in `Daemon.run`; tests drive it directly.
package struct DaemonBarometer: Sendable {
    /// Where pressure comes from (`baro`).
    package let source: DaemonConfig.Barometer
    package private(set) var altimeter = BarometricAltimeter()
    /// The last altitude handed on, for `status`.
    package private(set) var altitude: BarometricAltitude?
    /// The calibration that gave it.
    private var calibration: BarometricAltimeter.Calibration?
    /// Whether the last calibration said came from a QNH (nil: none said yet).
    private var saidQNH: Bool?

    /// - Parameters:
    ///   - qnh: a sea-level pressure (hPa) given, and when it was given (its drift grows from then).
    package init(source: DaemonConfig.Barometer, qnh: (hPa: Double, time: Date)? = nil) {
        self.source = source
        if let qnh { altimeter.calibrate(qnh: qnh.hPa, at: qnh.time) }
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
            altimeter.observe(fix)
            return Outcome()
        case .noFix:
            return Outcome()
        case .pressure(let reading):
            guard source == .nmea else { return Outcome() }
            return measured(reading)
        }
    }

    /// An IIO reading.
    package mutating func observe(iio reading: PressureReading, received: ContinuousClock.Instant) -> Outcome
    {
        measured(reading)
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
        return outcome
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
            "altitude": altitude.map {
                .object([
                    "metres": .number(($0.metres * 10).rounded() / 10),
                    "accuracy": .number(($0.accuracy * 10).rounded(.up) / 10),
                ])
            } ?? .null,
            "barometer": .object(barometer),
        ]
    }

    private static func describe(_ calibration: BarometricAltimeter.Calibration, at time: Date?) -> String {
        switch calibration.source {
        case .qnh:
            let age = calibration.time.flatMap { given in
                time.map { " given \(tenths(max(0, $0.timeIntervalSince(given)) / 3600)) h before" }
            }
            return "QNH \(tenths(calibration.seaLevelPressure)) hPa\(age ?? "")"
        case .gnss(let samples): return "GNSS heights (\(samples) sample\(samples == 1 ? "" : "s"))"
        }
    }

    private static func tenths(_ x: Double) -> String { String(format: "%.1f", x) }
}

extension DaemonBarometer {
    /// The configured barometer: `baro`, and `qnh` given at `start`.
    package init(config: DaemonConfig, start: Date) {
        self.init(source: config.baro, qnh: config.qnh.map { ($0, start) })
    }
}
