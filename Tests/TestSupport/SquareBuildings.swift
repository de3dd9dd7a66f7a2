import Foundation

/// One square building for ``squareBuildingsXML(_:)``: ≈ 22 m a side, centred at `lat`,
/// `lon`, with an entrance node in the middle of its south wall when `entrance` has tags.
package struct SquareBuilding {
    package var lat: Double
    package var lon: Double
    /// The way's tags (`building` among them, unless the test wants it missing).
    package var tags: [String: String]
    /// The entrance node's tags; empty: no entrance.
    package var entrance: [String: String]
    /// Whether the corner nodes are written: without them the way has no coordinates.
    package var withNodes = true

    package init(
        lat: Double, lon: Double, tags: [String: String], entrance: [String: String] = ["entrance": "main"],
        withNodes: Bool = true
    ) {
        self.lat = lat
        self.lon = lon
        self.tags = tags
        self.entrance = entrance
        self.withNodes = withNodes
    }
}

/// OSM XML of square buildings, way `i` (from 1) with nodes `10i+1…10i+4` and its entrance
/// `10i+5`: the small regional extracts the door tests import (as the audits wrote them).
package func squareBuildingsXML(_ buildings: [SquareBuilding]) -> String {
    func tags(_ tags: [String: String]) -> String {
        tags.sorted { $0.key < $1.key }.map { #"<tag k="\#($0.key)" v="\#($0.value)"/>"# }.joined()
    }
    func f(_ v: Double) -> String { String(format: "%.7f", v) }
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\">\n"
    let d = 0.0001
    for (i, b) in zip(1..., buildings) {
        let corners = [
            (b.lat - d, b.lon - d), (b.lat - d, b.lon + d), (b.lat + d, b.lon + d), (b.lat + d, b.lon - d),
        ]
        let ids = (1...4).map { i * 10 + $0 }
        if b.withNodes {
            for (id, (lat, lon)) in zip(ids, corners) {
                xml += " <node id=\"\(id)\" lat=\"\(f(lat))\" lon=\"\(f(lon))\"/>\n"
            }
        }
        var refs = [ids[0]]
        if !b.entrance.isEmpty {
            xml +=
                " <node id=\"\(i * 10 + 5)\" lat=\"\(f(b.lat - d))\" lon=\"\(f(b.lon))\">\(tags(b.entrance))</node>\n"
            refs.append(i * 10 + 5)
        }
        refs += [ids[1], ids[2], ids[3], ids[0]]
        xml += " <way id=\"\(i)\">" + refs.map { "<nd ref=\"\($0)\"/>" }.joined() + tags(b.tags) + "</way>\n"
    }
    return xml + "</osm>\n"
}
