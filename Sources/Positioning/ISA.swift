import Foundation

/// The International Standard Atmosphere's troposphere, as barometric altimeters use it.
public enum ISA {
    /// Standard sea-level pressure, hPa.
    public static let standardSeaLevelHPa = 1013.25
    /// Metres: T0 / L = 288.15 K / 0.0065 K/m.
    static let scaleHeight = 44_330.77
    /// R·L / (g·M), dimensionless.
    static let exponent = 0.190266
    /// Metres of height per hPa near sea level (for turning pressure errors into metres).
    public static let metresPerHPa = 8.3

    /// Height above the level where pressure is `seaLevel`, metres.
    /// h = 44330.77 × (1 − (p/p0)^0.190266)
    public static func altitude(pressure hPa: Double, seaLevel p0: Double) -> Double {
        scaleHeight * (1 - pow(hPa / p0, exponent))
    }

    /// Pressure at `altitude` metres when sea level has `seaLevel` hPa.
    public static func pressure(altitude metres: Double, seaLevel p0: Double) -> Double {
        p0 * pow(1 - metres / scaleHeight, 1 / exponent)
    }

    /// Sea-level pressure (QNH-like), hPa, from a pressure measured at a known height.
    /// p0 = p / (1 − h/44330.77)^5.25588
    public static func seaLevelPressure(pressure hPa: Double, altitude metres: Double) -> Double {
        hPa / pow(1 - metres / scaleHeight, 1 / exponent)
    }
}
