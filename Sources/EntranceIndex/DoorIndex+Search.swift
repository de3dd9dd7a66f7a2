import Arrival
import Foundation
public import Geo
import OSM
import SQLite

/// A building found by name or address.
public struct BuildingMatch: Sendable, Hashable {
    /// How well the query matched, best first.
    public enum Quality: Int, Sendable, Hashable, Comparable {
        /// The whole name or address, words in any order.
        case exact = 0
        /// The start of a name or address.
        case prefix = 1
        /// Every word is a word of a name or address (the last may be its start), in
        /// another order or among others.
        case words = 2
        /// No word matched, but the query is part of one ("rautatieasema" in
        /// "päärautatieasema", "시청" in "서울특별시청"): looked for only when nothing else
        /// matched, as it reads every row (for a query of one word).
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
    /// Whether only the name of something inside it matched (a shop's, an office's), not the
    /// building's own name, address or doors: after those of the same quality without a
    /// point, ``insideSlackMetres`` further away with one (``SearchRank``).
    public var inside = false
    /// The door index the building is in.
    public var index: String
    /// The shorter form of the query that matched, when the query as written matched
    /// nothing (``DoorIndexes/search(_:near:limit:)``): nil for a match of the query itself.
    public var matchedQuery: String?
    /// How far the closest name's or address's length is from the query's, for a match of
    /// all words (1 for the same words in another order; 0 for whole and start matches):
    /// the tie-break after quality (and distance), so that indexes merge in the order one
    /// index sorts in.
    var lengthGap = 0
    /// The building's row (its OSM id; a relation's plus 2⁴²): the last tie-break.
    var row: Int64 { DoorIndexSchema.row(kind: building.kind, osmID: building.id) ?? .max }

    /// "way/49209325", as OpenStreetMap's web addresses name it.
    public var osm: String { building.osm }

    /// With a point, how much further than it is a building matched only by a place inside
    /// counts (metres): a near-tie goes to the building of that name (Stockmann 505 m before
    /// Kirjatalo 500 m, which holds a shop named Stockmann), but a chain's shop 300 m away is
    /// not passed over for a building of that name 2 km away (OSM tags a shop on the
    /// building's way as often as on a node inside).
    public static let insideSlackMetres = 250.0
}

/// The order of search answers, the same in one index (``DoorIndex/search(_:near:limit:)``)
/// and merged across indexes (``DoorIndexes/search(_:near:limit:in:)``): quality; then,
/// without a point, the building's own name, address or door before a place's inside; with
/// one, the distance to the centroid, plus ``BuildingMatch/insideSlackMetres`` for a match
/// only by a place inside; then the closer in length to the query; then the row (the OSM id,
/// ways before relations). One tuple, so the order is total and transitive.
struct SearchRank: Comparable {
    var quality: BuildingMatch.Quality
    /// 1 for a match only inside, without a point; 0 else (with one, the slack is in `metres`).
    var insideTier: Int
    /// The centroid's distance, slack added; 0 without a point.
    var metres: Double
    var lengthGap: Int
    var row: Int64

    /// - Parameter metres: the centroid's distance to the point, nil without one.
    init(quality: BuildingMatch.Quality, inside: Bool, metres: Double?, lengthGap: Int, row: Int64) {
        self.quality = quality
        insideTier = metres == nil && inside ? 1 : 0
        self.metres = metres.map { $0 + (inside ? BuildingMatch.insideSlackMetres : 0) } ?? 0
        self.lengthGap = lengthGap
        self.row = row
    }

    static func < (a: SearchRank, b: SearchRank) -> Bool {
        (a.quality, a.insideTier, a.metres, a.lengthGap, a.row)
            < (b.quality, b.insideTier, b.metres, b.lengthGap, b.row)
    }
}

extension DoorIndex {
    /// Candidates read from the full-text index per query form; a query matching more than
    /// this many buildings is judged on the first ones found (by id; the start of a whole
    /// name or address: by name, then id) or, with a point, on the nearest ones
    /// (``capped(_:_:near:_:)``).
    public static let searchCandidates = 2_000
    /// The longest query searched (characters): a name or an address, its city and flat
    /// included, is far shorter; a pasted page of numbers took seconds and gigabytes.
    public static let longestQuery = 200
    /// Whole names and addresses read at most for the start of a street in a query that
    /// starts with a house number; past them, its word search still finds the building.
    static let turnedScan = 20_000

