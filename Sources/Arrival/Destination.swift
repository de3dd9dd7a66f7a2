public import Geo

/// A building to walk to; `door` is the door the companion named, if any; `osm`, which
/// building of OpenStreetMap it is, when known.
///
/// JSON: `{"name": "Rautatieasema", "center": {"lat", "lon"}, "door": Door?, "osm": "way/122595198"?}`.
public struct Destination: Sendable, Hashable, Codable {
    public var name: String
    public var center: Coordinate
    /// The companion's named door. It stays on the destination so that every re-made plan
    /// keeps it leading (after the walker's own confirmed door).
    public var door: Door?
    /// The building's OpenStreetMap element, "way/2008" or "relation/3001", when known (`go
    /// QUERY` found it in a door index): its doors are that building's, looked up by this id.
    /// Without it, the doors of the building at `center` (the smallest containing it), which
    /// for an L-shaped or courtyard building is another one.
    public var osm: String?

    public init(name: String, center: Coordinate, door: Door? = nil, osm: String? = nil) {
        self.name = name
        self.center = center
        self.door = door
        self.osm = osm
    }

    enum CodingKeys: String, CodingKey { case name, center, door, osm }

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
        osm = try c.decodeIfPresent(String.self, forKey: .osm)
        if let osm, Self.osmElement(osm) == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .osm, in: c,
                debugDescription:
                    "\"\(osm)\" is not an OpenStreetMap building: \"way/ID\" or \"relation/ID\" (ID a whole number)"
            )
        }
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

    /// The kind ("way", "relation") and id of an ``osm`` text, nil when it is neither.
    public static func osmElement(_ text: String) -> (kind: String, id: Int64)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, ["way", "relation"].contains(parts[0]), let id = Int64(parts[1]) else {
            return nil
        }
        return (String(parts[0]), id)
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
