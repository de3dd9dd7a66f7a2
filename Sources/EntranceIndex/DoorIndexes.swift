import Diagnostics
import Foundation
public import Geo
import OSM

/// The latitude/longitude box a door index covers, degrees.
public struct DoorIndexBounds: Sendable, Hashable, CustomStringConvertible {
    public var minLat: Double
    public var maxLat: Double
    public var minLon: Double
    public var maxLon: Double

    public init(minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        self.minLat = minLat
        self.maxLat = maxLat
        self.minLon = minLon
        self.maxLon = maxLon
    }

    /// Reads the `meta` form "minLat,maxLat,minLon,maxLon" (``metaText``).
    init?(_ text: String) {
        let v = text.split(separator: ",").compactMap { Double($0) }
        guard v.count == 4 else { return nil }
        self.init(minLat: v[0], maxLat: v[1], minLon: v[2], maxLon: v[3])
    }

    /// The `meta` form the importer writes and `init?(_:)` reads.
    var metaText: String { "\(minLat),\(maxLat),\(minLon),\(maxLon)" }

    /// The smallest box holding this one and `other` (this one when `other` is nil). Its
    /// longitudes go the shorter way round: across the antimeridian they run on past 180, from
    /// a west end in −180…180, as a building's box does (``BuildingOutline/bounds``), so an
    /// index holding buildings on both sides of ±180° covers a few hundred metres there, not
    /// every longitude (before: `min`/`max`, −179.9998…180.0002). Boxes not across it (all but
    /// those near ±180°) come out as `min`/`max` made them.
    func union(_ other: DoorIndexBounds?) -> DoorIndexBounds {
        guard let other else { return self }
        var (west, east) = (min(minLon, other.minLon), max(maxLon, other.maxLon))
        // Within half the world no other way round is shorter (each is at least half): the
        // importer's every row takes this way, without the turns' arithmetic.
        guard east - west > 180 else {
            return DoorIndexBounds(
                minLat: min(minLat, other.minLat), maxLat: max(maxLat, other.maxLat), minLon: west,
                maxLon: east)
        }
        // `other` a turn west or east, when that makes the hull of the two narrower.
        for turn in [-360.0, 360] {
            let hull = (west: min(minLon, other.minLon + turn), east: max(maxLon, other.maxLon + turn))
            if hull.east - hull.west < east - west { (west, east) = hull }
        }
        if east - west >= 360 {
            (west, east) = (-180, 180)
        } else if west < -180 {
            (west, east) = (west + 360, east + 360)
        } else if west > 180 {
            (west, east) = (west - 360, east - 360)
        }
        return DoorIndexBounds(
            minLat: min(minLat, other.minLat), maxLat: max(maxLat, other.maxLat), minLon: west, maxLon: east)
    }

    /// Whether the box holds `point`, or holds it a turn on: an index holding a building across
    /// the antimeridian runs on past 180 (``BuildingOutline/bounds``).
    public func contains(_ point: Coordinate) -> Bool {
        point.latitude >= minLat && point.latitude <= maxLat
            && [point.longitude, point.longitude + 360].contains { $0 >= minLon && $0 <= maxLon }
    }

    /// Metres from `point` to the nearest point of the box (0 inside); to one across the
    /// antimeridian the short way, from whichever of its ends is nearer.
    public func distance(to point: Coordinate) -> Double {
        let latitude = min(max(point.latitude, minLat), maxLat)
        guard !(point.longitude >= minLon && point.longitude <= maxLon || point.longitude + 360 <= maxLon)
        else {
            return point.distance(to: Coordinate(latitude: latitude, longitude: point.longitude))
        }
        let west = Coordinate(latitude: latitude, longitude: minLon)
        let east = Coordinate(latitude: latitude, longitude: maxLon > 180 ? maxLon - 360 : maxLon)
        return min(point.distance(to: west), point.distance(to: east))
    }

    var area: Double { (maxLat - minLat) * (maxLon - minLon) }

