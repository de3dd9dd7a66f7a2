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
    /// A history file (every version of each element): `osmium cat` into `.osh.pbf`, the one
    /// name osmium marks as history, so the import reads it as it is now. Into `.osm.pbf` each
    /// old version is another copy, a deleted node's without a place ("lat/lon
    /// 214.7483647,214.7483647 out of range").
    case history

    /// The kind of the XML whose first bytes are `head` (cut anywhere): ``overpass`` when its
    /// generator is Overpass API or a `<nd …>` carries `lat=`; ``history`` when an element is
    /// deleted (`visible="false"`), follows itself in another version, or carries `visible` in
    /// osmium's XML (osmium writes it only in history).
    static func kind(of head: Data) -> CompressedXML {
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("generator=\"Overpass") || text.contains("generator='Overpass") { return .overpass }
        var rest = text[...]
        while let nd = rest.range(of: "<nd ") {
            let tag = rest[nd.upperBound...].prefix { $0 != ">" }
            if tag.contains("lat=") { return .overpass }
            rest = rest[tag.endIndex...]
        }
        if text.contains("visible=\"false\"") || text.contains("visible='false'") { return .history }
        if text.contains("generator=\"osmium") && text.contains(" visible=") { return .history }
        // Versions of one element come one after another (a copy of it, as in a file joined by
        // hand, is no history).
        var last: (id: Substring, version: Substring)?
        rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            let tag = rest[rest.index(after: open)...].prefix { $0 != ">" }
            // Cut off in the middle: not judged.
            guard tag.endIndex < rest.endIndex else { break }
            rest = rest[tag.endIndex...]
            let name = tag.prefix { $0 != " " }
            guard ["node", "way", "relation"].contains(name) else { continue }
            guard let id = Self.attribute("id", in: tag), let version = Self.attribute("version", in: tag)
            else {
                last = nil
                continue
            }
            if let last, last.id == name + "/" + id, last.version != version { return .history }
            last = (name + "/" + id, version)
        }
        return .plain
    }

    /// The value of `name="…"` (or `'…'`) in `tag`, the text of an XML start tag.
    private static func attribute(_ name: String, in tag: Substring) -> Substring? {
        for quote in ["\"", "'"] {
            guard let start = tag.range(of: " \(name)=\(quote)") else { continue }
            return tag[start.upperBound...].prefix { String($0) != quote }
        }
        return nil
    }
}
