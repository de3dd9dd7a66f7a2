/// Whether the door is on the walker's level, from two barometric altitudes above sea level.
///
/// Compared directly: no floor height is assumed, so the answer is "same", "above" or
/// "below", never a number of floors.
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
    /// The walker's altitude counts only when this accurate (metres); the door's is stored
    /// only when this accurate (``EntranceMemory/storedAltitudeAccuracyMetres``).
    public static let usableAccuracyMetres = 6.0

    /// The level of `door` seen from `walker`, or `nil` when either is unknown or too rough.
    public static func compare(door: BarometricAltitude?, walker: BarometricAltitude?) -> LevelCheck? {
        guard let door, let walker,
            door.accuracy <= usableAccuracyMetres, walker.accuracy <= usableAccuracyMetres
        else { return nil }
        let difference = door.metres - walker.metres
        if abs(difference) <= sameLevelMetres { return .same }
        return difference > 0 ? .above : .below
    }
}
