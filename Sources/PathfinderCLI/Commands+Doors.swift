import Arrival
import EntranceIndex
import Foundation
import Geo

extension Commands {
    static let doors = Command(
        name: "doors",
        summary: "OpenStreetMap doors: build the offline door index, ask for a building's doors, search",
        help: """
            Usage: pathfinder doors import FILE --out DB [--low-memory]
                   pathfinder doors near LAT LON [--radius M] [--db DB|DIR]
                   pathfinder doors search QUERY… [--near LAT LON] [--limit N] [--db DB|DIR]

            import   reads OpenStreetMap data — .osm.pbf (streamed through osmium-tool, any
                     size up to a country), OSM XML or Overpass API JSON — and writes its
                     entrance nodes, building outlines and a search index of names and
                     addresses to a SQLite door index. The index appears only when
                     complete; a failed import leaves no file. Progress on stderr. An
                     existing DB is replaced only if it is a door index; a symbolic link
                     is written through (its target replaced, the link kept).
              --low-memory  .osm.pbf without osmium's tags-filter, which holds ≈ 600 MB on
                            real OpenStreetMap data: a city in tens of MB (16 bytes a node of
                            the extract), so not for a country. Chosen by itself with less
                            than 1.5 GB free.
            near     prints the ranked doors of the building at LAT LON (the one containing
                     the point, or the nearest outline within 50 m), one Door JSON a line,
                     best first. With no building there, the entrances within --radius
                     metres (default 150). Which building was found goes to stderr. A point
                     outside every index exits 1 saying what the index covers.
            search   buildings by name or address ("세종대로 110", "10 Quai Jean-Charles Rey",
                     a shop inside, an entrance's name or ref), one JSON a line, best first:
                     {"osm", "name", "address", "lat", "lon", "doors", "metres"}; a name or
                     address not known is null; "metres" only with --near (LAT LON, two
                     numbers): the nearer first within a match kind, a building matched
                     only by a shop inside counting \(Int(BuildingMatch.insideSlackMetres)) m further; without it, the
                     building's own name or address first. A house number is a whole
                     word ("Mannerheimintie 1" is not 10); an address with its region,
                     postcode, city, staircase or flat that matches nothing is looked
                     for by its street and number, said on stderr. A QUERY of more
                     than \(DoorIndex.longestQuery) characters exits 2.
              --db DB|DIR  a door index, or a directory of them (one per region: near asks
                           those covering the point, search all, each building listed
                           once where regions overlap); default artifacts/doors/helsinki.db
            """
    ) { arguments, console in
        var argv = arguments.remaining
        try joinNear(&argv)
        var arguments = Arguments(argv, command: "pathfinder doors")
        // Options first: positionals() would otherwise take their values for words.
        let out = try arguments.option("--out")
        let radius = try arguments.option("--radius", expected: "metres (a number ≥ 0)") {
            Arguments.decimal($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        }
        let db = try arguments.option("--db")
        let near = try arguments.option("--near", expected: "LAT LON in degrees") {
            Arguments.coordinate($0).map { Coordinate(latitude: $0.0, longitude: $0.1) }
        }
        let limit = try arguments.option("--limit", expected: "a whole number ≥ 1") {
            Int($0).flatMap { $0 >= 1 ? $0 : nil }
        }
        let lowMemory = try arguments.flag("--low-memory")
        let words = arguments.positionals()
        try arguments.finish()
        // Which subcommand each option belongs to, for the message when it is misplaced.
        let owners = [
            "--out": "`doors import`", "--radius": "`doors near`", "--db": "`doors near` and `doors search`",
            "--near": "`doors search`", "--limit": "`doors search`", "--low-memory": "`doors import`",
        ]
        func only(_ given: [String: Bool], in sub: String) throws(CLIError) {
            for (name, isGiven) in given.sorted(by: { $0.key < $1.key }) where isGiven {
                throw CLIError.usage(
                    "pathfinder doors \(sub): \(name) belongs to \(owners[name] ?? "another subcommand")")
            }
        }
        switch words.first {
        case "import":
            try only(
                [
                    "--radius": radius != nil, "--db": db != nil, "--near": near != nil,
                    "--limit": limit != nil,
                ], in: "import")
            guard let out else { throw CLIError.usage("pathfinder doors import: --out is required") }
            guard words.count == 2 else {
                throw CLIError.usage(
                    "pathfinder doors import: expected <FILE>, got \(words.count - 1) arguments")
            }
            return try importDoors(words[1], out: out, lowMemory: lowMemory ? true : nil, console: console)
        case "near":
            try only(
                [
                    "--out": out != nil, "--near": near != nil, "--limit": limit != nil,
                    "--low-memory": lowMemory,
                ], in: "near")
            guard words.count == 3 else {
                throw CLIError.usage(
                    "pathfinder doors near: expected <LAT> <LON>, got \(words.count - 1) arguments")
            }
            guard let lat = Arguments.decimal(words[1]), let lon = Arguments.decimal(words[2]),
                Coordinate(latitude: lat, longitude: lon).isValid
            else {
                throw CLIError.usage(
                    "pathfinder doors near: \"\(words[1]) \(words[2])\" is not LAT LON in degrees (−90…90, −180…180)"
                )
            }
            return try Self.near(
                Coordinate(latitude: lat, longitude: lon), radius: radius ?? 150, db: db, console: console)
        case "search":
            try only(
                ["--out": out != nil, "--radius": radius != nil, "--low-memory": lowMemory], in: "search")
            let query = words.dropFirst().joined(separator: " ")
            guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CLIError.usage("pathfinder doors search: expected a QUERY (a name or an address)")
            }
            return try search(query, near: near, limit: limit ?? 10, db: db, console: console)
        default:
            throw CLIError.usage(
                "pathfinder doors: expected `import`, `near` or `search` (see pathfinder doors --help)")
        }
    }

