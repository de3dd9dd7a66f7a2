import Arrival
import Diagnostics
import EntranceIndex
import Foundation
import Gazetteer
import Geo
import Glibc
import SQLite
import SystemCalls

/// The daemon's read-only databases, opened on first use and kept: the door indexes (OSM's
/// doors around a destination, buildings by name or address) and the gazetteer
/// (`go {"query"}`, `where`). Used only on the loop (one SQLite connection each, not shared
/// between threads).
final class DaemonLookups {
    /// A destination farther than this from the walker's fix is refused unless the request
    /// says `"far": true`: a walk to a door is a walk, and "Paris" from Helsinki is a typo
    /// or the wrong Paris.
    static let farMetres = 50_000.0

    /// The door index or directory of them, and the gazetteer: the config's, changed only by
    /// a reload (``reopen(doors:gazetteer:opened:)``).
    private(set) var doorsPath: String?
    private(set) var gazetteerPath: String?
    private var doorIndexes: DoorIndexes?
    private var gazetteer: GazetteerDatabase?

    /// Told each `*.db` file of the doors directory that is skipped as no door index, and why.
    private let warn: (String) -> Void
    /// Told when the door indexes are opened again after their files changed.
    private let info: (String) -> Void

    /// - Parameter opened: the door indexes at `doors` as the start-up check opened them
    ///   (``open(doors:)``; it said their skipped files): the first lookup uses them unless
    ///   their files changed since (before: it opened them all again).
    init(
        doors: String?, gazetteer: String?, opened: OpenedDoors? = nil,
        warn: @escaping (String) -> Void = { _ in },
        info: @escaping (String) -> Void = { _ in }
    ) {
        doorsPath = doors
        gazetteerPath = gazetteer
        if let opened, opened.indexes.path == doors {
            doorIndexes = opened.indexes
            doorFilesOpened = opened.files
        }
        self.warn = warn
        self.info = info
    }

    /// Door indexes as opened, with their files as `stat` saw them just before.
    struct OpenedDoors {
        var indexes: DoorIndexes
        var files: [DoorFile]
    }

    /// Opens the door indexes at `path`, their files (``doorFiles(_:)``) read first, so a file
    /// changed while they open is opened again at the next lookup.
    static func open(doors path: String) throws(DoorIndexError) -> OpenedDoors {
        let files = doorFiles(path)
        return OpenedDoors(indexes: try DoorIndexes(path: path), files: files)
    }

    /// OSM's ranked doors of the destination's building: the one its `osm` names (the building
    /// `go QUERY` found), else the one at its centre, from the index covering it; with no
    /// building there (``OSMAnswer/noBuilding(entrances:)``), the entrances near the centre.
    /// A building `osm` names that no index holds (imported again without it) is said
    /// (`warn`), and the centre's answered.
    /// - Throws: a message naming the index when there is none, it cannot be read, or no
    ///   index covers the destination.
    func doors(for destination: Destination) throws(LookupError) -> OSMAnswer {
        guard let doorsPath else { throw LookupError("no door index configured (\"doors\")") }
        do {
            let found = try openDoors().doors(ofBuilding: destination.osm, near: destination.center)
            if let osm = destination.osm, found.building?.osm != osm {
                warn(
                    "door index \(doorsPath): no building \(osm) (\(destination.name)); the doors at its centre"
                )
            }
            return found.answer
        } catch {
            throw LookupError("door index \(doorsPath): \(error)")
        }
    }

    /// What a building with neither a name nor an address (its own, an entrance's the query
    /// names, or a point's inside it that holds the query's house number) is called, spoken
    /// ("목적지는 이름 없는 건물.") and remembered: not the query typed, which named other buildings
    /// too and was never its name. The reply's `osm` tells which building it is.
    static let namelessBuilding = "이름 없는 건물"

    /// One place a query found.
    struct Found {
        var destination: Destination
        /// Where it came from: "doors" (a building of the door index) or "gazetteer".
        var source: String
        var address: String?
        /// "way/49209325", for a building.
        var osm: String?
        /// Metres from the walker's fix; nil without one.
        var metres: Double?
        /// The query was the whole of a name, address or code, not part of one.
        var exact = false
        /// For a door index's building: how well it matched, and whether only a place inside
        /// it did (``BuildingMatch/inside``); nil for a gazetteer place.
        var match: (quality: BuildingMatch.Quality, inside: Bool)? = nil
        /// For a gazetteer place: its kind ("city", "region", "country", "continent",
        /// "airport"), as `pathfinder search` says it; nil for a door index's building.
        var kind: String? = nil

