import Foundation

/// What the start of compressed OSM XML shows about how `doors import` is to read it.
enum CompressedXML: Equatable {
    /// Anything else (osmium's, Geofabrik's `.osm.bz2`): `osmium cat` into PBF, which is read
    /// as a stream whatever its size.
    case plain
    /// Overpass API's: decompressed, for the XML reader. `out geom;` places a way's nodes in
    /// its `<nd lat=… lon=…>` and a relation's member ways inside `<member>`: osmium refuses the
    /// latter ("No element inside <member> allowed") and drops the former (outlines of 0 m²).
    case overpass

    /// The kind of the XML whose first bytes are `head` (cut anywhere): ``overpass`` when its
    /// generator is Overpass API or a `<nd …>` carries `lat=`.
    static func kind(of head: Data) -> CompressedXML {
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("generator=\"Overpass") || text.contains("generator='Overpass") { return .overpass }
        var rest = text[...]
        while let nd = rest.range(of: "<nd ") {
            let tag = rest[nd.upperBound...].prefix { $0 != ">" }
            if tag.contains("lat=") { return .overpass }
            rest = rest[tag.endIndex...]
        }
        return .plain
    }
}
