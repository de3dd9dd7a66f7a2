public import Geo

/// A raw OpenStreetMap node with its tags, as read from any OSM input.
public struct OSMNode: Sendable, Hashable, Codable {
    public var id: Int64
    public var coordinate: Coordinate
    public var tags: [String: String]

    public init(id: Int64, coordinate: Coordinate, tags: [String: String]) {
        self.id = id
        self.coordinate = coordinate
        self.tags = tags
    }
}

/// A way: an ordered list of node ids (a building outline when closed) with its tags.
public struct OSMWay: Sendable, Hashable {
    public var id: Int64
    public var nodeIDs: [Int64]
    public var tags: [String: String]

    public init(id: Int64, nodeIDs: [Int64], tags: [String: String]) {
        self.id = id
        self.nodeIDs = nodeIDs
        self.tags = tags
    }
}

/// A relation member: `type` is "node", "way" or "relation"; `role` e.g. "outer", "inner".
public struct OSMMember: Sendable, Hashable {
    public var type: String
    public var ref: Int64
    public var role: String

    public init(type: String, ref: Int64, role: String) {
        self.type = type
        self.ref = ref
        self.role = role
    }
}

/// A relation (multipolygon buildings) with its members and tags.
public struct OSMRelation: Sendable, Hashable {
    public var id: Int64
    public var members: [OSMMember]
    public var tags: [String: String]

    public init(id: Int64, members: [OSMMember], tags: [String: String]) {
        self.id = id
        self.members = members
        self.tags = tags
    }
}

/// One OSM element from a stream. Ways carry their nodes' locations when the stream has
/// them (osmium's `add-locations-to-ways`): nil for a node missing from the extract.
public enum OSMElement: Sendable, Hashable {
    case node(OSMNode)
    case way(OSMWay, locations: [Coordinate?])
    case relation(OSMRelation)
}

/// Everything read from one OSM file, in file order.
public struct OSMData: Sendable, Hashable {
    public var nodes: [OSMNode] = []
    public var ways: [OSMWay] = []
    public var relations: [OSMRelation] = []

    public init(nodes: [OSMNode] = [], ways: [OSMWay] = [], relations: [OSMRelation] = []) {
        self.nodes = nodes
        self.ways = ways
        self.relations = relations
    }

    /// The nodes tagged `entrance=*`, whatever their value.
    public var entranceNodes: [OSMNode] { nodes.filter { $0.tags["entrance"] != nil } }
}

/// A file that is not OSM data we can read, with where and why.
public struct OSMError: Error, CustomStringConvertible, Equatable {
    public var path: String
    /// 1-based line, when known.
    public var line: Int?
    /// The element at fault ("node 123", "elements[4]"), when known.
    public var element: String?
    public var reason: String

    public init(path: String, line: Int? = nil, element: String? = nil, reason: String) {
        self.path = path
        self.line = line
        self.element = element
        self.reason = reason
    }

    /// A node's place outside ±90°, ±180°, as a history file's deleted version has (osmium's
    /// undefined place, 214.7483647) when read as a plain file: the reason
    /// ``locationOutOfRange(_:_:)`` words (a reader may add where after it).
    public var isLocationOutOfRange: Bool {
        reason.hasPrefix(Self.outOfRangePrefix) && reason.contains(Self.outOfRangeSuffix)
    }

    /// The reason for a place outside ±90°, ±180° ("lat/lon 214.7483647,214.7483647 out of range").
    public static func locationOutOfRange(_ latitude: Double, _ longitude: Double) -> String {
        "\(outOfRangePrefix)\(latitude),\(longitude)\(outOfRangeSuffix)"
    }

    // Told by its words, not a stored kind: with a stored enum field here (Swift 6.3) the test
    // runner crashed destroying a DoorIndexError.badInput caught as `any Error`
    // (DoorImportTests.anOSMIDBeyondTheRowIDRangeIsRefusedByName).
    private static let outOfRangePrefix = "lat/lon "
    private static let outOfRangeSuffix = " out of range"

    public var description: String {
        var place = path
        if let line { place += ":\(line)" }
        if let element { place += " (\(element))" }
        return "\(place): \(reason)"
    }
}