        /// The reply's description of it.
        var json: JSONValue {
            var fields: [String: JSONValue] = [
                "name": .string(destination.name), "source": .string(source),
                "center": .from(destination.center),
            ]
            if let address { fields["address"] = .string(address) }
            if let osm { fields["osm"] = .string(osm) }
            if let metres { fields["metres"] = .number((metres).rounded()) }
            if let kind { fields["kind"] = .string(kind) }
            if let door = destination.door { fields["door"] = .from(door) }
            return .object(fields)
        }
    }

    /// What `go QUERY` chose, and what else matched.
    struct GoAnswer {
        var chosen: Found
        /// Up to three other matches, best first, for a companion app to offer.
        var alternatives: [Found]
        /// Whether a fix ordered the matches by distance (without one: the best text match).
        var nearFix: Bool
        /// The shorter form of the query that found it, when the query as written found
        /// nothing.
        var matchedQuery: String? = nil
        /// The cities or regions that form dropped that chose the place, as written
        /// ("Tampere"): the note says it was found there.
        var matchedIn: [String] = []
        /// The cities or regions that form dropped with no match there, as written ("as",
        /// "Tampere"): they chose nothing, and the note says so.
        var notMatchedIn: [String] = []

        /// The gazetteer's kinds that are an area, not one place to walk to: a walk there
        /// leads to a point the gazetteer holds for it (its biggest city's, a point inside).
        static let areaKinds: Set = ["city", "region", "country", "continent"]

        /// When the choice is a city, region, country or continent, what the reply's `note`
        /// says of it (audit 10 A10-4: before, `go "Helsinki"` led the walker to a point in a
        /// street, unsaid); nil for a building, an airport.
        var areaNote: String? {
            guard let kind = chosen.kind, Self.areaKinds.contains(kind) else { return nil }
            return "\(chosen.destination.name) is a \(kind): walking to its centre, not to a building"
                + " — which building? (go NAME or STREET NUMBER)"
        }

        /// When `query` named a street, with no house number, and one building on it was
        /// chosen by its address, what the reply's `note` says of it (audit 10 A10-8: before,
        /// "Siltavuorenpenger" walked to number 10 as if it had been asked for); nil otherwise.
        func streetNote(_ query: String) -> String? {
            guard chosen.source == "doors", chosen.match.map({ $0.quality != .exact }) == true,
                !query.contains(where: \.isNumber), let address = chosen.address
            else { return nil }
            let street = Fold.fold(query).trimmingCharacters(in: .whitespaces)
            let folded = Fold.fold(address)
            guard !street.isEmpty, folded.hasPrefix(street + " "),
                folded.dropFirst(street.count + 1).first?.isNumber == true
            else { return nil }
            let which = nearFix ? "the building on it nearest the walker" : "the best match by name"
            return "\"\(query)\" is a street: chose \(address), \(which) — give a house number for another"
        }
    }

    /// The destination for `query` near the walker at `fix`.
    ///
    /// Every door index is asked (those whose box is within ``farMetres`` of the fix first, as
    /// one index, or else the nearest: their best text matches, nearest the fix, a building
    /// matched only by a shop inside counting `BuildingMatch.insideSlackMetres` (250 m)
    /// further; the others in the same order, `DoorIndexes.search(_:near:limit:in:)`), and the
    /// gazetteer unless a door index named the query exactly within reach. In order: an exact
    /// name or address in a door index, within ``farMetres`` (or without a fix); the
    /// gazetteer's first place when its own name is the query ("Paris"); a gazetteer place
    /// named so by an alternate name or code ("헬싱키", "HEL") known to be within
    /// ``farMetres``; the near indexes' other matches, in one index's order (a whole word
    /// before the start of one, then nearest, named or not: "pizza" is the Pizza Hut's
    /// building 195 m away, not "Pizzarium" 548 m away, as a review of a named-first order
    /// found); an exact match beyond reach (another region's index); other indexes' matches;
    /// the gazetteer's other matches. A destination beyond ``farMetres`` is refused unless `far`.
    /// Without a fix, door-index matches as good as the first (the same quality, own name or a
    /// shop's inside alike) more than ``farMetres`` apart are refused, each named: which was
    /// meant cannot be told.
    /// A door index or gazetteer that is missing or unreadable is skipped; its reason is told
    /// only when nothing is found.
    /// - Throws: nothing found, the distance when too far, or, without a fix, equal matches far apart.
    ///
    /// A query that finds nothing anywhere is tried again in its shorter address forms
    /// (`DoorIndexes.addressForms`: "서울특별시 중구 세종대로 110" → "세종대로 110"); the answer
    /// then names the form in `matchedQuery`, and the reply says so.
    ///
    /// A door index's building whose door the query names (its `name`, `ref` or address:
    /// "후문", "서울특별시청 후문", "Fabianinkatu 33"; `DoorIndex.namedDoor(_:of:)`) gets that door as the destination's
    /// named door: the walk leads there first, after the walker's confirmed door and unless
    /// the walker rejected it (`ArrivalPlan.make`). Before, the building was found by that
    /// door's name and the walker led to its main door.
    func destination(for query: String, near fix: Coordinate?, far: Bool) throws(LookupError) -> GoAnswer {
        var answer = try destinationOrForm(for: query, near: fix, far: far)
        let chosen = answer.chosen.destination
        guard answer.chosen.source == "doors", let osm = chosen.osm else { return answer }
        do {
            if let door = try openDoors().namedDoor(query, ofBuilding: osm, near: chosen.center) {
                answer.chosen.destination.door = door
            }
        } catch {
            // The building was found; only its named door is not known: the walk leads as
            // without one, and the journal says why (before, nothing was said).
            warn(
                "door index \(doorsPath ?? ""): the door \"\(query)\" names in \(osm) not looked up: \(error)"
            )
        }
        return answer
    }

