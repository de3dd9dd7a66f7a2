import Foundation
import Geo

/// A synthetic city made at test time (never committed): a grid of square buildings, 20 m
/// a side, 35 m apart, each with a street address; every fifth with a main entrance on its
/// first corner. Extra hand-written elements (a multipolygon, a shop) are appended.
struct GridCity {
    var origin: Coordinate
    var buildings: Int
    /// Raw OSM XML elements added after the grid (their ids must not clash: use ≥ 10⁹).
    var extraNodes = ""
    var extraWays = ""
    var extraRelations = ""

    /// Buildings per row.
    var side: Int { max(1, Int(Double(buildings).squareRoot().rounded(.up))) }

    /// The four corners of building `i`, counter-clockwise from south-west.
    func corners(_ i: Int) -> [Coordinate] {
        let sw = origin.offset(metres: Double(i / side) * 35, bearing: 0).offset(
            metres: Double(i % side) * 35, bearing: 90)
        let se = sw.offset(metres: 20, bearing: 90)
        return [sw, se, se.offset(metres: 20, bearing: 0), sw.offset(metres: 20, bearing: 0)]
    }

    /// The middle of building `i`.
    func centre(_ i: Int) -> Coordinate {
        corners(i)[0].offset(metres: 10, bearing: 0).offset(metres: 10, bearing: 90)
    }

    /// "Grid Street 12", house number 1 + the column.
    func street(_ i: Int) -> String { "Grid Street \(i / side + 1)" }
    func number(_ i: Int) -> String { String(i % side + 1) }

    /// The city as OSM XML (nodes, then ways, then relations, each by id, as osmium writes).
    var xml: String {
        var out = "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"GridCity\">\n"
        func f(_ v: Double) -> String { String(format: "%.7f", v) }
        for i in 0..<buildings {
            for (k, c) in corners(i).enumerated() {
                let id = 4 * i + k + 1
                if k == 0 && i % 5 == 0 {
                    out +=
                        "  <node id=\"\(id)\" lat=\"\(f(c.latitude))\" lon=\"\(f(c.longitude))\">"
                        + "<tag k=\"entrance\" v=\"main\"/></node>\n"
                } else {
                    out += "  <node id=\"\(id)\" lat=\"\(f(c.latitude))\" lon=\"\(f(c.longitude))\"/>\n"
                }
            }
        }
        out += extraNodes
        for i in 0..<buildings {
            out += "  <way id=\"\(i + 1)\">"
            for k in [0, 1, 2, 3, 0] { out += "<nd ref=\"\(4 * i + k + 1)\"/>" }
            out += "<tag k=\"building\" v=\"yes\"/><tag k=\"addr:street\" v=\"\(street(i))\"/>"
            out += "<tag k=\"addr:housenumber\" v=\"\(number(i))\"/></way>\n"
        }
        out += extraWays
        out += extraRelations
        return out + "</osm>\n"
    }

    /// Writes the city as OSM XML at `path`, and as `.osm.pbf` beside it through osmium.
    /// - Returns: the `.osm.pbf` path.
    func write(xml path: String) throws -> String {
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        let pbf = path.replacingOccurrences(of: ".osm", with: ".osm.pbf")
        _ = try Support.osmium(["cat", path, "-o", pbf, "--overwrite"])
        return pbf
    }

    /// Adds a square building, `metres` a side, with its south-west corner at `sw`; with
    /// `door`, an entrance node with those tags on that corner. Ids from `id` up (≥ 10⁹).
    mutating func add(
        building id: Int64, at sw: Coordinate, metres: Double = 20, tags: [String: String],
        door: [String: String]? = nil
    ) {
        let se = sw.offset(metres: metres, bearing: 90)
        let corners = [sw, se, se.offset(metres: metres, bearing: 0), sw.offset(metres: metres, bearing: 0)]
        for (k, c) in corners.enumerated() {
            extraNodes += Self.node(id + Int64(k), c, k == 0 ? door ?? [:] : [:])
        }
        extraWays += Self.way(id, [id, id + 1, id + 2, id + 3, id], tags)
    }

    /// An OSM XML node with tags.
    static func node(_ id: Int64, _ c: Coordinate, _ tags: [String: String]) -> String {
        "  <node id=\"\(id)\" lat=\"\(String(format: "%.7f", c.latitude))\" lon=\"\(String(format: "%.7f", c.longitude))\">"
            + tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\(escape($0.value))\"/>" }
            .joined()
            + "</node>\n"
    }

    /// An OSM XML way with tags.
    static func way(_ id: Int64, _ refs: [Int64], _ tags: [String: String]) -> String {
        "  <way id=\"\(id)\">" + refs.map { "<nd ref=\"\($0)\"/>" }.joined()
            + tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\(escape($0.value))\"/>" }
            .joined()
            + "</way>\n"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