    /// Buildings whose names or addresses match `query`, best first.
    ///
    /// Matches building names (and their variants), street and house number in either order,
    /// `addr:place`, `addr:full`, Korean road addresses with or without the space before the
    /// number, the names of shops, offices and amenities inside a building, and entrance
    /// `name`/`ref`; folded as the gazetteer folds (case, diacritics, hyphens, punctuation).
    /// Order (``SearchRank``): exact > prefix > other matches; within each, with `near`, the
    /// nearer, a building matched only by the name of a place inside it counting
    /// ``BuildingMatch/insideSlackMetres`` (250 m) further away; without, the building's own
    /// name, address or door before a place's inside; then the closer in length to the query;
    /// then the OSM id.
    /// - Parameters:
    ///   - near: the point to measure from; distance orders within a quality.
    ///   - limit: at most this many.
    ///   - bareNumber: the query's house number matches only bare or as a range's end, no
    ///     house letter after it (``AddressForm/bareNumber``).
    ///   - numberRange: the range written that the house number is an end of: it matches alone
    ///     or in a range holding all of this one (``AddressForm/numberRange``).
    /// - Throws: ``DoorIndexError/queryTooLong(characters:)`` for a query longer than
    ///   ``longestQuery``; SQLite errors.
    public func search(
        _ query: String, near: Coordinate? = nil, limit: Int = 10, bareNumber: Bool = false,
        numberRange: ClosedRange<Int>? = nil
    ) throws -> [BuildingMatch] {
        guard query.count <= Self.longestQuery else {
            throw DoorIndexError.queryTooLong(characters: query.count)
        }
        let number = NumberRule(bare: bareNumber, range: numberRange)
        let found = try search(query, near: near, limit: limit, narrowing: true, number: number)
        // An index made before full-width ASCII was folded (no `meta.fold`) holds most text
        // in ASCII, which the narrowed query finds ("무교로 １２" for "무교로 12"), but a
        // full-width name as written ("ＧＳ２５"): asked as it was made when nothing matched.
        guard found.isEmpty, !narrowsFullWidth, Fold.narrow(query) != query else { return found }
        return try search(query, near: near, limit: limit, narrowing: false, number: number)
    }

    /// ``search(_:near:limit:)`` with the query folded so: `narrowing` is `Fold.fold`'s. A
    /// house letter is looked for both ways, joined and apart ("13 A" and "13A",
    /// ``SearchText/otherHouseLetter(_:)``), merged as one index's answers: OSM tags either,
    /// and before, "Mannerheimintie 13 A" found nothing where "13A" is tagged.
    private func search(
        _ query: String, near: Coordinate?, limit: Int, narrowing: Bool, number: NumberRule
    ) throws -> [BuildingMatch] {
        let folded = SearchText.normalize(query, narrowing: narrowing)
        let written = query.split(whereSeparator: \.isWhitespace).map(String.init)
        let found = try search(folded: folded, written: written, near: near, limit: limit, number: number)
        guard let other = SearchText.otherHouseLetter(folded) else { return found }
        return DoorIndexes.merged(
            found + (try search(folded: other, written: written, near: near, limit: limit, number: number)),
            near: near,
            limit: limit)
    }

    /// How a query's house number must stand in what it matches: `bare`, no house letter
    /// after it (``AddressForm/bareNumber``); `range`, the range written that it is an end of
    /// (``AddressForm/numberRange``).
    private struct NumberRule {
        var bare: Bool
        var range: ClosedRange<Int>?
    }