    /// ``destination(for:near:far:)``'s building or place, without a named door.
    private func destinationOrForm(
        for query: String, near fix: Coordinate?, far: Bool
    ) throws(LookupError)
        -> GoAnswer
    {
        do {
            return try destinationAsWritten(for: query, near: fix, far: far)
        } catch  where error.nothingFound {
            // A form that finds a place too far goes on to the next, shorter one, which may
            // find one within reach ("중구 중앙대로 10" in Busan, "중앙대로 10" here); the first
            // such refusal is said if none does (before: it stopped the search). A form found
            // in two places is the answer: a shorter form would find another building (before:
            // "Testikatu 15 B 3" walked to "Testikatu 15", both "Testikatu 15 B" only offered).
            var tooFar: LookupError?
            for form in DoorIndexes.shorterForms(query) {
                do {
                    var answer = try destinationAsWritten(
                        for: form.text, near: fix, far: far, form: form, asked: query)
                    answer.matchedQuery = form.text
                    return answer
                } catch  where error.nothingFound {
                    continue
                } catch  where error.ambiguous {
                    throw error
                } catch {
                    tooFar = tooFar ?? error
                }
            }
            throw tooFar ?? error
        }
    }

    /// ``destination(for:near:far:)`` of the query as written, or of `form`, a shorter form of
    /// `asked` (what was sent, quoted in the refusals; before: only the form, as if the family
    /// had sent that). A form's house number is bare when it dropped the letter
    /// (``AddressForm/bareNumber``), held to the range written when it is one of its ends (``AddressForm/numberRange``),
    /// and a city or region it dropped (``AddressForm/dropped``,
    /// known to the gazetteer) chooses among its matches: its matches are also looked for near
    /// that place, and those lying in its region (the gazetteer's `where`) are the only ones
    /// kept, in the usual order (before: "Kaivokatu 10, Tampere" walked to Helsinki's Kaivokatu
    /// 10). With none there it chooses nothing (a word taken for a city may be a flat's "as",
    /// and a region's outline is coarse near its border: audit 7's A7-1, A7-6).
    private func destinationAsWritten(
        for query: String, near fix: Coordinate?, far: Bool, form: AddressForm? = nil, asked: String? = nil
    ) throws(LookupError) -> GoAnswer {
        let said = asked.map { "\"\($0)\" (as \"\(query)\")" } ?? "\"\(query)\""
        let (bareNumber, numberRange) = (form?.bareNumber ?? false, form?.numberRange)
        let written: [NamedPlace] = form.map { self.places(namedBy: $0.dropped) } ?? []
        let regions = Set(written.map { $0.region })
        // The region named that it lies in, nil when in none (or none known where it lies).
        let regionNamed = { (found: Found) -> String? in
            self.regionID(at: found.destination.center).flatMap { regions.contains($0) ? $0 : nil }
        }
        // The regions named where a match lies: the matches were held to them.
        var lying: Set<String> = []
        var nearDoors: [Found] = []
        var otherDoors: [Found] = []
        var failures: [String] = []
        var opened: DoorIndexes?
        if let doorsPath {
            do {
                let indexes = try openDoors()
                opened = indexes
                if let fix, let nearest = try indexes.nearest(to: fix) {
                    // Every index whose box is within reach, as one: two regions side by side
                    // (before: the nearest index's matches came first, however far).
                    let reach = indexes.indexes.filter {
                        ($0.bounds?.distance(to: fix) ?? .infinity) <= Self.farMetres
                    }
                    let near = reach.isEmpty ? [nearest] : reach
                    nearDoors = try DoorIndexes.search(
                        query, near: fix, limit: Self.matchesPerSource, in: near, bareNumber: bareNumber,
                        numberRange: numberRange
                    )
                    .map(found)
                    // The others in the same order (a shop inside counting the slack further),
                    // each building once (overlapping indexes hold it twice), and not again when
                    // an index within reach found it (before: an alternative was the choice again).
                    otherDoors = try DoorIndexes.search(
                        query, near: fix, limit: Self.matchesPerSource + nearDoors.count,
                        in: indexes.indexes.filter { index in !near.contains { $0 === index } },
                        bareNumber: bareNumber, numberRange: numberRange
                    )
                    .filter { match in
                        !nearDoors.contains {
                            $0.osm == match.osm
                                && $0.destination.center.distance(to: match.building.centroid)
                                    <= DoorIndexes.sameBuildingMetres
                        }
                    }
                    .prefix(Self.matchesPerSource).map(found)
                } else {
                    // Without a fix no index is nearer: every one, best text match first. The
                    // query as written: its shorter forms are `destination(for:near:far:)`'s, which
                    // says which one found it (before: found here too, and the reply did not say).
                    nearDoors = try DoorIndexes.search(
                        query, near: nil, limit: Self.matchesPerSource, in: indexes.indexes,
                        bareNumber: bareNumber, numberRange: numberRange
                    )
                    .map(found)
                }
                if !written.isEmpty {
                    // Also near each place named, in every index (it may be far from the walker,
                    // or not among the first matches without a fix); of all, those in its region,
                    // in the usual order: nearest the walker with a fix (before: nearest the
                    // place's point, "Kaivokatu 10, Uusimaa" 16 km off with one 34 m away, A7-2).
                    var matches = nearDoors + otherDoors
                    for place in written {
                        for match in try DoorIndexes.search(
                            query, near: place.center, limit: Self.matchesPerSource, in: indexes.indexes,
                            bareNumber: bareNumber, numberRange: numberRange)
                        where !matches.contains(where: {
                            $0.osm == match.osm && $0.destination.center == match.building.centroid
                        }) {
                            var each = found(match)
                            each.metres = fix.map { each.destination.center.distance(to: $0) }
                            matches.append(each)
                        }
                    }
                    let there = matches.filter { found in
                        guard let region = regionNamed(found) else { return false }
                        lying.insert(region)
                        return true
                    }
                    if !there.isEmpty {
                        let ranked = Self.ranked(there, near: fix)
                        nearDoors = ranked.filter { $0.metres.map { $0 <= Self.farMetres } ?? true }
                        otherDoors = ranked.filter { $0.metres.map { $0 > Self.farMetres } ?? false }
                    }
                }
            } catch {
                failures.append("door index \(doorsPath): \(error)")
            }
        }
        let doors = nearDoors + otherDoors
        // Within reach of the fix, or not known to be beyond it (no fix); known to be within.
        let within = { (found: Found) in found.metres.map { $0 <= Self.farMetres } ?? true }
        let reached = { (found: Found) in found.metres.map { $0 <= Self.farMetres } ?? false }
        var places: [Found] = []
        if !doors.contains(where: { $0.exact && within($0) }), let gazetteerPath {
            do {
                places = try openGazetteer().search(query, limit: 5).compactMap { hit in
                    guard let lat = hit.lat, let lon = hit.lon else { return nil }
                    let center = Coordinate(latitude: lat, longitude: lon)
                    return Found(
                        destination: Destination(name: hit.name, center: center), source: "gazetteer",
                        address: nil, osm: nil, metres: fix.map { center.distance(to: $0) }, exact: hit.exact,
                        kind: hit.kind)
                }
            } catch let error as LookupError {
                failures.append(error.description)
            } catch {
                failures.append("gazetteer \(gazetteerPath): \(error)")
            }
            // Of equally named places, the one near the walker.
            if let near = places.firstIndex(where: { ($0.metres ?? .infinity) <= Self.farMetres }), near > 0,
                Fold.fold(places[near].destination.name) == Fold.fold(places[0].destination.name)
            {
                places.insert(places.remove(at: near), at: 0)
            }
        }
        // The gazetteer's first place when its own name is the query ("Paris", "Helsinki"):
        // what the family meant, refused as far rather than swapped for a shop nearby.
        // Its letters as written, case aside: "store" is not Štore (a Slovenian region), which
        // would send the walker 1 676 km for a shop's name (a review found it).
        let named = places.first.flatMap {
            $0.destination.name.compare(
                query.trimmingCharacters(in: .whitespaces), options: [.caseInsensitive, .widthInsensitive])
                == .orderedSame ? $0 : nil
        }
        let rest = Array(places.dropFirst(named == nil ? 0 : 1))
        // An alternate name or a code ("헬싱키", "HEL") counts only for a place known to be
        // within reach: a word that is an airport's code on another continent ("Rex", "Joe")
        // must not hide the cinema nearby (a review found two orders that let it: by kind
        // alone, and with every place "within reach" when there is no fix).
        let alias = rest.filter { $0.exact && reached($0) }
        let ordered =
            doors.filter { $0.exact && within($0) } + (named.map { [$0] } ?? []) + alias
            + nearDoors.filter { !$0.exact } + doors.filter { $0.exact && !within($0) }
            + otherDoors.filter { !$0.exact } + rest.filter { !($0.exact && reached($0)) }
        guard let chosen = ordered.first else {
            var error = LookupError(
                "no place called \"\(query)\" in the gazetteer or the door index"
                    + (failures.isEmpty ? "" : " (\(failures.joined(separator: "; ")))"))
            error.nothingFound = true
            throw error
        }
        // Without a fix, the first of equally good matches far apart would be a guess by OSM id:
        // the walker sent to the wrong city, and no far check once a fix comes (before: "세종대로
        // 110" chose Busan's, and at the first fix in Seoul: "…까지 삼십이만 사천삼백 미터").
        // The matches farthest from the choice are asked for as those nearest its antipode: the
        // first few by id may all be one city's (an apartment complex's buildings share its
        // address), and a search near a point reads the nearest of any number of matches.
        if fix == nil, let best = chosen.match, let opened {
            let center = chosen.destination.center
            let antipode = Coordinate(
                latitude: -center.latitude,
                longitude: center.longitude > 0 ? center.longitude - 180 : center.longitude + 180)
            let farthest: [Found] =
                (try? DoorIndexes.search(
                    query, near: antipode, limit: Self.matchesPerSource, in: opened.indexes,
                    bareNumber: bareNumber, numberRange: numberRange))?
                .map { match in
                    var place = found(match)
                    place.metres = nil
                    return place
                } ?? []
            // Own name or a shop's inside alike: a chain is mapped as either, and a building
            // named after it far away outranked its shops in the walker's city, unsaid (before:
            // "R-kioski" chose Tampere's building and sent the walker 161 km at the first fix).
            let equal = ordered.filter { $0.match?.quality == best.quality }
            let apart = farthest.filter { place in
                place.match?.quality == best.quality && (lying.isEmpty || regionNamed(place) != nil)
                    && place.destination.center.distance(to: center) > Self.farMetres
                    && !equal.contains(where: {
                        $0.osm == place.osm && $0.destination.center == place.destination.center
                    })
            }
            if !apart.isEmpty
                || equal.contains(where: { $0.destination.center.distance(to: center) > Self.farMetres })
            {
                // The choice, the far ones, then the others; four at most, each named by the gazetteer.
                throw ambiguity(said, Array((equal.prefix(1) + apart + equal.dropFirst()).prefix(4)))
            }
        }
        if let metres = chosen.metres, metres > Self.farMetres, !far {
            let km = Int((metres / 1000).rounded())
            throw LookupError(
                "\(said) found \(chosen.destination.name), \(km) km away: more than "
                    + "\(Int(Self.farMetres / 1000)) km from here; \(DaemonCore.farHint)")
        }
        // Each word as written once: those whose place held a match, and the others.
        var matchedIn: [String] = []
        var notMatchedIn: [String] = []
        for place in written where !matchedIn.contains(place.word) {
            if lying.contains(place.region) {
                matchedIn.append(place.word)
                notMatchedIn.removeAll { $0 == place.word }
            } else if !notMatchedIn.contains(place.word) {
                notMatchedIn.append(place.word)
            }
        }
        return GoAnswer(
            chosen: chosen, alternatives: Array(ordered.dropFirst().prefix(3)), nearFix: fix != nil,
            matchedIn: matchedIn, notMatchedIn: notMatchedIn)
    }

