public import Geo
import Synchronization

/// A way into a building, as Pathfinder knows it.
///
/// JSON: `{"lat", "lon", "source", "level", "note", "label", "altitude"}`; only `lat`/`lon`
/// are required.
public struct Door: Sendable, Hashable, Codable {
    /// Who told us about this door. Order of trust: walker, companion, OSM.
    public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
        /// Confirmed on the spot by the person walking ("여기가 입구야").
        case walker
        /// Named by the family member's pin or hand-off.
        case companion
        /// Read from OpenStreetMap.
        case osm
    }

    /// Where the door is.
    public var coordinate: Coordinate
    public var source: Source?
    /// The floor as OSM writes it: "0", "-1", "1;2".
    public var level: String?
    /// Free text spoken as it is ("2층 출발 홀").
    public var note: String?
    /// A short name on the door ("A", "B2").
    public var label: String?
    /// Barometric altitude above sea level measured at the door.
    public var altitude: BarometricAltitude?

    public init(
        coordinate: Coordinate, source: Source? = nil, level: String? = nil, note: String? = nil,
        label: String? = nil, altitude: BarometricAltitude? = nil
    ) {
        self.coordinate = coordinate
        self.source = source
        self.level = level
        self.note = note
        self.label = label
        self.altitude = altitude
    }

    enum CodingKeys: String, CodingKey {
        case lat, lon, source, level, note, label, altitude
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        coordinate = Coordinate(
            latitude: try c.decode(Double.self, forKey: .lat),
            longitude: try c.decode(Double.self, forKey: .lon))
        try c.requireValid(coordinate, forKey: .lat)
        source = try c.decodeIfPresent(Source.self, forKey: .source)
        level = try c.decodeIfPresent(String.self, forKey: .level)
        note = try c.decodeIfPresent(String.self, forKey: .note)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        if let dropped = decoder.userInfo[DroppedAltitudes.key] as? DroppedAltitudes {
            do {
                altitude = try c.decodeIfPresent(BarometricAltitude.self, forKey: .altitude)
            } catch let error as DecodingError {
                dropped.append(error)
                altitude = nil
            }
        } else {
            altitude = try c.decodeIfPresent(BarometricAltitude.self, forKey: .altitude)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate.latitude, forKey: .lat)
        try c.encode(coordinate.longitude, forKey: .lon)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(level, forKey: .level)
        try c.encodeIfPresent(note, forKey: .note)
        try c.encodeIfPresent(label, forKey: .label)
        try c.encodeIfPresent(altitude, forKey: .altitude)
    }
}

/// Given to a decoder as `userInfo[DroppedAltitudes.key]`, a door whose altitude does not
/// decode (no barometer's: 99999 m, an accuracy of −1, a string) is read without it and the
/// error kept here: an altitude is an optional extra, and a bad one must not cost the door the
/// walker taught (audit 6 R1-11: the whole building was skipped).
public final class DroppedAltitudes: Sendable {
    public static let key = CodingUserInfoKey(rawValue: "pathfinder.droppedAltitudes")!
    private let errors = Mutex<[DecodingError]>([])

    public init() {}

    /// The errors of the altitudes dropped, in the order read.
    public var all: [DecodingError] { errors.withLock { $0 } }

    func append(_ error: DecodingError) { errors.withLock { $0.append(error) } }
}

/// An absolute altitude from the barometer, with its 1σ accuracy.
public struct BarometricAltitude: Sendable, Hashable, Codable {
    /// Metres above mean sea level.
    public var metres: Double
    /// Estimated accuracy, metres.
    public var accuracy: Double

    /// The heights a door can be at, metres above sea level: dry land runs from the Dead Sea's
    /// shore (−430 m) to Everest's top (8 849 m), and a barometer's error at a door is metres,
    /// not hundreds. Beyond them an altitude is no barometer's reading (a typo, a unit mixed up).
    public static let plausibleMetres = -500.0...9_000.0

    public init(metres: Double, accuracy: Double) {
        self.metres = metres
        self.accuracy = accuracy
    }

    /// This altitude as Pathfinder keeps it (the level check, the event log, the memory): metres
    /// to the decimetre (a barometer resolves no finer; the log stays short), the accuracy
    /// rounded up so rounding never makes it look better, nor lets it pass the 6 m a stored
    /// door needs. Round once: a rounded-up 0.7 rounds up again to 0.8.
    public var rounded: BarometricAltitude {
        BarometricAltitude(metres: (metres * 10).rounded() / 10, accuracy: (accuracy * 10).rounded(.up) / 10)
    }

    /// Whether this is an altitude a barometer gives at a door: its height within
    /// ``plausibleMetres``, its accuracy a real one (≥ 0, finite).
    public var isPlausible: Bool {
        Self.plausibleMetres.contains(metres) && accuracy >= 0 && accuracy.isFinite
    }

    enum CodingKeys: String, CodingKey { case metres, accuracy }

    /// Reads an altitude, refusing one no barometer gives (``isPlausible``): the level check
    /// would take an accuracy of −1 for a perfect one.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        metres = try c.decode(Double.self, forKey: .metres)
        accuracy = try c.decode(Double.self, forKey: .accuracy)
        if let reason = Self.implausible(metres: metres) {
            throw DecodingError.dataCorruptedError(forKey: .metres, in: c, debugDescription: reason)
        }
        guard accuracy >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .accuracy, in: c, debugDescription: "\(accuracy) m: an accuracy is ≥ 0")
        }
    }

    /// Why `metres` is no door's height ("… is outside −500…9000 m …"), or `nil` when it may be.
    public static func implausible(metres: Double) -> String? {
        guard !plausibleMetres.contains(metres) else { return nil }
        let range = String(
            "\(Int(plausibleMetres.lowerBound))…\(Int(plausibleMetres.upperBound))".map {
                $0 == "-" ? "−" : $0
            })
        return "\(metres) m is outside \(range) m above sea level (no door is there)"
    }
}