    /// `--near LAT LON` (two words) becomes `--near=LAT,LON` for the one-value parser; a word
    /// that is not its coordinate is named (before, a bad LON left `--near "LAT"`, and the
    /// message named the good value). `--near LAT,LON` and `--near=…` are left to the parser.
    static func joinNear(_ argv: inout [String]) throws(CLIError) {
        guard let i = argv.firstIndex(of: "--near"), i + 1 < argv.count, !argv[i + 1].hasPrefix("--"),
            !argv[i + 1].contains(",")
        else { return }
        let lat = argv[i + 1]
        guard i + 2 < argv.count, !argv[i + 2].hasPrefix("--") else {
            throw .usage(
                "pathfinder doors: --near needs LAT LON, two numbers in degrees (got only \"\(lat)\")")
        }
        let lon = argv[i + 2]
        var wrong: [String] = []
        if Arguments.decimal(lat).map({ abs($0) <= 90 }) != true {
            wrong.append("\"\(lat)\" is not a latitude (−90…90)")
        }
        if Arguments.decimal(lon).map({ abs($0) <= 180 }) != true {
            wrong.append("\"\(lon)\" is not a longitude (−180…180)")
        }
        guard wrong.isEmpty else {
            throw .usage("pathfinder doors: --near \(lat) \(lon): \(wrong.joined(separator: "; "))")
        }
        argv.replaceSubrange(i...(i + 2), with: ["--near=\(lat),\(lon)"])
    }

    /// The index (or folder of indexes) `--db` names, else the data directory's. A bad `--db` is
    /// bad input (exit 2); a missing installed one is a run-time failure (exit 1), as the
    /// gazetteer's is.
    /// A `*.db` file of the directory that is no door index is skipped with a warning on
    /// stderr naming it and why (before, one stray file failed every lookup, exit 2).
    private static func open(
        _ explicit: String?, _ sub: String, console: Console
    ) throws(CLIError) -> DoorIndexes {
        let db: String
        if let explicit {
            db = explicit
        } else {
            do { db = try Artifacts.path("doors/helsinki.db") } catch {
                throw error.naming("pathfinder doors \(sub)")
            }
        }
        do {
            let indexes = try DoorIndexes(path: db)
            for skipped in indexes.skipped {
                console.error("pathfinder doors \(sub): warning: skipped \(skipped)")
            }
            return indexes
        } catch {
            throw error.isBadInput && explicit != nil
                ? .usage("pathfinder doors \(sub): \(error)")
                : .runtime(
                    "pathfinder doors \(sub): \(error)\(explicit == nil ? " (set PATHFINDER_DATA, or give --db)" : "")"
                )
        }
    }