    /// Door-index `matches` in the order one index sorts in: quality; then, with a fix, the
    /// nearer to it, a match only by a place inside counting `BuildingMatch.insideSlackMetres`
    /// further, and without, own before inside; then as listed.
    private static func ranked(_ matches: [Found], near fix: Coordinate?) -> [Found] {
        let ranks = matches.map { found in
            let inside = found.match?.inside ?? false
            return (
                found.match?.quality.rawValue ?? Int.max,
                fix == nil && inside ? 1 : 0,
                fix.map {
                    found.destination.center.distance(to: $0) + (inside ? BuildingMatch.insideSlackMetres : 0)
                }
                    ?? 0
            )
        }
        return matches.indices.sorted { a, b in
            (ranks[a].0, ranks[a].1, ranks[a].2, a) < (ranks[b].0, ranks[b].1, ranks[b].2, b)
        }
        .map { matches[$0] }
    }

    /// The refusal of a query (`said`: quoted, and its form) found equally well in `places`
    /// more than ``farMetres`` apart, with no fix to choose by: each named with its city (the
    /// gazetteer's, when there is one) and offered as `alternatives` for a companion app to
    /// send back as a destination.
    private func ambiguity(_ said: String, _ places: [Found]) -> LookupError {
        var error = LookupError(
            "\(said) matches places more than \(Int(Self.farMetres / 1000)) km apart: "
                + described(places).joined(separator: "; ")
                + "; no position yet to choose the one near the walker: send it again once the walker has one "
                + "(`status` shows it), or send the place meant as a \"destination\"")
        error.alternatives = places.map(\.json)
        error.ambiguous = true
        return error
    }

