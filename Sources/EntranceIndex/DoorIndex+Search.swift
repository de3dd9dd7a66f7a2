import Arrival
import Foundation
public import Geo
import SQLite

/// A building found by name or address.
public struct BuildingMatch: Sendable, Hashable {
    /// How well the query matched, best first.
    public enum Quality: Int, Sendable, Hashable, Comparable {
        /// The whole name or address, words in any order.
        case exact = 0
        /// The start of a name or address.
        case prefix = 1
        /// Every word begins some word of a name or address.
        case words = 2
        /// No word matched, but the query is part of one ("rautatieasema" in
        /// "päärautatieasema", "시청" in "서울특별시청"): looked for only when nothing else
        /// matched, as it reads every row.
        case within = 3

        public static func < (a: Quality, b: Quality) -> Bool { a.rawValue < b.rawValue }
    }

    public var building: Building
    /// The address for people ("Siltavuorenpenger 10", "세종대로 110"), when it has one.
    public var address: String?
    /// How many usable doors OSM maps for it.
    public var doors: Int
    /// Metres from the point searched around to the building (0 inside); nil without one.
    public var metres: Double?
    public var quality: Quality
    /// The door index the building is in.
    public var index: String

    /// "way/49209325", as OpenStreetMap's web addresses name it.
    public var osm: String { "\(building.kind.rawValue)/\(building.id)" }
}

extension DoorIndex {
    /// Candidates read from the full-text index per query form; a query matching more than
    /// this many buildings is judged on the first ones by id.
    public static let searchCandidates = 2_000

    /// Buildings whose names or addresses match `query`, best first.
    ///
    /// Matches building names (and their variants), street and house number in either order,
    /// `addr:place`, `addr:full`, Korean road addresses with or without the space before the
    /// number, the names of shops, offices and amenities inside a building, and entrance
    /// `name`/`ref`; folded as the gazetteer folds (case, diacritics, hyphens, punctuation).
    /// Order: exact > prefix > other matches; then, with `near`, the nearer; else the closer
    /// in length to the query; then the OSM id.
    /// - Parameters:
    ///   - near: the point to measure from; distance breaks ties within a quality.
    ///   - limit: at most this many.
    public func search(_ query: String, near: Coordinate? = nil, limit: Int = 10) throws -> [BuildingMatch] {
        let folded = SearchText.normalize(query)
        let tokens = folded.split(separator: " ").map(String.init)
        guard !tokens.isEmpty, limit > 0 else { return [] }
        let sortedTokens = tokens.sorted()
        struct Candidate {
            var row: Int64
            var quality: BuildingMatch.Quality
            var extra: Int
        }
        var candidates: [Int64: Candidate] = [:]
        let whole = tokens.map { "\"\($0)\"" }.joined(separator: " ")
        let prefixes = tokens.map { "\"\($0)\"*" }.joined(separator: " ")
        for expression in [whole, prefixes] {
            try db.cached(
                "SELECT rowid, names, addresses FROM building_search WHERE building_search MATCH ? LIMIT ?"
            ).forEach([.text(expression), .int(Int64(Self.searchCandidates))]) { row in
                let id = row.int(0)
                guard candidates[id] == nil else { return }
                let fields = ((row.text(1) ?? "") + SearchText.separator + (row.text(2) ?? ""))
                    .components(separatedBy: SearchText.separator).filter { !$0.isEmpty }
                var best = Candidate(row: id, quality: .words, extra: Int.max)
                for field in fields {
                    let quality: BuildingMatch.Quality
                    if field == folded
                        || field.split(separator: " ").map(String.init).sorted() == sortedTokens
                    {
                        quality = .exact
                    } else if field.hasPrefix(folded) {
                        quality = .prefix
                    } else {
                        quality = .words
                    }
                    // The same words in the same order before the same words in another.
                    let extra = 2 * abs(field.count - folded.count) + (field == folded ? 0 : 1)
                    if (quality, extra) < (best.quality, best.extra) {
                        best.quality = quality
                        best.extra = extra
                    }
                }
                candidates[id] = best
            }
        }
        if candidates.isEmpty && folded.count >= 3 {
            try db.cached(
                """
                SELECT rowid FROM building_search WHERE instr(names, ?1) > 0 OR instr(addresses, ?1) > 0
                LIMIT ?2
                """
            ).forEach([.text(folded), .int(Int64(Self.searchCandidates))]) { row in
                candidates[row.int(0)] = Candidate(row: row.int(0), quality: .within, extra: 0)
            }
        }
        var measured: [(candidate: Candidate, building: Building, metres: Double?)] = []
        for candidate in candidates.values {
            guard let building = try building(row: candidate.row) else { continue }
            let metres = near.map { point in
                building.outline.contains(point) ? 0 : building.centroid.distance(to: point)
            }
            measured.append((candidate, building, metres))
        }
        measured.sort { a, b in
            if a.candidate.quality != b.candidate.quality { return a.candidate.quality < b.candidate.quality }
            if let ma = a.metres, let mb = b.metres, ma != mb { return ma < mb }
            if a.candidate.extra != b.candidate.extra { return a.candidate.extra < b.candidate.extra }
            return (a.building.kind.rawValue, a.building.id) < (b.building.kind.rawValue, b.building.id)
        }
        return try measured.prefix(limit).map { m in
            let doors = OSMDoors.ranked(try entrances(of: m.building), around: m.building.centroid).count
            return BuildingMatch(
                building: m.building, address: Self.address(m.building.address), doors: doors,
                metres: m.metres, quality: m.candidate.quality, index: path)
        }
    }

    /// The building stored at `row`, if it has an outline.
    func building(row: Int64) throws -> Building? {
        var found: Building?
        try db.cached(
            """
            SELECT b.id, b.kind, b.osm_id, b.building, b.name, b.addr, b.levels, b.level, b.centroid_lat,
                b.centroid_lon, b.area, b.outline
            FROM buildings b WHERE b.id = ?
            """
        ).forEach([.int(row)]) { found = self.building($0, metres: 0) }
        return found
    }

    /// The address for people: `addr:full`, else street (or place) and house number.
    static func address(_ address: [String: String]) -> String? {
        if let full = address["full"] { return full }
        guard let street = address["street"] ?? address["place"] else { return nil }
        guard let number = address["housenumber"] else { return street }
        return "\(street) \(number)"
    }
}
