/// Whether the door is on the walker's level, from two barometric altitudes above sea level.
///
/// Compared directly, as the product's design fixes it: within ``sameLevelMetres`` is the same
/// level, else above or below; no floor height is assumed, so never a number of floors. Each
/// altitude counts only when accurate to ``usableAccuracyMetres``. (Audit 5-A F1 measured what
/// that rule says at the accuracies a GNSS calibration gives — another day's ±4.2 m against
/// today's — and docs/ARCHITECTURE.md proposes a rule that weighs them; the design decides.)
public enum LevelCheck: String, Sendable, Hashable, Codable {
    /// Within ``sameLevelMetres``.
    case same
    /// The door is higher than the walker.
    case above
    /// The door is lower than the walker.
    case below

    /// Two altitudes this close (metres) are one level: a storey is about 3 m or more, and a
    /// barometer drifts about a metre over a walk.
    public static let sameLevelMetres = 2.5
    /// Two altitudes of one door agree when they are within this many combined standard
    /// deviations (≈95 %): a stored altitude is replaced only by one that agrees
    /// (``EntranceMemory``).
    public static let confidenceSigmas = 2.0
    /// After "above" or "below", this many readings in a row (seconds, at one a second) must
    /// compare "same" before the level reached is said: one reading on the stairs' last step,
    /// or one noisy one, is not yet the level.
    public static let readingsToReach = 2
    /// The walker's altitude counts only when this accurate (metres); the door's is stored
    /// only when this accurate (``EntranceMemory/storedAltitudeAccuracyMetres``).
    public static let usableAccuracyMetres = 6.0

    /// The level of `door` seen from `walker`, or `nil` when either is unknown or too rough
    /// (an accuracy over ``usableAccuracyMetres``, or none: below zero).
    public static func compare(door: BarometricAltitude?, walker: BarometricAltitude?) -> LevelCheck? {
        guard let door, let walker,
            (0...usableAccuracyMetres).contains(door.accuracy),
            (0...usableAccuracyMetres).contains(walker.accuracy)
        else { return nil }
        let difference = door.metres - walker.metres
        if abs(difference) <= sameLevelMetres { return .same }
        return difference > 0 ? .above : .below
    }
}