    /// "60.15..60.18, 24.92..24.96"; across the antimeridian "179.9998..-179.9998" (west to east).
    public var description: String {
        func f(_ v: Double) -> String { String(format: "%.4f", v) }
        return "\(f(minLat))..\(f(maxLat)), \(f(minLon))..\(f(maxLon > 180 ? maxLon - 360 : maxLon))"
    }
}

/// A point no door index covers.
public struct OutsideDoorIndex: Error, CustomStringConvertible, Equatable {
    public var point: Coordinate
    /// What the indexes cover.
    public var covered: [DoorIndexBounds]

    public var description: String {
        let boxes = covered.map(\.description)
        return covered.count == 1
            ? "outside the door index (it covers \(boxes[0]))"
            : "outside the door indexes (they cover \(boxes.joined(separator: "; ")))"
    }
}

/// Several door indexes, one a region: a file, or every `*.db` in a directory. Each lookup
/// goes to the index whose bounds hold the point and which has a building there (boxes
/// overlap); a search to the nearest.
///
/// Not thread-safe (one SQLite connection per index): use one per thread.
public final class DoorIndexes {
    /// The indexes, by file name.
    public let indexes: [DoorIndex]
    /// The file or directory they were opened from.
    public let path: String
    /// The `*.db` files of the directory that are no door index of this version (notes, an
    /// empty file, an old schema), each with why, and its door indexes not named `*.db`
    /// (``DoorIndexError/notNamedDB(path:suggested:)``): skipped, for the caller to warn about.
    /// One stray file made every lookup fail before; an index named `x.sqlite` was passed
    /// over without a word.
    public let skipped: [DoorIndexError]

