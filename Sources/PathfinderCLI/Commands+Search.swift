import Diagnostics
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
              --stdin     one query a line in; one JSON array of places a line out. A line
                          that is not UTF-8 gets no answer but one error on stderr naming
                          its line number, and the command then exits 2
              --timing    with --stdin (refused without): per-query latency p50/p99 (wall
                          and thread CPU) on stderr, after one warm-up query
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
        if timing && !stdin { throw CLIError.usage("pathfinder search: --timing goes with --stdin") }
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
            var lineNumber = 0
            var badLines = 0
            let input = LineReader(FileHandle.standardInput)
            while let bytes = input.next() {
                lineNumber += 1
                // readLine() would replace bytes that are not UTF-8 and answer another query:
                // such a line is named and gets no answer, as `where --stdin` does.
                guard let query = String(validating: bytes, as: UTF8.self) else {
                    console.error(
                        "pathfinder search: stdin line \(lineNumber): not UTF-8 text (no answer for it)")
                    badLines += 1
                    continue
                }
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
                    "pathfinder search: timing queries \(wall.count) bad lines \(badLines) p50 \(ms(wall, 0.5)) ms p99 \(ms(wall, 0.99)) ms max \(ms(wall, 1)) ms; cpu p50 \(ms(cpuSorted, 0.5)) ms p99 \(ms(cpuSorted, 0.99)) ms max \(ms(cpuSorted, 1)) ms; warm-up \(ms([warmUp.inSeconds], 0)) ms"
                )
            }
            return badLines == 0 ? 0 : 2  // bad input, as CLIError.usage
        }
        // A blank query finds nothing: said, not an empty answer with exit 0.
        guard !words.joined().allSatisfy(\.isWhitespace) else {
            throw CLIError.usage("pathfinder search: expected QUERY or --stdin")
        }
        let db = try GazetteerCLI.open(path, command: "search")
        let query = words.joined(separator: " ")
        let hits = try db.search(query, limit: limit)
        for hit in hits { console.line(hit.json) }
        // Nothing found is said, as `doors search` says it (before: no output, exit 0, and no
        // word of what the gazetteer holds).
        if hits.isEmpty {
            console.error(
                "pathfinder search: no place matches \"\(query)\" (the gazetteer holds countries, regions, cities and airports, not streets or buildings: `pathfinder doors search` finds those)"
            )
        }
        return 0
    }
}

/// Standard input one line at a time, as bytes (without the "\n", or a "\r\n"), as it arrives:
/// `search --stdin` answers each line before the next is typed, and sees bytes that are not
/// UTF-8 instead of their replacements.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = Array(buffer[start..<end])
                start = newline + 1
                return line
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = handle.availableData  // what is there now; empty at the end
            if chunk.isEmpty { ended = true } else { buffer += chunk }
        }
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
        // The real reason ("permission denied"): before, "no such file" for any file not reached.
        if let problem = FileDiagnostics.unreadable(path) { throw fail(problem) }
        do { return try GazetteerDatabase(path: path) } catch { throw fail("\(error)") }
    }
}