    /// ``search(_:near:limit:)`` of a folded query, `written` its words as written (for a
    /// nameless building's address, ``SearchText/asWritten(_:_:)``).
    private func search(
        folded: String, written: [String], near: Coordinate?, limit: Int, number rule: NumberRule
    ) throws -> [BuildingMatch] {
        let (bareNumber, numberRange) = (rule.bare, rule.range)
        let tokens = folded.split(separator: " ").map(String.init)
        guard !tokens.isEmpty, limit > 0 else { return [] }
        let sortedTokens = tokens.sorted()
        let query = Set(tokens)
        struct Candidate {
            var row: Int64
            var quality: BuildingMatch.Quality
            /// Only a place inside it matched (``BuildingMatch/inside``).
            var inside: Bool
            var extra: Int
            /// The folded name or address that matched (a whole token's text, or the field the
            /// query's address was checked in): what a building with neither a name nor an
            /// address of its own is called when it is the address asked.
            var field: String? = nil
            /// Its place in the answers, `metres` the centroid's distance (nil without a point).
            func rank(_ metres: Double?) -> SearchRank {
                SearchRank(quality: quality, inside: inside, metres: metres, lengthGap: extra, row: row)
            }
        }
        var candidates: [Int64: Candidate] = [:]
        // 1. The whole of a name or address, then its start: one token each in
        //    `building_whole`, so common words cost nothing. The start is a range of tokens:
        //    from the query to the query followed by the last code point.
        //    Addresses are stored with the number last; a query starting with a number is
        //    also looked for turned around: whole, and as the start of a street followed by
        //    that number ("10 quai jean" finds "quai_jean_charles_rey_10").
        //    Each in the building's own tokens, then in its places' (`places_whole`): own
        //    first at each quality.
        let tables = ["building_whole"] + (placesApart ? ["places_whole"] : [])
        func add(_ row: Statement, _ quality: BuildingMatch.Quality, _ table: String, token: String? = nil) {
            let id = row.int(0)
            if candidates[id] == nil {
                candidates[id] = Candidate(
                    row: id, quality: quality, inside: table != tables[0], extra: 0,
                    field: token.map(Self.unwhole))
            }
        }
        let whole = Fold.wholeToken(folded)
        // A query ending in a house number matches it as a whole word: "mannerheimintie 1"
        // is not "mannerheimintie 10" (before, it was its start, and `go` walked there).
        let number = SearchText.houseNumber(tokens)
        // The word the house number follows ("kaivokatu", "세종대로"), and whether it is a
        // Korean road or place, after which no Hangul word continues the number.
        let street = number.map { tokens[tokens.count - $0.words.count - 1] }
        let afterRoad = street.map(SearchText.isPlace) ?? false
        // Not a house letter alone after the number ("5 a" is no street starting with "a": before,
        // audit 16, it found Alvar Aallon katu 5).
        let turned = SearchText.numberLast(tokens).filter { !$0.street.allSatisfy(SearchText.isHouseLetter) }
            .map {
                (
                    street: Fold.wholeToken($0.street.joined(separator: " ")),
                    number: "_" + Fold.wholeToken($0.number.joined(separator: " "))
                )
            }
        for table in tables {
            let range = "SELECT building FROM \(table) WHERE token >= ? AND token <= ?"
            for token in [whole] + turned.map({ $0.street + $0.number }) {
                try capped(range, [.text(token), .text(token)], near: near) {
                    add($0, .exact, table, token: token)
                }
            }
        }
        for table in tables {
            try capped(
                "SELECT building, token FROM \(table) WHERE token >= ? AND token <= ?",
                [
                    .text(whole), .text(whole + "\u{10FFFF}"),
                ], near: near
            ) { row in
                if let number,
                    !SearchText.continuesNumber(
                        Self.after(whole, in: row.text(1) ?? ""), number, bare: bareNumber,
                        afterRoad: afterRoad, range: numberRange)
                {
                    return
                }
                add(row, .prefix, table, token: row.text(1))
            }
            for form in turned {
                // The tokens starting with the street, a bounded run of them (a one-letter
                // street start would be a country's streets): those ending in the number.
                try capped(
                    """
                    SELECT building, token FROM (
                        SELECT building, token FROM \(table) WHERE token >= ?1 AND token <= ?2 LIMIT ?3)
                    WHERE substr(token, -?4) = ?5
                    """,
                    [
                        .text(form.street), .text(form.street + "\u{10FFFF}"), .int(Int64(Self.turnedScan)),
                        .int(Int64(form.number.unicodeScalars.count)), .text(form.number),
                    ], near: near
                ) { add($0, .prefix, table, token: $0.text(1)) }
            }
        }
        // 2. No whole name or address, or too few starting so: every word somewhere (the last
        //    may be cut short, as people type). Not when a whole one matched: the rest
        //    would be noise, and reading common words' doclists costs milliseconds.
        if candidates.count < limit && !candidates.values.contains(where: { $0.quality == .exact }) {
            // The words before a house number, which a building's own name may be ("stockmann 52").
            let ownName = number.map { tokens.dropLast($0.words.count).joined(separator: " ") }
            // A house letter is a whole word ("5 a"), not the start of one.
            let words =
                tokens.map { "\"\($0)\"" }.joined(separator: " ")
                + (SearchText.endsWithHouseLetter(tokens) ? "" : "*")
            try capped(
                "SELECT rowid AS building, names, addresses FROM building_search WHERE building_search MATCH ?",
                [.text(words)], near: near
            ) { row in
                let id = row.int(0)
                guard candidates[id] == nil else { return }
                let names = SearchText.alternatives(ofNames: row.text(1) ?? "")
                let addresses = (row.text(2) ?? "").components(separatedBy: SearchText.separator)
                    .filter { !$0.isEmpty }
                let own = names.own + addresses
                // The query's address in one name or address, as written: the word before the
                // house number and the number right after it, and no word before them that the
                // query lacks (another street's). Before, "vuorikatu 8" found the building of
                // "vuorikatu 19" whose door is "kaisaniemenkatu 8", "eteläinen makasiinikatu 2"
                // the one at "pohjoinen makasiinikatu 2", "세종대로 5" one at "세종대로 23 길 5",
                // "을지로 3" the building of a shop "gs25 을지로 3 가점", "unioninkatu 1" one holding
                // "unioninkatu 17" and "1store", and `go` walked there (audit 14).
                let fields = own + names.inside
                var holding: String?
                if let number, let street {
                    holding = fields.first {
                        SearchText.holdsAddress(
                            $0[...], after: street, number, bare: bareNumber, range: numberRange,
                            query: tokens)
                    }
                    // Or the building's own name, whole, and its own address's house number
                    // ("stockmann 52": Aleksanterinkatu 52; before, audit 14's A14-7, nothing).
                    if holding == nil, let ownName, names.own.contains(ownName) {
                        holding = addresses.first {
                            SearchText.holdsHouseNumber($0, number, bare: bareNumber, range: numberRange)
                        }
                    }
                    guard holding != nil else { return }
                } else if let turned = SearchText.numberLast(tokens).first,
                    let last = turned.street.last, turned.street.count < tokens.count
                {
                    // The number written first ("7 kaivokatu"): as "kaivokatu 7" (before, audit
                    // 15, no address check at all: any building with the street and a 7).
                    let asAddress = turned.street + turned.number
                    let number = (words: turned.number, korean: tokens.contains(where: SearchText.isHangul))
                    // Or a name written so ("7 eleven").
                    holding = fields.first {
                        SearchText.holdsAddress(
                            $0[...], after: last, number, bare: bareNumber, query: asAddress)
                            || SearchText.holdsRun($0[...], tokens, query: query)
                    }
                    guard holding != nil else { return }
                } else if let run = SearchText.addressRun(tokens) {
                    holding = fields.first { SearchText.holdsRun($0[...], run, query: query) }
                    guard holding != nil else { return }
                }
                // The same words in another order count as exact ("jean charles rey quai 10").
                func exact(_ fields: [String]) -> Bool {
                    fields.contains { $0.split(separator: " ").map(String.init).sorted() == sortedTokens }
                }
                let ownExact = exact(own)
                let isExact = ownExact || exact(names.inside)
                // All words somewhere: inside when its own words do not hold them all (the
                // last may be cut short) — looked at only for a building with places.
                func ownHolds() -> Bool {
                    let ownWords = Set(own.flatMap { $0.split(separator: " ").map(String.init) })
                    return tokens.dropLast().allSatisfy(ownWords.contains)
                        && ownWords.contains { $0.hasPrefix(tokens[tokens.count - 1]) }
                }
                candidates[id] = Candidate(
                    row: id, quality: isExact ? .exact : .words,
                    inside: isExact ? !ownExact : !names.inside.isEmpty && !ownHolds(),
                    extra: isExact ? 1 : (own + names.inside).map { abs($0.count - folded.count) }.min() ?? 0,
                    field: holding)
            }
        }
        // A Hangul syllable is a word's worth of letters: "시청" (city hall) inside "서울특별시청"
        // is what docs/doors.md searches for; three Latin letters are the floor elsewhere.
        let hangul = folded.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
        let numberFirst = !SearchText.numberLast(tokens).isEmpty
        // Its first letter ("1청사 3" is Hangul: audit 17).
        let startsInHangul = folded.first(where: \.isLetter).map { SearchText.isHangul(String($0)) } == true
        if candidates.isEmpty && folded.count >= (hangul ? 2 : 3) {
            // Inside: in no address, and first found in the names after the places' separator.
            // Only the rows holding the words the query's run of text must hold, when it has
            // such words (``SearchText/withinTerms(_:)``): the same rows as reading every one
            // (≈ 0.38 s of CPU at 500 000 buildings, for the query and again for its shorter forms).
            let terms = SearchText.withinTerms(tokens)
            try capped(
                """
                SELECT rowid AS building, instr(addresses, ?1) = 0 AND instr(names, ?2) > 0
                    AND instr(names, ?1) > instr(names, ?2), names, addresses
                FROM building_search
                WHERE \(terms == nil ? "" : "building_search MATCH ?3 AND ")
                    (instr(names, ?1) > 0 OR instr(addresses, ?1) > 0)
                """, [.text(folded), .text(SearchText.placesSeparator)] + (terms.map { [.text($0)] } ?? []),
                near: near
            ) { row in
                var holding: String?
                // Its names and addresses, read only for a query with a house number.
                func fields() -> [String] {
                    let text = (row.text(2) ?? "") + SearchText.separator + (row.text(3) ?? "")
                    return text.components(separatedBy: SearchText.placesSeparator).joined(
                        separator: SearchText.separator
                    )
                    .components(separatedBy: SearchText.separator)
                }
                if let number, let street {
                    // In the field that holds the query's text: "unioninkatu 11" holds
                    // "unioninkatu 1" as text, and another address of the building the number 1
                    // (before, audit 14, that building was found). As `words` asks, but for a
                    // query that starts in Hangul and is no road's address ("시청 1" in "서울특별시청
                    // 1"): the street a whole word, before it the query's words or regions, so
                    // "merirantatie 5" and "vanha porvoontie 5" are not "rantatie 5" and
                    // "porvoontie 5" (audits 15 and 16), and a Korean road's address no part of a
                    // shop's name: "gs25 을지로 3 가점" is not "을지로 3", nor "카페 을지로 100" "을지로
                    // 100" (audit 14).
                    holding = fields().first {
                        $0.contains(folded)
                            && SearchText.holdsNumber($0[...], number, bare: bareNumber, range: numberRange)
                            && (startsInHangul && !afterRoad
                                || SearchText.holdsAddress(
                                    $0[...], after: street, number, bare: bareNumber, range: numberRange,
                                    query: tokens))
                    }
                    guard holding != nil else { return }
                } else if numberFirst, !startsInHangul {
                    // The number first: from a word's start ("g12 galleria" is not "2 galleria":
                    // before, audit 16, found).
                    guard fields().contains(where: { SearchText.holdsFromWordStart($0, folded) }) else {
                        return
                    }
                }
                candidates[row.int(0)] = Candidate(
                    row: row.int(0), quality: .within, inside: row.int(1) != 0, extra: 0, field: holding)
            }
        }
        // Rank cheaply first, as without a point; with one, the distance to the centroid is
        // read for every candidate of the qualities that can reach the first `limit` (an
        // inside match may pass an own one), then all are ranked by it. Rows are in OSM order
        // (ways, then relations, each by id). Whole buildings are read for the answers only.
        var ranked = candidates.values.sorted { $0.rank(nil) < $1.rank(nil) }
        var metres: [Int64: Double] = [:]
        if let near {
            var counted = 0
            var lastQuality: BuildingMatch.Quality?
            for candidate in ranked {
                if counted >= limit && candidate.quality != lastQuality { break }
                try db.cached("SELECT centroid_lat, centroid_lon FROM buildings WHERE id = ?").forEach([
                    .int(candidate.row)
                ]) { row in
                    guard !row.isNull(0) else { return }
                    metres[candidate.row] = Coordinate(latitude: row.double(0), longitude: row.double(1))
                        .distance(to: near)
                }
                counted += 1
                lastQuality = candidate.quality
            }
            ranked = ranked.filter { metres[$0.row] != nil }
            ranked.sort { $0.rank(metres[$0.row]) < $1.rank(metres[$1.row]) }
        }
        var out: [BuildingMatch] = []
        for candidate in ranked where out.count < limit {
            guard let building = try building(row: candidate.row) else { continue }
            let entrances = try entrances(of: building)
            let doors = OSMDoors.ranked(entrances, around: building.centroid).count
            // A building with neither a name nor an address of its own: an entrance's the query
            // names, else the address inside it (a point's) that is the query's
            // (``SearchText/isAddressAsked(_:_:)``), its words as the query wrote them
            // ("Korkeavuorenkatu 41", "Aleksanterinkatu 36a"; before, audit 14's A14-5, "이름 없는
            // 건물" in `go`, spoken and remembered so).
            func asked() -> String? {
                candidate.field.flatMap {
                    SearchText.isAddressAsked($0, tokens) ? SearchText.asWritten($0, written) : nil
                }
            }
            let address =
                Self.address(building.address)
                ?? (building.name == nil ? Self.entranceAddress(entrances, words: tokens) ?? asked() : nil)
            out.append(
                BuildingMatch(
                    building: building, address: address, doors: doors,
                    metres: near.map { building.outline.contains($0) ? 0 : metres[candidate.row]! },
                    quality: candidate.quality, inside: candidate.inside, index: path,
                    lengthGap: candidate.extra))
        }
        return out
    }

