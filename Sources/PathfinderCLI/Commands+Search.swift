import Foundation
import Gazetteer
import Geo
import SystemCalls

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
              --limit N   at most N places, 1…1000 (default 10)
              --db FILE   gazetteer database (default: artifacts/gazetteer/gazetteer.sqlite)
              --stdin     one query a line in; one JSON array of places a line out
              --timing    with --stdin: per-query latency p50/p99 (wall and thread CPU)
                          on stderr, after one warm-up query
            """
    ) { arguments, console in
        var arguments = arguments
        let limit =
            try arguments.option("--limit", expected: "a count, 1…1000") {
                Int($0).flatMap { (1...1_000).contains($0) ? $0 : nil }
            } ?? 10
        let path = try arguments.option("--db")
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
            // One query before the first line: prepares the cached statement and maps the
            // index's first pages, so a session's first answer costs what later ones do.
            let warmStart = clock.now
            _ = try db.search("a", limit: 1)
            let warmUp = clock.now - warmStart
            var latencies: [Duration] = []
            var cpu: [Double] = []
            while let query = readLine(strippingNewline: true) {
                let c0 = threadCPUSeconds()
                let t0 = clock.now
                let hits = try db.search(query, limit: limit)
                latencies.append(clock.now - t0)
                cpu.append(threadCPUSeconds() - c0)
                console.line("[" + hits.map(\.json).joined(separator: ",") + "]")
            }
            if timing, !latencies.isEmpty {
                let wall = latencies.map(\.inSeconds).sorted()
                let cpuSorted = cpu.sorted()
                func ms(_ values: [Double], _ q: Double) -> String {
                    String(format: "%.3f", values.quantile(q) * 1000)
                }
                // Wall time includes whatever else the machine runs; the thread's CPU time
                // is the query's own work.
                console.error(
                    "pathfinder search: timing queries \(wall.count) p50 \(ms(wall, 0.5)) ms p99 \(ms(wall, 0.99)) ms max \(ms(wall, 1)) ms; cpu p50 \(ms(cpuSorted, 0.5)) ms p99 \(ms(cpuSorted, 0.99)) ms max \(ms(cpuSorted, 1)) ms; warm-up \(ms([warmUp.inSeconds], 0)) ms"
                )
            }
            return 0
        }
        // A blank query finds nothing: said, not an empty answer with exit 0.
        guard !words.joined().allSatisfy(\.isWhitespace) else {
            throw CLIError.usage("pathfinder search: expected QUERY or --stdin")
        }
        let db = try GazetteerCLI.open(path, command: "search")
        for hit in try db.search(words.joined(separator: " "), limit: limit) { console.line(hit.json) }
        return 0
    }
}

/// Shared by the gazetteer commands.
enum GazetteerCLI {
    /// The gazetteer `--db` names (`explicit`: a bad one is bad input, exit 2, as `doors`'
    /// `--db` is), else the data directory's (missing there: a run-time failure, exit 1).
    static func open(_ explicit: String?, command: String) throws(CLIError) -> GazetteerDatabase {
        let path = explicit ?? Artifacts.gazetteer()
        func fail(_ reason: String) -> CLIError {
            let message = "pathfinder \(command): cannot open gazetteer \(path): \(reason)"
            return explicit != nil
                ? .usage(message) : .runtime(message + " (set PATHFINDER_DATA, or give --db FILE)")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw fail("no such file") }
        do { return try GazetteerDatabase(path: path) } catch { throw fail("\(error)") }
    }
}
