import SQLite

/// One search result.
package struct SearchHit: Sendable, Hashable {
    package var kind: String
    /// Stable ID: `EU`, `FI`, `FI.01`, a GeoNames ID as text, or an IATA code.
    package var id: String
    package var name: String
    /// Enclosing places, nearest first (region, country, continent).
    package var ancestry: [String]
    package var lat: Double?
    package var lon: Double?
    /// The query was the whole of one of its names (display or alternate: "헬싱키") or its
    /// code ("HEL"), folded — not the start of one or a word in one.
    package var exact = false

    /// The CONTRACT's line: city ids as numbers, the rest as strings.
    package var json: String {
        let idText = kind == "city" ? id : JSONText.quote(id)
        var out = "{\"kind\":\"\(kind)\",\"id\":\(idText),\"name\":\(JSONText.quote(name)),\"ancestry\":["
        out += ancestry.map(JSONText.quote).joined(separator: ",") + "]"
        out += ",\"lat\":" + (lat.map(JSONText.number) ?? "null")
        out += ",\"lon\":" + (lon.map(JSONText.number) ?? "null") + "}"
        return out
    }
}

extension GazetteerDatabase {
    /// Candidates read per tier: exact-name matches, then starts-with and word matches (more for
    /// a large `limit`). Results are exact but for ties of class among more matches.
    static let exactCandidates = 64
    static let otherCandidates = 128
    /// Candidate names read per place a larger `limit` asks for.
    static let namesPerPlace = 8

    /// An airport ranks as this share of the population of the city it serves (the largest
    /// city of its region within `servedCityDegrees`), by OurAirports type, and never above
    /// its type's importance. So a large airport falls below its own city ("San Antonio"
    /// before San Antonio International) and among cities of about that size, instead of
    /// outranking every city under 2 million people.
    static let airportShareOfServedCity: [String: Double] = [
        "large_airport": 0.5, "medium_airport": 0.1, "small_airport": 0.01,
    ]
    /// How far from an airport its served city may be, degrees of latitude and of
    /// longitude (≈ 55 km north–south).
    static let servedCityDegrees = 0.5

    /// Full-text search over every kind of place.
    ///
    /// The query is folded (case, diacritics, punctuation) and every token becomes a
    /// quoted prefix term, so FTS5 syntax in the input is inert. Order: exact display name
    /// or code > exact alternate name > prefix of a display name > prefix of an alternate
    /// > any other match (a later word); then importance
    /// (population; for an airport, a share of its served city's population: see
    /// `airportShareOfServedCity`), then id.
    package func search(_ query: String, limit: Int = 10) throws -> [SearchHit] {
        guard let tiers = Fold.matchTiers(query), limit > 0 else { return [] }
        let folded = Fold.fold(query)
        // Each tier returns its matches most important first (rowid order) and is cut
        // off, so a short prefix ("la") costs no more than a long one.
        let s = try connection.cached(
            """
            WITH candidate(id) AS (
                SELECT rowid FROM (SELECT rowid FROM name_whole WHERE name_whole MATCH ?1 LIMIT ?6)
                UNION SELECT rowid FROM (SELECT rowid FROM name_whole WHERE name_whole MATCH ?2 LIMIT ?7)
                UNION SELECT rowid FROM (SELECT rowid FROM name_fts WHERE name_fts MATCH ?3 LIMIT ?7))
            SELECT p.id, p.kind, p.key, p.name, p.parent, p.lat, p.lon,
                   min(CASE WHEN n.folded = ?4 THEN n.rank
                            WHEN substr(n.folded, 1, length(?4)) = ?4 THEN 2 + n.rank ELSE 4 END) AS class,
                   CASE WHEN p.kind = 'airport' THEN min(p.importance, coalesce(
                       (SELECT CASE a.type WHEN 'large_airport' THEN ?8 WHEN 'medium_airport' THEN ?9
                                           ELSE ?10 END * max(t.population)
                        FROM airport a JOIN city t ON t.region = a.region
                        WHERE a.iata = p.key AND abs(t.lat - a.lat) <= ?11 AND abs(t.lon - a.lon) <= ?11),
                       0)) ELSE p.importance END AS weight
            FROM candidate c JOIN name n ON n.id = c.id JOIN place p ON p.id = n.place
            GROUP BY p.id ORDER BY class, weight DESC, p.id LIMIT ?5
            """)
        let share = Self.airportShareOfServedCity
        try s.bind([
            .text(tiers.exact), .text(tiers.startsWith), .text(tiers.words), .text(folded),
            .int(Int64(limit)),
            // A limit near a tier's pool widens it, by names (several a place) per place wanted
            // (before, --limit 100 gave 63 places unsaid).
            .int(Int64(max(Self.exactCandidates, limit * Self.namesPerPlace))),
            .int(Int64(max(Self.otherCandidates, limit * Self.namesPerPlace))),
            .double(share["large_airport"]!), .double(share["medium_airport"]!),
            .double(share["small_airport"]!),
            .double(Self.servedCityDegrees),
        ])
        var rows: [(SearchHit, Int64?)] = []
        while try s.step() {
            let hit = SearchHit(
                kind: s.text(1) ?? "", id: s.text(2) ?? "", name: s.text(3) ?? "", ancestry: [],
                lat: s.isNull(5) ? nil : s.double(5), lon: s.isNull(6) ? nil : s.double(6),
                exact: s.int(7) <= Int64(NameRank.alternate.rawValue))
            rows.append((hit, s.isNull(4) ? nil : s.int(4)))
        }
        return try rows.map { hit, parent in
            var hit = hit
            hit.ancestry = try ancestry(of: parent)
            return hit
        }
    }

    /// Names of `parent` and its parents, nearest first.
    func ancestry(of parent: Int64?) throws -> [String] {
        var out: [String] = []
        var next = parent
        let s = try connection.cached("SELECT name, parent FROM place WHERE id = ?")
        while let id = next, out.count < 4 {
            s.reset()
            try s.bind([.int(id)])
            guard try s.step() else { break }
            out.append(s.text(0) ?? "")
            next = s.isNull(1) ? nil : s.int(1)
        }
        return out
    }
}
