import Geo
import OSM

/// One element of the stream made ready for the door index's tables: everything that needs
/// neither the database nor the elements before it (folding, JSON, outlines, cells), so the
/// reading thread can do it while the writer's thread keeps SQLite busy.
enum PreparedElement: Sendable {
    case entrance(PreparedEntrance)
    /// A named shop, office or amenity: it joins the search text of the building holding it.
    case place(lat: Double, lon: Double, words: String)
    /// A way's nodes (``WayBlob``) for the relations to come, and the building it is, if any.
    case way(id: Int64, nodes: [UInt8], building: PreparedBuilding?)
    /// Relations are assembled by the writer, from the ways it keeps.
    case relation(OSMRelation)
    /// A node that is neither: nothing to store.
    case nothing

    init(_ element: OSMElement) {
        switch element {
        case .node(let node):
            if node.tags["entrance"] != nil {
                self = .entrance(PreparedEntrance(node))
            } else if SearchText.isPlaceInside(node.tags) {
                let words = SearchText.names(node.tags)
                self =
                    words.isEmpty
                    ? .nothing
                    : .place(lat: node.coordinate.latitude, lon: node.coordinate.longitude, words: words)
            } else if SearchText.isAddressPoint(node.tags) {
                // An address mapped as a point inside a building (OSM's way for a building of
                // several addresses, or one whose outline carries none): found as a place
                // inside it (audit 12: before, dropped, and "충무로 21" found nothing).
                let words = SearchText.alternatives(SearchText.addresses(node.tags))
                self =
                    words.isEmpty
                    ? .nothing
                    : .place(lat: node.coordinate.latitude, lon: node.coordinate.longitude, words: words)
            } else {
                self = .nothing
            }
        case .way(let way, let locations):
            let nodes = WayBlob.encode(way.nodeIDs, locations)
            guard OSMDoors.isBuilding(way.tags) else {
                self = .way(id: way.id, nodes: nodes, building: nil)
                return
            }
            // A closed way's last node repeats its first: the ring is stored open. Read in
            // place, not from copies of the arrays.
            let ids = way.nodeIDs
            let closed = ids.count > 1 && ids.first == ids.last
            let end = max(0, min(ids.count, locations.count) - (closed ? 1 : 0))
            var present: [Int64] = []
            var coordinates: [Coordinate] = []
            present.reserveCapacity(end)
            coordinates.reserveCapacity(end)
            for i in 0..<end {
                if let point = locations[i] {
                    present.append(ids[i])
                    coordinates.append(point)
                }
            }
            let rings = coordinates.isEmpty ? [] : [BuildingOutline.Ring(role: .outer, points: coordinates)]
            self = .way(
                id: way.id, nodes: nodes,
                building: PreparedBuilding(
                    kind: .way, id: way.id, tags: way.tags, outline: BuildingOutline(rings: rings),
                    nodeIDs: present))
        case .relation(let relation):
            self = .relation(relation)
        }
    }
}

/// An `entrance=*` node's row.
struct PreparedEntrance: Sendable {
    var id: Int64
    var lat: Double
    var lon: Double
    /// All its tags, as a JSON object.
    var tags: String
    var cell: Int64
    /// Its folded `name` and `ref`, and its address (`addr:street` or `addr:place` with
    /// `addr:housenumber`, as a building's: ``SearchText/addresses(_:)``), if any: they find the
    /// building it is on. Before, not the address (audit 12 A12-6: "Fabianinkatu 33", tagged
    /// on a door of Helsinki University's main building, found nothing).
    var words: String?

    init(_ node: OSMNode) {
        id = node.id
        lat = node.coordinate.latitude
        lon = node.coordinate.longitude
        tags = JSONText.object(node.tags)
        cell = SpatialCells.cell(lat, lon)
        let words = SearchText.alternatives(DoorIndex.doorTexts(node.tags).map(SearchText.normalize))
        self.words = words.isEmpty ? nil : words
    }
}

/// A building's row and search text, before the writer adds what depends on the stream so
/// far (its row id, the names of the entrances on its outline).
struct PreparedBuilding: Sendable {
    var kind: Building.Kind
    var id: Int64
    var building: String
    var name: String?
    /// Its `addr:*` tags, as a JSON object.
    var addr: String
    var levels: String?
    var level: String?
    var centroid: Coordinate?
    var area: Double
    var outline: [UInt8]
    var box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)?
    var cell: Int64?
    /// The outline's nodes, distinct and sorted: those that are entrances link to it.
    var nodeIDs: [Int64]
    /// Its own folded names and its addresses (``SearchText``), and both as whole tokens.
    var names: String
    var addresses: String
    var whole: [String]

    init(kind: Building.Kind, id: Int64, tags: [String: String], outline: BuildingOutline, nodeIDs: [Int64]) {
        self.kind = kind
        self.id = id
        building = tags["building"] ?? "yes"
        name = SearchText.displayName(tags)
        addr = JSONText.object(tags, keeping: { $0.hasPrefix("addr:") })
        levels = tags["building:levels"]
        level = tags["level"]
        centroid = outline.centroid
        area = outline.area
        self.outline = outline.blob
        box = outline.bounds
        cell = box.map {
            SpatialCells.cell(minLat: $0.minLat, maxLat: $0.maxLat, minLon: $0.minLon, maxLon: $0.maxLon)
        }
        // Distinct and sorted, without a Set: a handful of ids a building.
        var sortedIDs = nodeIDs.sorted()
        if sortedIDs.count > 1 {
            var kept = 1
            for i in 1..<sortedIDs.count where sortedIDs[i] != sortedIDs[kept - 1] {
                sortedIDs[kept] = sortedIDs[i]
                kept += 1
            }
            sortedIDs.removeLast(sortedIDs.count - kept)
        }
        self.nodeIDs = sortedIDs
        let nameList = SearchText.nameList(tags)
        let addressList = SearchText.addresses(tags)
        names = nameList.joined(separator: SearchText.separator)
        addresses = addressList.joined(separator: SearchText.separator)
        whole = SearchText.wholeTokens(nameList + addressList)
    }
}
