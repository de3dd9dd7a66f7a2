public import Arrival
public import Geo
public import OSM

/// OpenStreetMap's doors of one building, ranked the way a walker wants them.
///
/// The one place these rules live; the door index, replay and the plan all call it. They
/// live here, where OSM meets the core, so `Arrival` knows doors and not OSM's elements.
public enum OSMDoors {
    /// `entrance=*` values that are never a way in for a walker.
    static let excludedEntrances: Set<String> = ["emergency", "exit", "garage"]
    /// `access=*` values that keep the walker out.
    static let excludedAccess: Set<String> = ["private", "no"]

    /// Rank of an `entrance=*` value, lower first: the main door; then the ordinary ways in
    /// (an unqualified `yes`, secondary, side, staircase, home); then service and shop doors.
    /// A value OSM invented after these rules is ranked after all of them, not dropped.
    static func rank(ofEntrance value: String) -> Int {
        switch value {
        case "main": 0
        case "yes", "secondary", "side", "staircase", "home": 1
        case "service", "shop": 2
        default: 3
        }
    }

    /// Whether an element is a building: `building=*`, but not `building=no`, which mappers
    /// put on a car park's or a canopy's area to say it is none. Before, such an area was a
    /// building, and inside a real one it won `near` as the smaller.
    public static func isBuilding(_ tags: [String: String]) -> Bool {
        guard let value = tags["building"] else { return false }
        return value != "no"
    }

    /// Whether a node is a door a walker may use: it has `entrance=*`, and it is not an
    /// emergency exit, an exit-only door, a garage or private (`access=private|no`).
    /// `door=no` is kept: OSM's Key:door defines it as an opening with no door (an arcade's,
    /// a passage's), still a way in.
    public static func isUsable(_ tags: [String: String]) -> Bool {
        guard let entrance = tags["entrance"] else { return false }
        if excludedEntrances.contains(entrance) { return false }
        if let access = tags["access"], excludedAccess.contains(access) { return false }
        return true
    }

    /// The usable doors among `nodes`, best first, as `osm` Doors.
    ///
    /// Order: entrance rank (see ``rank(ofEntrance:)``); within a rank `wheelchair=yes`
    /// first; then nearer to `center`; then the smaller OSM id, so the order never depends
    /// on input order.
    /// Fields: `label` from `ref`, else `addr:door`, else `addr:unit`, else `name`;
    /// `level` from `level`; `note` from `description`.
    public static func ranked(_ nodes: [OSMNode], around center: Coordinate) -> [Door] {
        struct Key: Comparable {
            var rank: Int
            var notWheelchair: Int
            var metres: Double
            var id: Int64
            static func < (a: Key, b: Key) -> Bool {
                (a.rank, a.notWheelchair, a.metres, a.id) < (b.rank, b.notWheelchair, b.metres, b.id)
            }
        }
        return
            nodes
            .filter { isUsable($0.tags) }
            .map { node in
                (
                    key: Key(
                        rank: rank(ofEntrance: node.tags["entrance"] ?? ""),
                        notWheelchair: node.tags["wheelchair"] == "yes" ? 0 : 1,
                        metres: node.coordinate.distance(to: center),
                        id: node.id),
                    node: node
                )
            }
            .sorted { $0.key < $1.key }
            .map { door(from: $0.node) }
    }

    /// One node as an `osm` Door, without judging whether it is usable.
    public static func door(from node: OSMNode) -> Door {
        let t = node.tags
        return Door(
            coordinate: node.coordinate,
            source: .osm,
            level: t["level"],
            note: t["description"],
            label: t["ref"] ?? t["addr:door"] ?? t["addr:unit"] ?? t["name"])
    }
}
