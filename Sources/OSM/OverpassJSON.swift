import Foundation
import Geo

/// Overpass API JSON: `{"elements": [{"type": "node", "id", "lat", "lon", "tags"}, …]}`.
/// Ways carry `nodes` (ids); relations carry `members`.
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
        var members: [Member]?
    }

    private struct Member: Decodable {
        var type: String
        var ref: Int64
        var role: String?
    }

    static func read(data: Data, path: String) throws(OSMError) -> OSMData {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as DecodingError {
            throw OSMError(
                path: path, element: element(of: error), reason: "not Overpass JSON: \(reason(of: error))")
        } catch {
            throw OSMError(path: path, reason: "not Overpass JSON: \(error)")
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
        return out
    }

    private static func element(of error: DecodingError) -> String? {
        let path: [any CodingKey]
        switch error {
        case .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            path = c.codingPath
        @unknown default: return nil
        }
        guard !path.isEmpty else { return nil }
        return path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func reason(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "field \"\(key.stringValue)\" is missing"
        case .typeMismatch(let type, _): "expected \(type)"
        case .valueNotFound(let type, _): "expected \(type), found null"
        case .dataCorrupted(let c):
            (c.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String ?? c.debugDescription
        @unknown default: "\(error)"
        }
    }
}
