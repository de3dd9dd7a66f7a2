import Arrival
import Foundation
import Positioning

/// Pressure → absolute altitude for replays, calibrated against the GPS.
///
/// A barometer gives height differences well (about a metre) but its absolute altitude needs
/// the sea-level pressure of the day. Without a weather report, the GPS's altitude above sea
/// level sets it: the first 3D fix with a vertical accuracy calibrates, and the altitude
/// carries that fix's vertical accuracy (plus the barometer's own metre), so the level
/// check only compares when the calibration was good to 6 m.
/// Interim: to be replaced by the positioning branch's `BarometricAltimeter` when it lands.
struct PressureAltitude {
    /// A barometer's own error over a walk, metres (temperature drift, weather).
    static let barometerMetres = 1.0
    /// Calibration waits for a 3D fix this good (metres); rougher ones would only mislead.
    static let calibrationAccuracyMetres = 15.0

    private var reference: (hPa: Double, altitude: Double, accuracy: Double)?
    private var lastHPa: Double?

    /// Uses `fix` to calibrate when it is the first good 3D fix after a pressure reading.
    mutating func calibrate(with fix: Fix) {
        guard reference == nil, fix.mode == .threeD, let hPa = lastHPa, let altitude = fix.altitudeMSL,
            let accuracy = fix.verticalAccuracy, accuracy <= Self.calibrationAccuracyMetres
        else { return }
        reference = (hPa, altitude, accuracy)
    }

    /// The absolute altitude at `hPa`, once calibrated.
    mutating func altitude(hPa: Double) -> BarometricAltitude? {
        lastHPa = hPa
        guard let reference else { return nil }
        let seaLevel = ISA.seaLevelPressure(pressure: reference.hPa, altitude: reference.altitude)
        let metres = ISA.altitude(pressure: hPa, seaLevel: seaLevel)
        return BarometricAltitude(
            metres: (metres * 10).rounded() / 10, accuracy: reference.accuracy + Self.barometerMetres)
    }
}
