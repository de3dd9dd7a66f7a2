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
    /// Full-text search over every kind of place.
    ///
    /// The query is folded (case, diacritics, punctuation) and every token becomes a
    /// quoted prefix term, so FTS5 syntax in the input is inert. Order: exact display name
    /// or code > exact alternate name > prefix of a display name > prefix of an alternate
    /// > any other match (a later word); then importance
    /// (population, or airport size), then id.
    package func search(_ query: String, limit: Int = 10) throws -> [SearchHit] {
        guard let match = Fold.matchExpression(query), limit > 0 else { return [] }
        let folded = Fold.fold(query)
        let s = try connection.cached(
            """
            SELECT p.id, p.kind, p.key, p.name, p.parent, p.lat, p.lon,
                   min(CASE WHEN n.folded = ?2 THEN n.rank
                            WHEN substr(n.folded, 1, length(?2)) = ?2 THEN 2 + n.rank ELSE 4 END) AS class
            FROM name_fts JOIN name n ON n.id = name_fts.rowid JOIN place p ON p.id = n.place
            WHERE name_fts MATCH ?1
            GROUP BY p.id ORDER BY class, p.importance DESC, p.id LIMIT ?3
            """)
        try s.bind([.text(match), .text(folded), .int(Int64(limit))])
        var rows: [(SearchHit, Int64?)] = []
        while try s.step() {
            let hit = SearchHit(
                kind: s.text(1) ?? "", id: s.text(2) ?? "", name: s.text(3) ?? "", ancestry: [],
                lat: s.isNull(5) ? nil : s.double(5), lon: s.isNull(6) ? nil : s.double(6))
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
