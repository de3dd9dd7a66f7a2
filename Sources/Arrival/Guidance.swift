import Foundation

/// How distances and directions are put into words: pure arithmetic, no language.
///
/// The words themselves live in ``Prompts``; this decides *which* number and direction.
public enum Guidance {
    /// How far to say a distance is.
    public enum Distance: Sendable, Hashable {
        /// Within ``Guidance/rightHereMetres`` once rounded: "바로 앞".
        case rightHere
        /// A rounded number of metres; `approximate` when the fix is rough ("약").
        case metres(Int, approximate: Bool)
    }

    /// Which way to go: a clock hour relative to the walker's heading, or a compass word
    /// when no heading is known.
    public enum Direction: Sendable, Hashable {
        /// 1…12, 12 straight ahead, 3 to the right.
        case clock(Int)
        /// 0…7: north, north-east, east, … clockwise.
        case compass(Int)
    }

    /// Closer than this (metres) the door is "right in front": GPS cannot tell 10 m from 15 m.
    public static let rightHereMetres = 15.0
    /// Below this distance (metres) distances are rounded to ``fineStepMetres``.
    public static let fineBelowMetres = 100.0
    /// Step for short distances, metres: finer than GPS would be false precision.
    public static let fineStepMetres = 5.0
    /// Step for longer distances, metres.
    public static let coarseStepMetres = 10.0
    /// Worse than this horizontal accuracy (metres) a distance is said with "약".
    public static let roughAccuracyMetres = 10.0

    /// The distance to say for `metres`, with `horizontalAccuracy` (metres, 1σ) if known.
    /// One rule for the words: the rounded distance decides, so whatever would be said as
    /// ``rightHereMetres`` or less (up to 17.5 m) is "바로 앞", as 15 m itself is (before, 15.1…
    /// 17.4 m was "십오 미터" and 15 m "바로 앞": one distance in two words).
    public static func distance(_ metres: Double, horizontalAccuracy: Double?) -> Distance {
        let step = metres < fineBelowMetres ? fineStepMetres : coarseStepMetres
        let rounded = Int((metres / step).rounded() * step)
        if Double(rounded) <= rightHereMetres { return .rightHere }
        return .metres(rounded, approximate: (horizontalAccuracy ?? 0) > roughAccuracyMetres)
    }

    /// The clock hour (1…12) of `bearing` seen from `heading`, both degrees from north.
    public static func clockHour(bearing: Double, heading: Double) -> Int {
        let relative = normalizedAngle(bearing - heading)
        let hour = Int((relative / 30).rounded()) % 12
        return hour == 0 ? 12 : hour
    }

    /// The 8-point compass index (0 north … 7 north-west) of `bearing` degrees.
    public static func compassPoint(bearing: Double) -> Int {
        Int((normalizedAngle(bearing) / 45).rounded()) % 8
    }

    /// How many clock hours apart two hours are, 0…6 (12 and 1 are one hour apart).
    public static func hoursApart(_ a: Int, _ b: Int) -> Int {
        let d = abs(a - b) % 12
        return min(d, 12 - d)
    }

    /// An angle in degrees brought into 0..<360.
    static func normalizedAngle(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }
}
