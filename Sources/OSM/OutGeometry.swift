import Geo

/// The places Overpass API's `out geom;` gives, as its JSON (`geometry`) or its XML (`<nd>`s
/// with `lat` and `lon`) carries them, read into ``OSMData`` one way for both: each way's
/// points, one for each of its node ids, and each relation member way's points, the way
/// itself perhaps not listed. A point is nil outside the query's bounding box.
struct OutGeometry {
    /// Listed ways' node ids, each with its point.
    var ways: [(nodeIDs: [Int64], points: [Coordinate?])] = []
    /// Relation member ways in file order: the way's id and its points.
    var memberWays: [(ref: Int64, points: [Coordinate?])] = []

    /// Places what `data` lists no node for. A node only a way's points place becomes an
    /// untagged node, so the way has its outline (before, such ways kept only the nodes the
    /// file listed, often just a door); then ``placeMemberWays(in:)``.
    func place(in data: inout OSMData) {
        var placed = Set(data.nodes.map(\.id))
        for way in ways where way.points.count == way.nodeIDs.count {
            for (id, point) in zip(way.nodeIDs, way.points) where !placed.contains(id) {
                guard let point, point.isValid else { continue }
                data.nodes.append(OSMNode(id: id, coordinate: point, tags: [:]))
                placed.insert(id)
            }
        }
        placeMemberWays(in: &data)
    }

    /// The member ways the file does not list, each a way of untagged nodes at its points
    /// (before, such a multipolygon building had no outline). A point where a node of the file
    /// is, is that node, so a door the file lists is on the outline and the pieces of a split
    /// ring meet; any other point gets an id below every id of the file. A missing point
    /// (outside the query's bounding box) gets an id and no place, as a node missing from an
    /// extract. A listed way's unplaced nodes are placed from its member points, as from its
    /// own.
    private func placeMemberWays(in data: inout OSMData) {
        var listed: [Int64: Int] = [:]
        for (i, way) in data.ways.enumerated() { listed[way.id] = i }
        var at: [Coordinate: Int64] = [:]
        for node in data.nodes where at[node.coordinate] == nil { at[node.coordinate] = node.id }
        var placed = Set(data.nodes.map(\.id))
        let lowest = min(
            data.nodes.map(\.id).min() ?? 0, data.ways.lazy.flatMap(\.nodeIDs).min() ?? 0, 0)
        // Ids far below any OSM or JOSM id: no file comes near, so none is taken twice.
        guard lowest > Int64.min / 2 else { return }
        var next = lowest - 1
        for member in memberWays {
            if let i = listed[member.ref] {
                let ids = data.ways[i].nodeIDs
                guard ids.count == member.points.count else { continue }
                for (id, point) in zip(ids, member.points) where !placed.contains(id) {
                    guard let point, point.isValid else { continue }
                    data.nodes.append(OSMNode(id: id, coordinate: point, tags: [:]))
                    placed.insert(id)
                }
                continue
            }
            var ids: [Int64] = []
            for point in member.points {
                if let point, point.isValid, let id = at[point] {
                    ids.append(id)
                    continue
                }
                ids.append(next)
                if let point, point.isValid {
                    data.nodes.append(OSMNode(id: next, coordinate: point, tags: [:]))
                    at[point] = next
                }
                next -= 1
            }
            listed[member.ref] = data.ways.count
            data.ways.append(OSMWay(id: member.ref, nodeIDs: ids, tags: [:]))
        }
    }
}
