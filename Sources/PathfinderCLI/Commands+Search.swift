import Foundation
import Gazetteer

extension Commands {
    static let search = Command(
        name: "search",
        summary: "finds places by name: continents, countries, regions, cities, airports",
        help: """
            Usage: pathfinder search QUERY… [--limit N] [--db FILE]
                   pathfinder search --stdin [--limit N] [--db FILE] [--timing]

            Prints one place a line, best first:
              {"kind": …, "id": …, "name": …, "ancestry": […], "lat": …, "lon": …}
            Case, accents and punctuation do not matter; every word is a prefix.
            Exact names (and IATA/ICAO codes) first, then prefixes, then other matches;
            bigger places first among equals.
              --limit N   at most N places (default 10)
              --db FILE   gazetteer database (default: artifacts/gazetteer/gazetteer.sqlite)
              --stdin     one query a line in; one JSON array of places a line out
              --timing    with --stdin: per-query latency p50/p99 on stderr
            """
    ) { arguments, console in
        var arguments = arguments
        let limit =
            try arguments.option("--limit", expected: "a positive integer") {
                Int($0).flatMap { $0 > 0 ? $0 : nil }
            } ?? 10
        let path = try arguments.option("--db") ?? GazetteerDatabase.defaultPath()
        let stdin = try arguments.flag("--stdin")
        let timing = try arguments.flag("--timing")
        let words = arguments.positionals()
        try arguments.finish()
        if stdin {
            guard words.isEmpty else {
                throw CLIError.usage("pathfinder search: give QUERY or --stdin, not both")
            }
            let db = try GazetteerCLI.open(path, command: "search")
            let clock = ContinuousClock()
            var latencies: [Duration] = []
            while let query = readLine(strippingNewline: true) {
                let t0 = clock.now
                let hits = try db.search(query, limit: limit)
                latencies.append(clock.now - t0)
                console.line("[" + hits.map(\.json).joined(separator: ",") + "]")
            }
            if timing, !latencies.isEmpty {
                let sorted = latencies.sorted()
                func ms(_ q: Double) -> String {
                    let d = sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
                    return String(
                        format: "%.3f",
                        (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18) * 1000)
                }
                console.error(
                    "pathfinder search: timing queries \(sorted.count) p50 \(ms(0.5)) ms p99 \(ms(0.99)) ms max \(ms(1)) ms"
                )
            }
            return 0
        }
        guard !words.isEmpty else { throw CLIError.usage("pathfinder search: expected QUERY or --stdin") }
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