    /// Calls `row` for the rows of `sql` (a query whose first column, `building`, is a
    /// building's row; no `LIMIT`), at most ``searchCandidates`` of them: in the query's own
    /// order (by id) or, with `near`, those whose centroids are nearest it (an equirectangular
    /// distance, in SQL: every match read and sorted, a B-tree lookup each; 20 000 matches
    /// ≈ 10–25 ms), so the building at the point is a candidate whatever the number of
    /// matches. Before, a chain's name ("GS25", thousands in a country) was judged on its
    /// first 2 000 by id, in another city: `go GS25` was refused as "328 km away" beside one.
    private func capped(
        _ sql: String, _ values: [SQLValue], near: Coordinate?, _ row: (Statement) throws -> Void
    ) throws {
        guard let near else {
            return try db.cached(sql + " LIMIT \(Self.searchCandidates)").forEach(values, row)
        }
        let (lat, lon, k) = (values.count + 1, values.count + 2, values.count + 3)
        let dlon = "min(abs(b.centroid_lon - ?\(lon)), 360 - abs(b.centroid_lon - ?\(lon)))"
        try db.cached(
            """
            SELECT m.* FROM (\(sql)) m JOIN buildings b ON b.id = m.building
            WHERE b.centroid_lat IS NOT NULL
            ORDER BY (b.centroid_lat - ?\(lat)) * (b.centroid_lat - ?\(lat)) + \(dlon) * \(dlon) * ?\(k)
            LIMIT \(Self.searchCandidates)
            """
        ).forEach(
            values + [
                .double(near.latitude), .double(near.longitude),
                .double(pow(cos(near.latitude * .pi / 180), 2)),
            ], row)
    }