    /// Each of `places` as a refusal names it: its name and address, its city (the
    /// gazetteer's, when there is one) and its coordinates.
    private func described(_ places: [Found]) -> [String] {
        places.map { place in
            let label =
                place.address.map { $0 == place.destination.name ? $0 : "\(place.destination.name), \($0)" }
                ?? place.destination.name
            let center = place.destination.center
            let city = (try? self.place(at: center)).flatMap { found in
                ["city", "region", "country"].lazy.compactMap {
                    found.objectValue?[$0]?.objectValue?["name"]?.stringValue
                }.first
            }
            // To 5 decimals (about a metre), as people read them: not "37.56999999999999".
            func degrees(_ value: Double) -> Double { (value * 100_000).rounded() / 100_000 }
            return label + (city.map { " in \($0)" } ?? "")
                + " (\(degrees(center.latitude)),\(degrees(center.longitude)))"
        }
    }

    /// A city or region that words an address form dropped name: the word as written, the
    /// region's id in the gazetteer (`where`'s `region.id`: "FI.06", "KR.11") and the place's
    /// point.
    private struct NamedPlace {
        var word: String
        var region: String
        var center: Coordinate
    }

    /// The cities and regions `words` name exactly in the gazetteer (own or alternate name,
    /// not an airport's code): "Tampere", "Helsinki", "부산광역시"; a Korean metropolitan or
    /// special city also by its short name and with 시 ("서울특별시", "서울" → "서울시": GeoNames
    /// holds that). Words with a digit (numbers, postcodes, floors) and single letters name
    /// none; without a gazetteer, none.
    private func places(namedBy words: [String]) -> [NamedPlace] {
        guard !words.isEmpty, let gazetteer = try? openGazetteer() else { return [] }
        var named: [NamedPlace] = []
        for word in words where word.count >= 2 && !word.contains(where: \.isNumber) {
            // "서울특별시" is "서울시" to GeoNames; "서울" is the start of that.
            let stem =
                Self.koreanCityEndings.first { word.hasSuffix($0) && word.count > $0.count }
                .map { String(word.dropLast($0.count)) } ?? word
            var names = [word]
            for name in [stem] + (KoreanName.isHangulOnly(stem) && !stem.hasSuffix("시") ? [stem + "시"] : [])
            where !names.contains(name) {
                names.append(name)
            }
            for asked in names {
                let hits = ((try? gazetteer.search(asked, limit: 10)) ?? []).filter {
                    $0.exact && ($0.kind == "city" || $0.kind == "region")
                }
                for hit in hits {
                    guard let lat = hit.lat, let lon = hit.lon else { continue }
                    let center = Coordinate(latitude: lat, longitude: lon)
                    guard let region = hit.kind == "region" ? hit.id : regionID(at: center),
                        !named.contains(where: { $0.region == region && $0.center == center })
                    else { continue }
                    named.append(NamedPlace(word: word, region: region, center: center))
                }
                if !hits.isEmpty { break }
            }
        }
        return named
    }

