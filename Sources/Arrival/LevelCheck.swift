/// Whether the door is on the walker's level, from two barometric altitudes above sea level.
///
/// Compared directly: no floor height is assumed, so the answer is "same", "above" or
/// "below", never a number of floors. An answer is given only when the two accuracies, taken
/// together, back it; otherwise none ("no answer" misleads no one, a wrong one sends the walker
/// off from the right door).
public enum LevelCheck: String, Sendable, Hashable, Codable {
    /// A storey up or down is ruled out.
    case same
    /// The door is higher than the walker.
    case above
    /// The door is lower than the walker.
    case below

    /// Doors on two levels are at least this far apart (metres): a storey, floor to floor, is
    /// about 3 m or more.
    public static let storeyMetres = 3.0
    /// An answer must stand this many combined standard deviations clear of its alternative
    /// (≈95 %). The door's altitude is another day's (another calibration, other weather), so
    /// the two errors add: at the ±4.2 m a GNSS calibration gives each, two readings of one spot
    /// are more than 2.5 m apart two times in three, and a fixed 2.5 m said "아래에 있어" at the
    /// door the walker had confirmed, who may then reject it for good.
    public static let confidenceSigmas = 2.0
    /// After "above" or "below", this many readings in a row (seconds, at one a second) must
    /// compare "same" before the level reached is said: one reading on the stairs' last step,
    /// or one noisy one, is not yet the level.
    public static let readingsToReach = 2
    /// The walker's altitude counts only when this accurate (metres); the door's is stored
    /// only when this accurate (``EntranceMemory/storedAltitudeAccuracyMetres``).
    public static let usableAccuracyMetres = 6.0

    /// The level of `door` seen from `walker`, or `nil` when either is unknown or too rough, or
    /// the difference is inside their noise.
    ///
    /// With `margin` = ``confidenceSigmas`` × √(σ_door² + σ_walker²) and `d` the difference:
    /// above or below when |d| > max(margin, half a storey) — the same level is ruled out and the
    /// door is nearer a storey away than none; the same when |d| ≤ half a storey and
    /// |d| + margin < a storey — a storey up or down is ruled out. So "same" needs a combined
    /// σ under 1.5 m (under ±1.06 m each: never, with an altimeter whose sensor alone is ±1 m and
    /// whose altitudes are rounded up to ±1.1 m at best), and at ±4.2 m each only a difference
    /// over 11.9 m is told (docs/ARCHITECTURE.md has the table).
    public static func compare(door: BarometricAltitude?, walker: BarometricAltitude?) -> LevelCheck? {
        guard let door, let walker,
            (0...usableAccuracyMetres).contains(door.accuracy),
            (0...usableAccuracyMetres).contains(walker.accuracy)
        else { return nil }
        let margin =
            confidenceSigmas
            * (door.accuracy * door.accuracy + walker.accuracy * walker.accuracy).squareRoot()
        let difference = door.metres - walker.metres
        if abs(difference) <= storeyMetres / 2 {
            return abs(difference) + margin < storeyMetres ? .same : nil
        }
        guard abs(difference) > margin else { return nil }
        return difference > 0 ? .above : .below
    }
}
