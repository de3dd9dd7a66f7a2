import Diagnostics
import Foundation
import Geo

/// Overpass API JSON: `{"elements": [{"type": "node", "id", "lat", "lon", "tags"}, …]}`.
/// Ways carry `nodes` (ids) and, from `out geom;`, `geometry` (their nodes' places, one for
/// each id); relations carry `members`, and from `out geom;` each member way its `geometry`,
/// the way itself perhaps not listed: both are placed as the XML's are (``OutGeometry``).
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

        var coordinate: Coordinate { Coordinate(latitude: lat, longitude: lon) }
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
        var geometry = OutGeometry()
        for (i, e) in file.elements.enumerated() {
            let name = "elements[\(i)] \(e.type) \(e.id)"
            switch e.type {
            case "node":
                guard let lat = e.lat, let lon = e.lon else {
                    throw OSMError(path: path, element: name, reason: "node without lat/lon")
                }
                let c = Coordinate(latitude: lat, longitude: lon)
                guard c.isValid else {
                    throw OSMError(path: path, element: name, reason: OSMError.locationOutOfRange(lat, lon))
                }
                out.nodes.append(OSMNode(id: e.id, coordinate: c, tags: e.tags ?? [:]))
            case "way":
                out.ways.append(OSMWay(id: e.id, nodeIDs: e.nodes ?? [], tags: e.tags ?? [:]))
                if let ids = e.nodes, let points = e.geometry {
                    geometry.ways.append((ids, points.map { $0?.coordinate }))
                }
            case "relation":
                for member in e.members ?? [] where member.type == "way" {
                    if let points = member.geometry {
                        geometry.memberWays.append((member.ref, points.map { $0?.coordinate }))
                    }
                }
                let members = (e.members ?? []).map {
                    OSMMember(type: $0.type, ref: $0.ref, role: $0.role ?? "")
                }
                out.relations.append(OSMRelation(id: e.id, members: members, tags: e.tags ?? [:]))
            default:
                continue  // "area", "count" and other Overpass extras carry no map data
            }
        }
        geometry.place(in: &out)
        return out
    }
}
