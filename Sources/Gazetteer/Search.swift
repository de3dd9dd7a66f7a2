import Geo
import SQLite

/// One search result.
package struct SearchHit: Sendable, Hashable {
    package var kind: String
    /// Stable ID: `EU`, `FI`, `FI.01`, a GeoNames ID as text, or an IATA code.
    package var id: String
    package var name: String
    /// Enclosing places, nearest first (region, country, continent).
    package var ancestry: [String]
    /// Degrees. Never nil from `search`: a place with no point of its own is placed by its
    /// boundary, or not found (see `GazetteerDatabase.boundaryPoint(kind:key:)`).
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
    /// quoted prefix term, so FTS5 syntax in the input is inert. An airport's IATA and ICAO
    /// codes match only a query written in ASCII (`isWrittenAsCode`). Order: exact display name
    /// or code > exact alternate name > prefix of a display name > prefix of an alternate
    /// > any other match (a later word); then importance
    /// (population; for an airport, a share of its served city's population: see
    /// `airportShareOfServedCity`), then id.
    ///
    /// Every hit has `lat` and `lon`: a region or country with no city to place it by is
    /// placed inside its boundary; one with no boundary either is left out (nothing in the
    /// gazetteer says where it is), and the places after it fill the `limit`.
    package func search(_ query: String, limit: Int = 10) throws -> [SearchHit] {
        guard let tiers = Fold.matchTiers(query), limit > 0 else { return [] }
        let folded = Fold.fold(query)
        // Each tier returns its matches most important first (rowid order) and is cut
        // off, so a short prefix ("la") costs no more than a long one.
        let s = try connection.cached(
            """
            WITH candidate(id) AS (
                SELECT rowid FROM (SELECT rowid FROM name_whole WHERE name_whole MATCH ?1 LIMIT ?5)
                UNION SELECT rowid FROM (SELECT rowid FROM name_whole WHERE name_whole MATCH ?2 LIMIT ?6)
                UNION SELECT rowid FROM (SELECT rowid FROM name_fts WHERE name_fts MATCH ?3 LIMIT ?6))
            SELECT p.id, p.kind, p.key, p.name, p.parent, p.lat, p.lon,
                   min(CASE WHEN n.folded = ?4 THEN n.rank
                            WHEN substr(n.folded, 1, length(?4)) = ?4 THEN 2 + n.rank ELSE 4 END) AS class,
                   CASE WHEN p.kind = 'airport' THEN min(p.importance, coalesce(
                       (SELECT CASE a.type WHEN 'large_airport' THEN ?7 WHEN 'medium_airport' THEN ?8
                                           ELSE ?9 END * max(t.population)
                        FROM airport a JOIN city t ON t.region = a.region
                        WHERE a.iata = p.key AND abs(t.lat - a.lat) <= ?10 AND abs(t.lon - a.lon) <= ?10),
                       0)) ELSE p.importance END AS weight
            FROM candidate c JOIN name n ON n.id = c.id JOIN place p ON p.id = n.place
            -- An airport's names besides its display name are its IATA and ICAO codes.
            WHERE ?11 OR NOT (p.kind = 'airport' AND n.rank = 0 AND n.name <> p.name)
            GROUP BY p.id ORDER BY class, weight DESC, p.id
            """)
        let share = Self.airportShareOfServedCity
        try s.bind([
            .text(tiers.exact), .text(tiers.startsWith), .text(tiers.words), .text(folded),
            // A limit near a tier's pool widens it, by names (several a place) per place wanted
            // (before, --limit 100 gave 63 places unsaid).
            .int(Int64(max(Self.exactCandidates, limit * Self.namesPerPlace))),
            .int(Int64(max(Self.otherCandidates, limit * Self.namesPerPlace))),
            .double(share["large_airport"]!), .double(share["medium_airport"]!),
            .double(share["small_airport"]!),
            .double(Self.servedCityDegrees), .int(Self.isWrittenAsCode(query) ? 1 : 0),
        ])
        var rows: [(SearchHit, Int64?)] = []
        while rows.count < limit, try s.step() {
            var hit = SearchHit(
                kind: s.text(1) ?? "", id: s.text(2) ?? "", name: s.text(3) ?? "", ancestry: [],
                lat: s.isNull(5) ? nil : s.double(5), lon: s.isNull(6) ? nil : s.double(6),
                exact: s.int(7) <= Int64(NameRank.alternate.rawValue))
            if hit.lat == nil || hit.lon == nil {
                guard let point = try boundaryPoint(kind: hit.kind, key: hit.id) else { continue }
                hit.lat = point.latitude
                hit.lon = point.longitude
            }
            rows.append((hit, s.isNull(4) ? nil : s.int(4)))
        }
        return try rows.map { hit, parent in
            var hit = hit
            hit.ancestry = try ancestry(of: parent)
            return hit
        }
    }

    /// Whether `query` may be a code ("ABO", "abo", full-width "ＡＢＯ"): ASCII as typed. A
    /// diacritic the fold removes makes a word, not a code: "Åbo" (Turku's Swedish name) folds
    /// to "abo" and was matched to Aboisso Airport (ABO) first, "Été" to Metema Airport (ETE).
    static func isWrittenAsCode(_ query: String) -> Bool {
        Fold.narrow(query).unicodeScalars.allSatisfy(\.isASCII)
    }

    /// Where a region or country with no point of its own is: the interior point of the
    /// largest part of its boundary (`MultiPolygon.interiorPoint`: inside it, as `where` draws
    /// it), or nil when the gazetteer holds no boundary for it. The compact build places a
    /// region or country by its biggest city, so 1 338 regions and 8 countries have none
    /// (Canillo, Antarctica); 757 of those regions and 5 of the countries have a boundary.
    func boundaryPoint(kind: String, key: String) throws -> Coordinate? {
        guard kind == "region" || kind == "country" else { return nil }
        if boundaryIDs == nil {
            var ids: [String: [Int64]] = [:]
            let owners = try connection.prepare("SELECT id, kind, country, region FROM boundary ORDER BY id")
            try owners.forEach { row in
                // A region's polygon no admin-1 code was matched to belongs to no place.
                let owner: String? =
                    switch row.text(1) {
                    case "region": row.isNull(3) ? nil : "region:" + (row.text(3) ?? "")
                    default: "country:" + (row.text(2) ?? "")
                    }
                if let owner { ids[owner, default: []].append(row.int(0)) }
            }
            boundaryIDs = ids
        }
        guard let ids = boundaryIDs?[kind + ":" + key] else { return nil }
        var parts: [Polygon] = []
        let s = try connection.cached("SELECT wkb FROM boundary WHERE id = ?")
        for id in ids {
            s.reset()
            try s.bind([.int(id)])
            if try s.step() { parts += try GeometryBlob.decode(s.blob(0)) }
        }
        return MultiPolygon(parts).interiorPoint.map { Coordinate(latitude: $0.lat, longitude: $0.lon) }
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
