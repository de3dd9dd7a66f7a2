import Diagnostics
import Foundation
import Geo

/// Overpass API JSON: `{"elements": [{"type": "node", "id", "lat", "lon", "tags"}, …]}`.
/// Ways carry `nodes` (ids) and, from `out geom;`, `geometry` (their nodes' places, one for
/// each id): a node only a way's geometry places becomes an untagged node, so the way has its
/// outline (before, such ways kept only the nodes the file listed, often just a door);
/// relations carry `members`, and from `out geom;` each member way its `geometry`, the way
/// itself perhaps not listed: it is made from its geometry (``memberWays(of:in:)``).
enum OverpassJSON {
    private struct File: Decodable {
        var elements: [Element]
    }

    private struct Element: Decodable {
        var type: String
        var id: Int64
        var lat: Double?
        var lon: Double?
        var tags: [String: String]?
        var nodes: [Int64]?
        var geometry: [Point?]?
        var members: [Member]?
    }

    private struct Point: Decodable {
        var lat: Double
        var lon: Double
    }

    private struct Member: Decodable {
        var type: String
        var ref: Int64
        var role: String?
        var geometry: [Point?]?
    }

    static func read(data: Data, path: String) throws(OSMError) -> OSMData {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as DecodingError {
            let fault = JSONDiagnostics.fault(error, in: data)
            throw OSMError(
                path: path, line: fault.line,
                reason:
                    "not Overpass JSON: \(JSONDiagnostics.describe(line: nil, field: fault.field, reason: fault.reason))"
            )
        } catch {
            throw OSMError(
                path: path, reason: "not Overpass JSON: \(JSONDiagnostics.describe(error, in: data))")
        }
        var out = OSMData()
        for (i, e) in file.elements.enumerated() {
            let name = "elements[\(i)] \(e.type) \(e.id)"
            switch e.type {
            case "node":
                guard let lat = e.lat, let lon = e.lon else {
                    throw OSMError(path: path, element: name, reason: "node without lat/lon")
                }
                let c = Coordinate(latitude: lat, longitude: lon)
                guard c.isValid else {
                    throw OSMError(path: path, element: name, reason: "lat/lon \(lat),\(lon) out of range")
                }
                out.nodes.append(OSMNode(id: e.id, coordinate: c, tags: e.tags ?? [:]))
            case "way":
                out.ways.append(OSMWay(id: e.id, nodeIDs: e.nodes ?? [], tags: e.tags ?? [:]))
            case "relation":
                let members = (e.members ?? []).map {
                    OSMMember(type: $0.type, ref: $0.ref, role: $0.role ?? "")
                }
                out.relations.append(OSMRelation(id: e.id, members: members, tags: e.tags ?? [:]))
            default:
                continue  // "area", "count" and other Overpass extras carry no map data
            }
        }
        var placed = Set(out.nodes.map(\.id))
        for e in file.elements where e.type == "way" {
            guard let ids = e.nodes, let geometry = e.geometry, geometry.count == ids.count else { continue }
            for (id, point) in zip(ids, geometry) where !placed.contains(id) {
                guard let point else { continue }  // outside the query's bounding box
                let c = Coordinate(latitude: point.lat, longitude: point.lon)
                guard c.isValid else { continue }
                out.nodes.append(OSMNode(id: id, coordinate: c, tags: [:]))
                placed.insert(id)
            }
        }
        memberWays(of: file.elements, in: &out)
        return out
    }

    /// The member ways a relation's `geometry` gives (`out geom;`) that the file does not list,
    /// each a way of untagged nodes at its points (before, such a multipolygon building had
    /// no outline). A point where a node of the file is, is that node, so a door the file lists
    /// is on the outline and the pieces of a split ring meet; any other point gets an id below
    /// every id of the file. A null point (outside the query's bounding box) gets an id and no
    /// place, as a node missing from an extract. A listed way's unplaced nodes are placed from
    /// its member geometry, as from its own.
    private static func memberWays(of elements: [Element], in out: inout OSMData) {
        var listed: [Int64: Int] = [:]
        for (i, way) in out.ways.enumerated() { listed[way.id] = i }
        var at: [Coordinate: Int64] = [:]
        for node in out.nodes where at[node.coordinate] == nil { at[node.coordinate] = node.id }
        var placed = Set(out.nodes.map(\.id))
        let lowest = min(
            out.nodes.map(\.id).min() ?? 0, out.ways.lazy.flatMap(\.nodeIDs).min() ?? 0, 0)
        // Ids far below any OSM or JOSM id: no file comes near, so none is taken twice.
        guard lowest > Int64.min / 2 else { return }
        var next = lowest - 1
        for e in elements where e.type == "relation" {
            for member in e.members ?? [] where member.type == "way" {
                guard let geometry = member.geometry else { continue }
                if let i = listed[member.ref] {
                    let ids = out.ways[i].nodeIDs
                    guard ids.count == geometry.count else { continue }
                    for (id, point) in zip(ids, geometry) where !placed.contains(id) {
                        guard let point else { continue }
                        let c = Coordinate(latitude: point.lat, longitude: point.lon)
                        guard c.isValid else { continue }
                        out.nodes.append(OSMNode(id: id, coordinate: c, tags: [:]))
                        placed.insert(id)
                    }
                    continue
                }
                var ids: [Int64] = []
                for point in geometry {
                    let c = point.map { Coordinate(latitude: $0.lat, longitude: $0.lon) }
                    if let c, c.isValid, let id = at[c] {
                        ids.append(id)
                        continue
                    }
                    ids.append(next)
                    if let c, c.isValid {
                        out.nodes.append(OSMNode(id: next, coordinate: c, tags: [:]))
                        at[c] = next
                    }
                    next -= 1
                }
                listed[member.ref] = out.ways.count
                out.ways.append(OSMWay(id: member.ref, nodeIDs: ids, tags: [:]))
            }
        }
    }
}
