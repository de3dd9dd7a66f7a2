import Arrival
import Geo
import OSM

/// A building read from OSM, ready to store: its outline resolved from node ids.
struct AssembledBuilding {
    enum Kind: String { case way, relation }
    var kind: Kind
    var osmID: Int64
    var tags: [String: String]
    var outline: BuildingOutline
    /// Every node id on the outline (for "the entrances on its outline").
    var nodeIDs: Set<Int64>
}

/// Turns OSM ways and multipolygon relations tagged `building=*` into outlines.
enum BuildingAssembly {
    /// The buildings of `data`: ways first, then relations, each by id. Nodes missing from
    /// the extract (outlines cut by its edge) are left out; an outline none of whose nodes
    /// are present is kept, empty, so the building still counts.
    static func buildings(of data: OSMData) -> [AssembledBuilding] {
        var coordinates: [Int64: Coordinate] = [:]
        coordinates.reserveCapacity(data.nodes.count)
        for node in data.nodes { coordinates[node.id] = node.coordinate }
        var ways: [Int64: OSMWay] = [:]
        for way in data.ways { ways[way.id] = way }

        func resolve(_ ids: [Int64]) -> (ids: [Int64], points: [Coordinate]) {
            var open = ids
            if open.count > 1 && open.first == open.last { open.removeLast() }
            let present = open.filter { coordinates[$0] != nil }
            return (present, present.map { coordinates[$0]! })
        }

        var out: [AssembledBuilding] = []
        for way in data.ways.sorted(by: { $0.id < $1.id }) where way.tags["building"] != nil {
            let (ids, points) = resolve(way.nodeIDs)
            let rings = points.isEmpty ? [] : [BuildingOutline.Ring(role: .outer, points: points)]
            out.append(
                AssembledBuilding(
                    kind: .way, osmID: way.id, tags: way.tags, outline: BuildingOutline(rings: rings),
                    nodeIDs: Set(ids)))
        }
        for relation in data.relations.sorted(by: { $0.id < $1.id }) where relation.tags["building"] != nil {
            var rings: [BuildingOutline.Ring] = []
            var ids = Set<Int64>()
            for role in [BuildingOutline.Ring.Role.outer, .inner] {
                let members = relation.members.filter {
                    $0.type == "way" && ($0.role == "inner") == (role == .inner) && $0.role != "part"
                }
                let chains = members.compactMap { ways[$0.ref]?.nodeIDs }.filter { !$0.isEmpty }
                for ring in joinRings(chains) {
                    let (present, points) = resolve(ring)
                    ids.formUnion(present)
                    if !points.isEmpty { rings.append(BuildingOutline.Ring(role: role, points: points)) }
                }
            }
            out.append(
                AssembledBuilding(
                    kind: .relation, osmID: relation.id, tags: relation.tags,
                    outline: BuildingOutline(rings: rings), nodeIDs: ids))
        }
        return out
    }

    /// Joins way pieces end to end into rings, as multipolygon members may be split into
    /// several ways. A chain that cannot be closed is kept as it is (closed implicitly),
    /// since an extract's edge often cuts one.
    static func joinRings(_ pieces: [[Int64]]) -> [[Int64]] {
        var open = pieces
        var rings: [[Int64]] = []
        while !open.isEmpty {
            var chain = open.removeFirst()
            while chain.count < 2 || chain.first != chain.last {
                guard let tail = chain.last,
                    let i = open.firstIndex(where: { $0.first == tail || $0.last == tail })
                else { break }
                let next = open.remove(at: i)
                chain += (next.first == tail ? next : next.reversed()).dropFirst()
            }
            rings.append(chain)
        }
        return rings
    }
}
