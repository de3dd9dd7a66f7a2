public import Geo

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
        altitude = try c.decodeIfPresent(BarometricAltitude.self, forKey: .altitude)
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

/// An absolute altitude from the barometer, with its 1σ accuracy.
public struct BarometricAltitude: Sendable, Hashable, Codable {
    /// Metres above mean sea level.
    public var metres: Double
    /// Estimated accuracy, metres.
    public var accuracy: Double

    public init(metres: Double, accuracy: Double) {
        self.metres = metres
        self.accuracy = accuracy
    }
}
