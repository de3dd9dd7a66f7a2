public import Geo

/// A building to walk to; `door` is the door the companion named, if any.
///
/// JSON: `{"name": "Rautatieasema", "center": {"lat", "lon"}, "door": Door?}`.
public struct Destination: Sendable, Hashable, Codable {
    public var name: String
    public var center: Coordinate
    /// The companion's named door. It stays on the destination so that every re-made plan
    /// keeps it leading (after the walker's own confirmed door).
    public var door: Door?

    public init(name: String, center: Coordinate, door: Door? = nil) {
        self.name = name
        self.center = center
        self.door = door
    }

    enum CodingKeys: String, CodingKey { case name, center, door }

    /// Reads a destination; the centre must be a real coordinate, since the plan walks there.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        center = try c.decode(Coordinate.self, forKey: .center)
        try c.requireValid(center, forKey: .center)
        guard !name.allSatisfy(\.isWhitespace) else {
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: c, debugDescription: "the name is empty (the walker hears it: \"… 까지\")")
        }
        door = try c.decodeIfPresent(Door.self, forKey: .door)
        if let door {
            let metres = door.coordinate.distance(to: center)
            guard metres <= Self.doorMetresFromCenter else {
                throw DecodingError.dataCorruptedError(
                    forKey: .door, in: c,
                    debugDescription:
                        "the door is \(Self.describe(metres: metres)) from the centre (at most \(Int(Self.doorMetresFromCenter)) m): a pin for another place?"
                )
            }
        }
    }

    /// A distance in the unit that shows it is over the limit: "2012 m" (before, "2 km",
    /// which reads as within 2000 m), "7026 km".
    public static func describe(metres: Double) -> String {
        metres < 10_000 ? "\(Int(metres.rounded(.up))) m" : "\(Int(metres / 1_000)) km"
    }

    /// How far a named door may be from the building's centre: a large campus's farthest gate,
    /// never a pin dropped in another town (or at 0, 0).
    public static let doorMetresFromCenter = 2_000.0
}
