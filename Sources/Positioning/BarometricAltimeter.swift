public import Foundation

/// Absolute altitude (metres above mean sea level) from air pressure, with an accuracy.
///
/// Pressure alone gives height only relative to the sea-level pressure p0, which weather
/// moves by several hPa a day (≈ 8.3 m per hPa). So p0 is calibrated — from GNSS fixes
/// whose vertical accuracy is good, or from a QNH someone gives — and until then the
/// altitude is unknown (`nil`).
///
/// A QNH and GNSS samples are both kept: the altitude uses whichever gives the better
/// accuracy at the reading's time, so a QNH that has aged (its drift grows from the time it
/// was given) never makes things worse than GNSS calibration (before, a QNH won whatever its
/// age and GNSS samples were ignored).
///
/// GNSS calibration: each fix with `altitudeMSL` and `verticalAccuracy ≤
/// maximumCalibrationAccuracy`, paired with the latest pressure reading at most
/// `maximumPairingGap` seconds apart, gives one p0 sample (ISA solved for p0). p0 is the
/// **median** of the last `sampleWindow` samples, so a few bad GNSS heights (multipath
/// near buildings) cannot drag it.
///
/// Accuracy (≈1σ, metres) = √(calibration² + drift² + sensor²):
/// - calibration: the median vertical accuracy of the samples / √min(n, 4) — GNSS
///   height errors stay correlated for minutes, so averaging a minute of 1 Hz fixes buys
///   at most a factor of ~2; QNH: `qnhAccuracyMetres`.
/// - drift: weather moves p0 by up to `driftHPaPerHour` (0.5 hPa/h) → × 8.3 m/hPa × hours
///   since the newest calibration sample (needs time stamps on both; else 0).
/// - sensor: `sensorMetres` (1 m: the relative accuracy of a BMP280-class sensor, ±0.12 hPa).
public struct BarometricAltimeter: Sendable, Hashable {
    /// GNSS fixes with a worse vertical accuracy than this (metres) are not used.
    public static let maximumCalibrationAccuracy = 8.0
    /// A fix and a pressure reading further apart than this (seconds) are not paired.
    public static let maximumPairingGap = 2.0
    /// How many recent calibration samples the median is taken over.
    public static let sampleWindow = 60
    /// Worst-case weather change of sea-level pressure, hPa per hour.
    public static let driftHPaPerHour = 0.5
    /// Sensor noise in metres.
    public static let sensorMetres = 1.0
    /// Accuracy of a QNH-based altitude: QNH is given to 1 hPa and is a regional value.
    public static let qnhAccuracyMetres = 4.0
    /// Accuracy of a QNH whose time is unknown: sea-level pressure wanders some 15 hPa over a
    /// few days (a passing front), ≈ 125 m. So rough that its altitudes make no level check and
    /// are stored with no door, and any GNSS calibration wins (audit 6 R1-2: dated by the config
    /// file's change, a QNH 15 hPa stale counted as fresh).
    public static let unknownAgeQNHAccuracyMetres = 15 * ISA.metresPerHPa

    private struct Sample: Sendable, Hashable {
        var p0: Double
        var verticalAccuracy: Double
        var time: Date?
    }