    /// Opens the index file at `path`, or every `*.db` file in the directory at `path`,
    /// skipping (``skipped``) those that are no door index.
    /// - Throws: ``DoorIndexError/notAnIndex(path:reason:)`` for a missing path, a file that
    ///   is no door index, or a directory where no `*.db` file is one.
    public init(path: String) throws(DoorIndexError) {
        self.path = path
        // The real reason: before, a folder that could not be entered was "no such file".
        if let problem = FileDiagnostics.unreadable(path, directoryAllowed: true) {
            throw .notAnIndex(path: path, reason: problem)
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        guard isDirectory.boolValue else {
            indexes = [try DoorIndex(path: path)]
            skipped = []
            return
        }
        let names = Self.indexNames(inDirectory: path)
        // Copies kept beside an index are named only when they are all there is.
        let misnamed = Self.misnamedIndexes(inDirectory: path, copies: names.isEmpty)
        guard !names.isEmpty else {
            if misnamed.count == 1 { throw misnamed[0] }
            throw .notAnIndex(
                path: path,
                reason: "a directory with no *.db file"
                    + (misnamed.isEmpty ? "" : " (\(misnamed.map(\.description).joined(separator: "; ")))"))
        }
        var opened: [DoorIndex] = []
        var skipped = misnamed
        for name in names {
            do { opened.append(try DoorIndex(path: "\(path)/\(name)")) } catch { skipped.append(error) }
        }
        guard !opened.isEmpty else {
            if skipped.count == 1 { throw skipped[0] }
            throw .notAnIndex(
                path: path,
                reason:
                    "none of its *.db files is a door index (\(skipped.map(\.description).joined(separator: "; ")))"
            )
        }
        indexes = opened
        self.skipped = skipped
    }

    /// The names of the files a directory of indexes is read from: its `*.db` files, sorted.
    public static func indexNames(inDirectory path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".db") }
            .sorted()
    }

    /// The door indexes in the directory at `path` not named `*.db`, as errors naming each and
    /// the name to give it (`x.sqlite` → `x.db`, or a name not taken). An import's temporary
    /// file (`x.db.tmp-…`) is none: it is renamed into place when complete. Nor, unless
    /// `copies`, is a copy kept beside an index, an index's name and more (`x.db.bak`,
    /// `x.db~`): only `*.db` files are read so that it is no second region (before, it was
    /// warned about on every lookup, "rename it x.db.db to use it"); named, its name is the
    /// index's (`x.db`).
    static func misnamedIndexes(inDirectory path: String, copies: Bool) -> [DoorIndexError] {
        let all = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        return all.filter { !$0.hasSuffix(".db") && !$0.contains(".db.tmp-") }.compactMap { name in
            let copied = Self.indexName(ofCopy: name)
            guard copies || copied == nil, DoorIndex.isDoorIndex("\(path)/\(name)") else { return nil }
            let dot = name.dropFirst().lastIndex(of: ".") ?? name.endIndex
            let stem = copied.map { $0.dropLast(".db".count) } ?? name[..<dot]
            var suggested = String(stem) + ".db"
            var n = 2
            while all.contains(suggested) {
                suggested = "\(stem)-\(n).db"
                n += 1
            }
            return .notNamedDB(path: "\(path)/\(name)", suggested: suggested)
        }
    }

    /// `x.db` for `x.db.bak`, `x.db~`, `x.db-old`: the index name a file's name starts with,
    /// followed by anything but a letter or digit; nil for any other name.
    static func indexName(ofCopy name: String) -> String? {
        var rest = name[...]
        while let db = rest.range(of: ".db") {
            if db.lowerBound > name.startIndex, let next = name[db.upperBound...].first,
                !next.isLetter && !next.isNumber
            {
                return String(name[..<db.upperBound])
            }
            rest = name[db.upperBound...]
        }
        return nil
    }

    /// Every index's bounds.
    public var covered: [DoorIndexBounds] { indexes.compactMap(\.bounds) }

    /// The indexes whose bounds hold `point`, the smallest box first.
    public func holding(_ point: Coordinate) -> [DoorIndex] {
        indexes.filter { $0.bounds?.contains(point) == true }
            .enumerated().sorted { a, b in
                a.element.bounds!.area != b.element.bounds!.area
                    ? a.element.bounds!.area < b.element.bounds!.area : a.offset < b.offset
            }.map(\.element)
    }

    /// The index that answers for `point`: of those whose bounds hold it, smallest box first,
    /// the first with a building containing the point; else, of those and the ones whose box
    /// comes within reach (`radius`, at least ``DoorIndex/nearestOutlineMetres``; nearest
    /// first), the one with the nearest outline within ``DoorIndex/nearestOutlineMetres``;
    /// else the first with an entrance within `radius` metres; else the smallest box holding it.
    ///
    /// Regional boxes overlap (Busan's box reaches into Gyeongsangnam-do's), and a box holds
    /// more than its region: the smallest box alone answered "no building" for a building
    /// only the larger region's index holds. Side by side, the building nearest the point may
    /// be in a box that ends short of it (before: not asked; no building, no door).
    /// - Throws: ``OutsideDoorIndex`` when no index's bounds hold the point and none within
    ///   reach has a building or an entrance near it; SQLite errors.
    public func index(at point: Coordinate, radius: Double = 150) throws -> DoorIndex {
        let holding = holding(point)
        let reach = max(radius, DoorIndex.nearestOutlineMetres)
        let beside = indexes.compactMap { index in
            index.bounds.map { (index, $0.distance(to: point)) }
        }.filter { pair in pair.1 <= reach && !holding.contains { $0 === pair.0 } }
            .sorted { $0.1 < $1.1 }.map(\.0)
        let asked = holding + beside
        if holding.count == 1 && beside.isEmpty { return holding[0] }
        for index in holding where try index.building(at: point) != nil { return index }
        var nearest: (index: DoorIndex, metres: Double)?
        for index in asked {
            if let building = try index.nearestBuilding(to: point),
                building.metres < nearest?.metres ?? .infinity
            {
                nearest = (index, building.metres)
            }
        }
        if let nearest { return nearest.index }
        // Usable ones: an index whose only entrance near is an emergency exit gives no door
        // (before: it was chosen, and the walker got none while another index had a main door).
        if let index = try asked.first(where: {
            try $0.entrances(within: radius, of: point).contains { OSMDoors.isUsable($0.tags) }
        }) {
            return index
        }
        guard let smallest = holding.first else { throw OutsideDoorIndex(point: point, covered: covered) }
        return smallest
    }

    /// The index that answers for `point` (``index(at:radius:)``), else the one whose box is
    /// nearest.
    /// - Throws: SQLite errors.
    public func nearest(to point: Coordinate) throws -> DoorIndex? {
        do { return try index(at: point) } catch is OutsideDoorIndex {}
        return indexes.min {
            ($0.bounds?.distance(to: point) ?? .infinity) < ($1.bounds?.distance(to: point) ?? .infinity)
        }
    }

    /// ``DoorIndex/doors(near:radius:)`` in the index that answers for `point`
    /// (``index(at:radius:)``).
    /// - Throws: ``OutsideDoorIndex`` when no index covers the point; SQLite errors.
    public func doors(near point: Coordinate, radius: Double = 150) throws -> DoorsNearResult {
        try index(at: point, radius: radius).doors(near: point, radius: radius)
    }

    /// The ranked doors of the building `osm` names (``DoorIndex/doors(ofBuilding:near:radius:)``),
    /// from the first index holding it (those whose box holds `point` first); none does, or no
    /// `osm`: ``doors(near:radius:)``.
    /// - Throws: ``OutsideDoorIndex`` when no index holds the building and none covers the
    ///   point; SQLite errors.
    public func doors(
        ofBuilding osm: String?, near point: Coordinate, radius: Double = 150
    ) throws
        -> DoorsNearResult
    {
        if let osm, let (index, building) = try building(osm: osm, near: point) {
            return try index.doors(of: building)
        }
        return try doors(near: point, radius: radius)
    }

    /// The building `osm` names and the index holding it: of those whose box holds `point`
    /// first, then the others; nil when none does.
    func building(osm: String, near point: Coordinate) throws -> (index: DoorIndex, building: Building)? {
        let holding = holding(point)
        for index in holding + indexes.filter({ index in !holding.contains { $0 === index } }) {
            if let building = try index.building(osm: osm) { return (index, building) }
        }
        return nil
    }

    /// ``DoorIndex/search(_:near:limit:)`` in every index, merged in the order one index sorts
    /// in (``search(_:near:limit:in:)``). Before, with `near`, only the index nearest to it was
    /// asked: beside another region's box (or inside both), that region's buildings near the
    /// point were not found.
    ///
    /// A query that matches nothing in any index is looked for again in its shorter address
    /// forms (``addressForms(_:)``: "서울특별시 중구 세종대로 110" → "세종대로 110"), the first that
    /// matches anything answering; each match then names the form in `matchedQuery`. Before
    /// stop 43 nothing was found, and for a moment each index dropped words on its own, so an
    /// index that matched nothing as written outranked the one that did.
    /// - Throws: ``DoorIndexError/queryTooLong(characters:)`` for a query longer than
    ///   ``DoorIndex/longestQuery``; SQLite errors.
    public func search(_ query: String, near: Coordinate? = nil, limit: Int = 10) throws -> [BuildingMatch] {
        guard query.count <= DoorIndex.longestQuery else {
            throw DoorIndexError.queryTooLong(characters: query.count)
        }
        let found = try searchAsWritten(query, near: near, limit: limit)
        guard found.isEmpty else { return found }
        for form in Self.shorterForms(query) {
            let shorter = try Self.search(
                form.text, near: near, limit: limit, in: indexes, bareNumber: form.bareNumber,
                numberRange: form.numberRange)
            if !shorter.isEmpty {
                return shorter.map {
                    var match = $0
                    match.matchedQuery = form.text
                    return match
                }
            }
        }
        return []
    }

    /// The shorter forms of an address to look for when it matches nothing as written,
    /// longest first (``SearchText/addressForms(_:)``): without a neighbourhood or postcode in
    /// parentheses and commas, then without its leading Korean region words one at a time
    /// while a house number is left ("서울특별시 중구 세종대로 110" → "중구 세종대로 110" → "세종대로
    /// 110"), then, of each, ending at the house number ("Kaivokatu 10, 00100 Helsinki" →
    /// "Kaivokatu 10", "세종대로 110 3층" → "세종대로 110", "Mannerheimintie 5 A 12" →
    /// "Mannerheimintie 5 A" → "Mannerheimintie 5"); none for a query that is no such address.
    public static func addressForms(_ query: String) -> [String] { SearchText.addressForms(query) }

    /// ``addressForms(_:)`` with what each must hold to (``AddressForm``): searched with
    /// ``search(_:near:limit:in:bareNumber:numberRange:)``.
    public static func shorterForms(_ query: String) -> [AddressForm] { SearchText.shorterForms(query) }

    /// ``search(_:near:limit:)`` of the query as written.
    private func searchAsWritten(_ query: String, near: Coordinate?, limit: Int) throws -> [BuildingMatch] {
        try Self.search(query, near: near, limit: limit, in: indexes)
    }

    /// ``DoorIndex/search(_:near:limit:)`` of the query as written in each of `indexes`, merged
    /// in the order one index sorts in (``SearchRank``): quality; then, with `near`, the nearer
    /// centroid, a match only by a place inside counting ``BuildingMatch/insideSlackMetres``
    /// further away, and without, own before inside; then the closer in length to the query;
    /// then the OSM id (ways before relations). The same building (its OSM id,
    /// ``sameBuildingMetres``) in overlapping indexes (a city's inside its province's, two copies
    /// of one) is listed once, where it ranks best (the first of `indexes` in a tie); before,
    /// twice, taking two of `limit`. Each index's first `limit` hold all it gives to the merged
    /// first `limit`. (Before, ties went by file name, so "a.db"'s building 7 came before
    /// "b.db"'s building 3.)
    /// `bareNumber`: the house number without a letter after it (``AddressForm/bareNumber``);
    /// `numberRange`: the range written that it is an end of (``AddressForm/numberRange``).
    package static func search(
        _ query: String, near: Coordinate?, limit: Int, in indexes: [DoorIndex], bareNumber: Bool = false,
        numberRange: ClosedRange<Int>? = nil
    ) throws -> [BuildingMatch] {
        merged(
            try indexes.flatMap {
                try $0.search(
                    query, near: near, limit: limit, bareNumber: bareNumber, numberRange: numberRange)
            },
            near: near, limit: limit)
    }

    /// The first `limit` of `all` in the order one index sorts in (``search(_:near:limit:in:)``),
    /// each building once (``onceEach(_:)``).
    static func merged(_ all: [BuildingMatch], near: Coordinate?, limit: Int) -> [BuildingMatch] {
        // The centroid's distance, as one index orders by (`metres` is 0 inside the outline).
        let ranks = all.map { match in
            SearchRank(
                quality: match.quality, inside: match.inside,
                metres: near.map { match.building.centroid.distance(to: $0) }, lengthGap: match.lengthGap,
                row: match.row)
        }
        let ranked = all.indices.sorted { a, b in (ranks[a], a) < (ranks[b], b) }.map { all[$0] }
        return Array(onceEach(ranked).prefix(limit))
    }

    /// Centroids of one OSM id at most this far apart are one building (metres): two imports
    /// of it may differ by an edit between them, or by the part of its outline an extract's
    /// edge cut off. The same id farther off is another file's: JOSM's new elements are
    /// numbered -1, -2… in each file.
    package static let sameBuildingMetres = 1_000.0

    /// `matches` with each building (its OSM id, ``sameBuildingMetres``) only where it first
    /// comes.
    package static func onceEach(_ matches: [BuildingMatch]) -> [BuildingMatch] {
        var seen: [String: [Coordinate]] = [:]
        return matches.filter { match in
            let centroid = match.building.centroid
            if seen[match.osm, default: []].contains(where: {
                $0.distance(to: centroid) <= sameBuildingMetres
            }) {
                return false
            }
            seen[match.osm, default: []].append(centroid)
            return true
        }
    }
}
