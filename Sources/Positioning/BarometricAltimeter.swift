public import Foundation

/// Absolute altitude (metres above mean sea level) from air pressure, with an accuracy.
///
/// Pressure alone gives height only relative to the sea-level pressure p0, which weather
/// moves by several hPa a day (≈ 8.3 m per hPa). So p0 is calibrated — from GNSS fixes
/// whose vertical accuracy is good, or from a QNH someone gives — and until then the
/// altitude is unknown (`nil`).
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

    private struct Sample: Sendable, Hashable {
        var p0: Double
        var verticalAccuracy: Double
        var time: Date?
    }

    private var samples: [Sample] = []
    private var qnh: (hPa: Double, time: Date?)?
    private var lastPressure: PressureReading?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.samples == b.samples && a.qnh?.hPa == b.qnh?.hPa && a.qnh?.time == b.qnh?.time
            && a.lastPressure == b.lastPressure
    }

    public func hash(into h: inout Hasher) {
        h.combine(samples)
        h.combine(qnh?.hPa)
        h.combine(lastPressure)
    }

    /// The calibrated sea-level pressure p0, hPa; `nil` until calibrated. A configured QNH
    /// wins over GNSS samples.
    public var seaLevelPressure: Double? {
        if let qnh { return qnh.hPa }
        guard !samples.isEmpty else { return nil }
        let sorted = samples.map(\.p0).sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// How many GNSS samples the calibration holds now.
    public var sampleCount: Int { samples.count }

    /// Uses a known sea-level pressure (QNH, hPa) from now on.
    public mutating func calibrate(qnh hPa: Double, at time: Date? = nil) {
        qnh = (hPa, time)
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
        guard let p0 = seaLevelPressure, hPa > 0 else { return nil }
        let metres = ISA.altitude(pressure: hPa, seaLevel: p0)
        let calibration: Double
        let calibratedAt: Date?
        if let qnh {
            calibration = Self.qnhAccuracyMetres
            calibratedAt = qnh.time
        } else {
            let accuracies = samples.map(\.verticalAccuracy).sorted()
            let median = accuracies[accuracies.count / 2]
            calibration = median / Double(min(samples.count, 4)).squareRoot()
            calibratedAt = samples.compactMap(\.time).max()
        }
        var drift = 0.0
        if let time, let calibratedAt {
            drift = abs(time.timeIntervalSince(calibratedAt)) / 3600 * Self.driftHPaPerHour * ISA.metresPerHPa
        }
        let accuracy = (calibration * calibration + drift * drift + Self.sensorMetres * Self.sensorMetres)
            .squareRoot()
        return (metres, accuracy)
    }

    /// The altitude for a reading (its own time stamp drives the drift term).
    public func altitude(for reading: PressureReading) -> (metres: Double, accuracy: Double)? {
        altitude(for: reading.hPa, at: reading.time)
    }
}