    private var samples: [Sample] = []
    private var qnh: (hPa: Double, time: Date?, accuracy: Double)?
    /// The latest pressure reading, which the next fixes pair with.
    public private(set) var lastPressure: PressureReading?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.samples == b.samples && a.qnh?.hPa == b.qnh?.hPa && a.qnh?.time == b.qnh?.time
            && a.qnh?.accuracy == b.qnh?.accuracy
            && a.lastPressure == b.lastPressure
    }

    public func hash(into h: inout Hasher) {
        h.combine(samples)
        h.combine(qnh?.hPa)
        h.combine(lastPressure)
    }

    /// What the altitude is calibrated from.
    public enum Source: Sendable, Hashable {
        /// A sea-level pressure someone gave.
        case qnh
        /// The median of this many GNSS samples.
        case gnss(samples: Int)
    }

    /// A calibration in use: the sea-level pressure p0 (hPa), where it came from, when
    /// (the newest sample's or the QNH's time; `nil`: unknown) and its accuracy at the time asked
    /// for (≈1σ metres, without the sensor's noise).
    public struct Calibration: Sendable, Hashable {
        public var seaLevelPressure: Double
        public var source: Source
        public var time: Date?
        public var accuracy: Double
    }

    /// The calibrated sea-level pressure p0 (hPa) with no time to age it by: the GNSS median,
    /// else the QNH; `nil` until calibrated.
    public var seaLevelPressure: Double? { calibration(at: nil)?.seaLevelPressure }

    /// The better of the QNH and the GNSS calibration at `time` (the one with the smaller
    /// accuracy once drift since each one's time is added); `nil` until calibrated.
    /// - Parameter time: when the altitude is wanted (`nil`: no drift added; GNSS wins a tie).
    public func calibration(at time: Date?) -> Calibration? {
        func drift(since calibratedAt: Date?) -> Double {
            guard let time, let calibratedAt else { return 0 }
            return abs(time.timeIntervalSince(calibratedAt)) / 3600 * Self.driftHPaPerHour * ISA.metresPerHPa
        }
        func hypot(_ a: Double, _ b: Double) -> Double { (a * a + b * b).squareRoot() }
        var gnss: Calibration?
        if !samples.isEmpty {
            let sorted = samples.map(\.p0).sorted()
            let mid = sorted.count / 2
            let p0 = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
            let accuracies = samples.map(\.verticalAccuracy).sorted()
            let calibration = accuracies[accuracies.count / 2] / Double(min(samples.count, 4)).squareRoot()
            let newest = samples.compactMap(\.time).max()
            gnss = Calibration(
                seaLevelPressure: p0, source: .gnss(samples: samples.count), time: newest,
                accuracy: hypot(calibration, drift(since: newest)))
        }
        let given = qnh.map {
            Calibration(
                seaLevelPressure: $0.hPa, source: .qnh, time: $0.time,
                accuracy: hypot($0.accuracy, drift(since: $0.time)))
        }
        guard let gnss else { return given }
        guard let given, given.accuracy < gnss.accuracy else { return gnss }
        return given
    }

    /// How many GNSS samples the calibration holds now.
    public var sampleCount: Int { samples.count }

    /// Knows a sea-level pressure (QNH, hPa), given at `time` (its drift grows from then;
    /// `nil`: never aged). Used while it is better than the GNSS calibration.
    /// - Parameter accuracy: its accuracy when given (metres); ``unknownAgeQNHAccuracyMetres``
    ///   for one whose time nobody knows.
    public mutating func calibrate(
        qnh hPa: Double, at time: Date? = nil, accuracy: Double = qnhAccuracyMetres
    ) {
        qnh = (hPa, time, accuracy)
    }

    /// Remembers a pressure reading (for pairing with the next fixes).
    public mutating func observe(_ reading: PressureReading) {
        lastPressure = reading
    }

    /// Uses a fix for calibration if it is good enough and a recent pressure is known.
    /// - Returns: whether it became a calibration sample.
    @discardableResult
    public mutating func observe(_ fix: Fix) -> Bool {
        guard fix.mode == .threeD, let h = fix.altitudeMSL, let v = fix.verticalAccuracy,
            v <= Self.maximumCalibrationAccuracy, let p = lastPressure
        else { return false }
        if let t = p.time, abs(t.timeIntervalSince(fix.time)) > Self.maximumPairingGap { return false }
        let p0 = ISA.seaLevelPressure(pressure: p.hPa, altitude: h)
        guard p0.isFinite, (800...1_200).contains(p0) else { return false }
        samples.append(Sample(p0: p0, verticalAccuracy: v, time: fix.time))
        if samples.count > Self.sampleWindow { samples.removeFirst(samples.count - Self.sampleWindow) }
        return true
    }

    /// Feeds any position event (fixes calibrate, pressures are remembered).
    public mutating func observe(_ event: PositionEvent) {
        switch event {
        case .fix(let f): observe(f)
        case .pressure(let p): observe(p)
        case .noFix: break
        }
    }

    /// Altitude above mean sea level for a pressure, with its ≈1σ accuracy, both metres;
    /// `nil` until calibrated.
    /// - Parameters:
    ///   - hPa: the measured pressure.
    ///   - time: when it was measured, for the drift term (`nil`: no drift added).
    public func altitude(for hPa: Double, at time: Date? = nil) -> (metres: Double, accuracy: Double)? {
        guard let calibration = calibration(at: time), hPa > 0 else { return nil }
        let metres = ISA.altitude(pressure: hPa, seaLevel: calibration.seaLevelPressure)
        let accuracy = (calibration.accuracy * calibration.accuracy + Self.sensorMetres * Self.sensorMetres)
            .squareRoot()
        return (metres, accuracy)
    }

    /// The altitude for a reading (its own time stamp drives the drift term).
    public func altitude(for reading: PressureReading) -> (metres: Double, accuracy: Double)? {
        altitude(for: reading.hPa, at: reading.time)
    }
}