    /// The folded text of a whole token (its `_` as spaces, ``Fold/wholeToken(_:)``).
    private static func unwhole(_ token: String) -> String {
        token.replacingOccurrences(of: "_", with: " ")
    }

    /// What follows `prefix` in `token`, which starts with it.
    private static func after(_ prefix: String, in token: String) -> Substring {
        String(decoding: token.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)[...]
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

    /// The address for people of a building with neither a name nor an address of its own: an
    /// entrance's (OSM's way to map a building of several addresses; a street with a house
    /// number) the query names: the first whose words are all among the query's `words`
    /// (folded), else the first holding all of them ("Vuorikatu 19 A" for "vuorikatu 19"); nil
    /// when none does (a building found by a name inside it is not called by a door's address:
    /// audit 14, "Cafe Vuori" named "Kaisaniemenkatu 8"). Before, such a building found by its
    /// entrance's address was "이름 없는 건물" in the daemon, spoken and remembered so.
    static func entranceAddress(_ entrances: [OSMNode], words: [String]) -> String? {
        let addresses = entrances.compactMap { node -> String? in
            let parts = addressParts(node.tags)
            return parts["housenumber"] == nil ? nil : address(parts)
        }
        let asked = Set(words)
        let folded = addresses.map { Set(SearchText.normalize($0).split(separator: " ").map(String.init)) }
        let named =
            folded.firstIndex { $0.isSubset(of: asked) } ?? folded.firstIndex { asked.isSubset(of: $0) }
        return named.map { addresses[$0] }
    }

    /// The address for people: `addr:full`, else street (or place) and house number.
    static func address(_ address: [String: String]) -> String? {
        if let full = address["full"] { return full }
        guard let street = address["street"] ?? address["place"] else { return nil }
        guard let number = address["housenumber"] else { return street }
        return "\(street) \(number)"
    }
}
