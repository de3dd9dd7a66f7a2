import Gazetteer

extension Commands {
    static let search = Command(
        name: "search",
        summary: "finds places by name: continents, countries, regions, cities, airports",
        help: """
            Usage: pathfinder search QUERY… [--limit N] [--db FILE]

            Prints one place a line, best first:
              {"kind": …, "id": …, "name": …, "ancestry": […], "lat": …, "lon": …}
            Case, accents and punctuation do not matter; every word is a prefix.
            Exact names (and IATA/ICAO codes) first, then prefixes, then other matches;
            bigger places first among equals.
              --limit N   at most N places (default 10)
              --db FILE   gazetteer database (default: artifacts/gazetteer/gazetteer.sqlite)
            """
    ) { arguments, console in
        var arguments = arguments
        let limit = try arguments.option("--limit", expected: "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 10
        let path = try arguments.option("--db") ?? GazetteerDatabase.defaultPath()
        let words = arguments.positionals()
        try arguments.finish()
        guard !words.isEmpty else { throw CLIError.usage("pathfinder search: expected QUERY") }
        let db = try GazetteerCLI.open(path, command: "search")
        for hit in try db.search(words.joined(separator: " "), limit: limit) { console.line(hit.json) }
        return 0
    }
}

/// Shared by the gazetteer commands.
enum GazetteerCLI {
    static func open(_ path: String, command: String) throws(CLIError) -> GazetteerDatabase {
        do { return try GazetteerDatabase(path: path) } catch {
            throw CLIError.runtime("pathfinder \(command): cannot open gazetteer \(path): \(error)")
        }
    }
}