    /// One search answer as its JSON line: every key of the contract's, an unknown `name` or
    /// `address` as `null` (as `where` writes what it does not know); `metres` only with `--near`.
    private struct SearchLine: Encodable {
        var osm: String
        var name: String?
        var address: String?
        var lat: Double
        var lon: Double
        var doors: Int
        var metres: Double?

        private enum CodingKeys: String, CodingKey { case osm, name, address, lat, lon, doors, metres }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(osm, forKey: .osm)
            try c.encode(name, forKey: .name)
            try c.encode(address, forKey: .address)
            try c.encode(lat, forKey: .lat)
            try c.encode(lon, forKey: .lon)
            try c.encode(doors, forKey: .doors)
            try c.encodeIfPresent(metres, forKey: .metres)
        }
    }

    private static func search(
        _ query: String, near: Coordinate?, limit: Int, db: String?, console: Console
    ) throws(CLIError) -> Int32 {
        let indexes = try open(db, "search", console: console)
        do {
            let matches = try indexes.search(query, near: near, limit: limit)
            for m in matches {
                console.line(
                    try JSONIO.line(
                        SearchLine(
                            osm: m.osm, name: m.building.name, address: m.address,
                            lat: m.building.centroid.latitude, lon: m.building.centroid.longitude,
                            doors: m.doors,
                            metres: m.metres.map { ($0 * 10).rounded() / 10 })))
            }
            if let form = matches.first?.matchedQuery {
                // Said, not passed off as a match of what was typed: the words dropped were
                // the ones that could have told two places apart.
                console.error(
                    "pathfinder doors search: nothing matches \"\(query)\"; \(matches.count) buildings match \"\(form)\""
                )
            } else {
                console.error("pathfinder doors search: \(matches.count) buildings match \"\(query)\"")
            }
            return 0
        } catch let error as DoorIndexError where error == .queryTooLong(characters: query.count) {
            throw .usage("pathfinder doors search: \(error)")
        } catch {
            throw .runtime("pathfinder doors search: \(db ?? "the door index"): \(error)")
        }
    }

    private static func importDoors(
        _ input: String, out: String, lowMemory: Bool?, console: Console
    ) throws(CLIError) -> Int32 {
        let size = (try? FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0
        let showProgress = size >= DoorImporter.progressThreshold
        do {
            let s = try DoorImporter.importFile(input, to: out, lowMemory: lowMemory) { line in
                if showProgress { console.error("pathfinder doors import: \(line)") }
            }
            console.error(
                "pathfinder doors import: \(s.entrances) entrances (\(s.entrancesOnOutlines) on building outlines), "
                    + "\(s.buildingWays + s.buildingRelations) buildings (\(s.buildingWays) ways, "
                    + "\(s.buildingRelations) relations, \(s.withoutOutline) without nodes in the extract) → \(out)"
            )
            return 0
        } catch {
            let message = "pathfinder doors import: \(error.description)"
            throw error.isBadInput ? .usage(message) : .runtime(message)
        }
    }

    private static func near(
        _ point: Coordinate, radius: Double, db: String?, console: Console
    ) throws(CLIError) -> Int32 {
        let indexes = try open(db, "near", console: console)
        let index: DoorIndex
        do { index = try indexes.index(at: point, radius: radius) } catch let error as OutsideDoorIndex {
            throw .runtime("pathfinder doors near: \(error)")
        } catch {
            throw .runtime("pathfinder doors near: \(db ?? "the door index"): \(error)")
        }
        do {
            let result = try index.doors(near: point, radius: radius)
            if let b = result.building {
                let name = b.name.map { " \"\($0)\"" } ?? ""
                let place = b.metres == 0 ? "contains the point" : "\(Int(b.metres.rounded())) m away"
                console.error(
                    "pathfinder doors near: building \(b.kind.rawValue) \(b.id)\(name) \(place); "
                        + "\(result.doors.count) doors ranked around its centroid \(b.centroid)")
            } else {
                console.error(
                    "pathfinder doors near: no building within \(Int(DoorIndex.nearestOutlineMetres)) m; "
                        + "\(result.doors.count) doors within \(radius) m")
            }
            for door in result.doors { console.line(try JSONIO.line(door)) }
            return 0
        } catch {
            throw .runtime("pathfinder doors near: \(db ?? "the door index"): \(error)")
        }
    }
}