    /// What a Korean metropolitan or special city's full name adds to its short one.
    private static let koreanCityEndings = ["특별자치시", "특별자치도", "특별시", "광역시"]

    /// The gazetteer's region at `point` (`where`'s `region.id`), nil when it names none: only
    /// the boundaries holding it, asked of every match of an address written with a city
    /// (before: the whole `where` answer each time, its nearest city and a scan of every
    /// airport included, written as JSON and read back).
    private func regionID(at point: Coordinate) -> String? {
        guard let gazetteer = try? openGazetteer() else { return nil }
        return (try? ReferenceGeocoder(database: gazetteer).boundaries(point))?.region ?? nil
    }

    /// Matches asked of each door index (and the gazetteer asks 5): enough for the choice and
    /// three alternatives.
    private static let matchesPerSource = 4

    /// A door-index match as a destination: named by its name, else its address, else
    /// honestly as nameless.
    private func found(_ match: BuildingMatch) -> Found {
        let name = match.building.name ?? match.address
        return Found(
            destination: Destination(
                name: name ?? Self.namelessBuilding, center: match.building.centroid, osm: match.osm),
            source: "doors", address: match.address, osm: match.osm, metres: match.metres,
            exact: match.quality == .exact, match: (match.quality, match.inside))
    }

    /// The place at `point` (country, region, nearest city, airport) as the gazetteer's
    /// `where` answer. By SQL on each call (`ReferenceGeocoder`, the same answers): the fast
    /// path's in-memory world (35 MB) is for batches, not an all-day process.
    func place(at point: Coordinate) throws(LookupError) -> JSONValue {
        do {
            let text = try ReferenceGeocoder(database: try openGazetteer()).locate(point).json
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch let error as LookupError {
            throw error
        } catch {
            throw LookupError("gazetteer: \(error)")
        }
    }

    /// What `where` says of `place` (its ``place(at:)`` answer): the Korean names the gazetteer
    /// holds for it (``GazetteerDatabase/koreanName(kind:key:display:)``), nil when it names
    /// nothing.
    func spokenPlace(_ place: JSONValue) -> String? {
        let gazetteer = try? openGazetteer()
        return Self.spokenPlace(place) { kind, key, display in
            (try? gazetteer?.koreanName(kind: kind, key: key, display: display)) ?? nil
        }
    }

    /// `where`'s sentence, "여기는 헬싱키.": city, region and country by their Korean names
    /// (`korean(kind, key, display name)`), those without one left out; a region named after
    /// its city (Seoul-teukbyeolsi, Busan-gwangyeoksi) is that city, said once by whichever of
    /// the two has a Korean name. No Korean name at all: the most local name as written. No
    /// particle follows a name (Prompts' rule: no batchim to choose for), and English names are
    /// not strung together for espeak-ng's English voice (before: "여기는 Seoul,
    /// Seoul-teukbyeolsi, South Korea이야.").
    static func spokenPlace(_ place: JSONValue, korean: (String, String, String) -> String?) -> String? {
        func part(_ field: String) -> (korean: String?, display: String)? {
            guard let object = place.objectValue?[field]?.objectValue,
                let display = object["name"]?.stringValue, !display.isEmpty
            else { return nil }
            let key: String? =
                switch object["id"] {
                case .number(let n)?: String(Int64(n))
                case .string(let s)?: s
                default: nil
                }
            return (key.flatMap { korean(field, $0, display) }, display)
        }
        var city = part("city")
        var region = part("region")
        if let c = city, let r = region, r.display.lowercased().hasPrefix(c.display.lowercased()) {
            city = (c.korean ?? r.korean, c.display)
            region = nil
        }
        let parts = [city, region, part("country")].compactMap { $0 }
        var names = parts.compactMap(\.korean)
        if names.isEmpty, let local = parts.first { names = [local.display] }
        return names.isEmpty ? nil : "여기는 \(names.joined(separator: ", "))."
    }

    /// The door indexes, opened again when their files have changed since they were opened:
    /// a region imported into the directory while the daemon runs, or one imported again
    /// (a new file renamed into place), is used from the next lookup, and the replaced file's
    /// disk space is given back (before: the first set opened was kept until a restart).
    private func openDoors() throws -> DoorIndexes {
        guard let doorsPath else { throw LookupError("no door index configured (\"doors\")") }
        if let doorIndexes, Self.doorFiles(doorsPath) == doorFilesOpened { return doorIndexes }
        let opened = try Self.open(doors: doorsPath)
        // Said once per set opened, as the indexes are kept: the others still answer.
        for skipped in opened.indexes.skipped { warn("door index: skipped \(skipped)") }
        if doorIndexes != nil { info("door index \(doorsPath): its files changed; opened again") }
        doorIndexes = opened.indexes
        doorFilesOpened = opened.files
        return opened.indexes
    }

    /// How often, in the daemon's 1 s ticks, ``letGoOfReplacedFiles()`` looks: a `readdir` and
    /// a `stat` per file, nothing beside the loop's work; a re-import's old file is held at
    /// most this long.
    static let checkEveryTicks = 10

    /// Lets go of files replaced or changed since they were opened, without waiting for a
    /// lookup (a walk planned from remembered doors makes none, and a country's index imported
    /// again held hundreds of MB, deleted, until one came): changed door indexes are opened
    /// again now (said, as at a lookup), and a changed gazetteer is closed, to open at its
    /// next use. Door indexes that cannot be opened again are closed, said once; the next
    /// lookup tries again.
    func letGoOfReplacedFiles() {
        if let doorsPath, doorIndexes != nil {
            let files = Self.doorFiles(doorsPath)
            if files != doorFilesOpened {
                do {
                    _ = try openDoors()
                } catch {
                    doorIndexes = nil
                    doorFilesOpened = files
                    warn(
                        "door index \(doorsPath): its files changed and cannot be opened again (\(error)); closed: walks go to the remembered doors or the building's centre until it can"
                    )
                }
            }
        }
        if let gazetteerPath, gazetteer != nil, FileStamp(path: gazetteerPath) != gazetteerOpened {
            gazetteer = nil
            info("gazetteer \(gazetteerPath): its file changed; closed, opened again at its next use")
        }
    }

    /// Closes the door indexes and the gazetteer, then opens the door indexes again (SIGHUP):
    /// a file changed in a way its inode, size and time do not show, or a copy restored over
    /// it, is read from now on. The gazetteer opens again at its next use.
    /// - Returns: what was done, for the log's one line.
    func reopen() -> String { reopen(doors: doorsPath, gazetteer: gazetteerPath) }

    /// ``reopen()`` at the paths a config read again names (SIGHUP), which may be others: what
    /// was open is closed, and the door indexes at `doors` opened (`opened`, the start-up
    /// check's of those paths, is used when given).
    /// - Returns: what was done, for the log's one line.
    func reopen(doors: String?, gazetteer: String?, opened: OpenedDoors? = nil) -> String {
        let newDoors = doors != doorsPath
        let newGazetteer = gazetteer != gazetteerPath
        doorsPath = doors
        gazetteerPath = gazetteer
        doorIndexes = nil  // nothing else holds them: their files are closed now
        doorFilesOpened = []
        self.gazetteer = nil
        if let opened, let doors, opened.indexes.path == doors {
            doorIndexes = opened.indexes
            doorFilesOpened = opened.files
        }
        let gazetteerNote =
            switch (gazetteer, newGazetteer) {
            case (let path?, true): "; the gazetteer \(path) is opened at its next use"
            case (_?, false): "; the gazetteer is opened again at its next use"
            case (nil, true): "; no gazetteer"
            case (nil, false): ""
            }
        guard let doors else { return "no door index configured" + gazetteerNote }
        do {
            _ = try openDoors()
            return "door index \(doors) opened\(newDoors ? "" : " again")" + gazetteerNote
        } catch {
            return
                "door index \(doors) \(newDoors ? "cannot be opened" : "closed, and cannot be opened again"): \(error)"
                + gazetteerNote
        }
    }

    /// What was opened last: ``doorFiles(_:)`` then.
    private var doorFilesOpened: [DoorFile] = []

    /// One door index file as `stat` sees it: a file replaced or changed is another.
    struct DoorFile: Equatable {
        var name: String
        var stamp: FileStamp
    }

    /// The files `DoorIndexes` reads at `path` (a directory's `*.db` files, sorted), or the
    /// file itself: one `readdir` and a `stat` each, cheap beside a lookup.
    static func doorFiles(_ path: String) -> [DoorFile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        let names = isDirectory.boolValue ? DoorIndexes.indexNames(inDirectory: path) : [""]
        return names.compactMap { name in
            FileStamp(path: name.isEmpty ? path : path + "/" + name).map { DoorFile(name: name, stamp: $0) }
        }
    }

    private func openGazetteer() throws -> GazetteerDatabase {
        if let gazetteer { return gazetteer }
        guard let gazetteerPath else { throw LookupError("no gazetteer configured (\"gazetteer\")") }
        if let problem = FileDiagnostics.unreadable(gazetteerPath) {
            throw LookupError("gazetteer \(gazetteerPath): \(problem)")
        }
        let identity = FileStamp(path: gazetteerPath)
        let opened = try GazetteerDatabase(path: gazetteerPath)
        gazetteer = opened
        gazetteerOpened = identity
        return opened
    }

    /// The gazetteer's file as it was just before it was opened.
    private var gazetteerOpened: FileStamp?
}

/// Why a lookup gave nothing; the message goes into an error reply or the log.
struct LookupError: Error, CustomStringConvertible {
    var description: String
    /// Nothing matched the query anywhere (not: found, but too far).
    var nothingFound = false
    /// Found equally well in places too far apart to choose between without a fix
    /// (`alternatives` names them): an answer, not a reason to look further.
    var ambiguous = false
    /// The places the reply offers instead (``DaemonLookups/Found/json``): those a query
    /// matched equally well far apart, with no fix to choose by.
    var alternatives: [JSONValue] = []
    init(_ description: String) { self.description = description }
}
