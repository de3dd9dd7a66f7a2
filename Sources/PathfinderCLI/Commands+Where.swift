import Foundation
import Gazetteer
import Geo

extension Commands {
    static let whereCommand = Command(
        name: "where",
        summary: "names the place at a coordinate: country, region, nearest city, airport",
        help: """
            Usage: pathfinder where LAT LON [--db FILE]
                   pathfinder where --stdin [--db FILE]

            Prints {"country": {"id", "name"}, "region": {"id", "name"},
            "city": {"id", "name", "metres"}, "airport": {"iata", "icao", "name", "metres"}}.
            Country and region come from boundary polygons (the smallest containing one
            wins); the city is the nearest one in that region (or country); an airport is
            named only within 6 km (large), 3 km (medium) or 1.5 km (others). Outside every
            polygon (at sea) country and region are null, "sea": true is added, and the
            city is the nearest within 200 km (null beyond).
            LAT and LON are decimal degrees ("60.1699", "-30", "+24.5"): no hexadecimal,
            exponent, "inf" or "nan".
              --stdin     read "LAT LON" lines, print one answer a line in the same order;
                          a bad line gets no answer but one error on stderr naming its
                          line number, and the command then exits 2
              --timing    with --stdin (refused without): print load, parse, query and
                          output seconds on stderr
              --db FILE   gazetteer database (default: artifacts/gazetteer/gazetteer.sqlite)
            Without coordinates (`pathfinder where [--socket PATH]`) it asks the running
            daemon where the walker is.
            """
    ) { arguments, console in
        var arguments = arguments
        let original = arguments
        let stdin = try arguments.flag("--stdin")
        let timing = try arguments.flag("--timing")
        let path = try arguments.option("--db")
        let socket = try arguments.option("--socket")
        let words = arguments.positionals()
        // No coordinates: ask the running daemon where the walker is (`whereClient`).
        if socket != nil || (!stdin && !timing && words.isEmpty && path == nil) {
            return try await whereClient.body(original, console)
        }
        try arguments.finish()
        if timing && !stdin { throw CLIError.usage("pathfinder where: --timing goes with --stdin") }
        if !stdin && words.isEmpty { throw CLIError.usage("pathfinder where: expected LAT LON or --stdin") }
        if stdin && !words.isEmpty {
            throw CLIError.usage("pathfinder where: give LAT LON or --stdin, not both")
        }
        var point: Coordinate?
        if !stdin {
            guard words.count == 2 else {
                throw CLIError.usage("pathfinder where: expected <LAT> <LON>, got \(words.count) arguments")
            }
            point = try parse(words[0], words[1], at: "argument")
        }
        let clock = ContinuousClock()
        let started = clock.now
        let db = try GazetteerCLI.open(path, command: "where")
        let geocoder = try ReverseGeocoder(database: db)
        // Deliberately never released: freeing ~600 000 polygon points one array at a time
        // just before the process exits costs milliseconds and returns nothing the OS
        // would not take back anyway.
        _ = Unmanaged.passRetained(geocoder)
        let loaded = clock.now
        if let point {
            console.line(try geocoder.locate(point).json)
            return 0
        }
        // All of stdin at once, split by hand: readLine per line costs more than a query.
        let input = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        var lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }  // the final newline ends the last line
        // Three passes, like a batch query: parse every line, locate every point, write every
        // answer. A bad line is reported (on stderr, by line number) and skipped, so one typo
        // in 100 000 lines costs one answer, not all of them; the exit code still says 2.
        var points: [Coordinate] = []
        points.reserveCapacity(lines.count)
        var problems: [String] = []
        for (index, line) in lines.enumerated() {
            let fields = twoFields(line)
            guard let fields else {
                let text = String(decoding: line, as: UTF8.self)
                problems.append(
                    "pathfinder where: stdin line \(index + 1): expected \"LAT LON\", got \"\(text)\"")
                continue
            }
            if let y = number(fields.0), let x = number(fields.1) {
                let c = Coordinate(latitude: y, longitude: x)
                if c.isValid {
                    points.append(c)
                    continue
                }
            }
            // Not two numbers, or out of range: the String path names the problem.
            do throws(CLIError) {
                points.append(
                    try parse(
                        String(decoding: fields.0, as: UTF8.self), String(decoding: fields.1, as: UTF8.self),
                        at: "stdin line \(index + 1)"))
            } catch {
                problems.append(error.description)
            }
        }
        if !problems.isEmpty { console.error(problems.joined(separator: "\n")) }
        let parsed = clock.now
        var answers: [ReverseGeocoder.JSONAnswer] = []
        answers.reserveCapacity(points.count)
        for point in points { answers.append(try geocoder.locateJSON(point)) }
        let queried = clock.now
        // Answers go out as bytes in chunks: one console write per line would dominate.
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        for answer in answers {
            geocoder.appendJSON(answer, to: &out)
            out.append(0x0A)
            if out.count > 1 << 20 {
                console.write(String(decoding: out, as: UTF8.self))
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { console.write(String(decoding: out, as: UTF8.self)) }
        if timing {
            func s(_ d: Duration) -> String {
                String(format: "%.4f", d.inSeconds)
            }
            console.error(
                "pathfinder where: timing points \(points.count) bad lines \(problems.count) load \(s(loaded - started)) s parse \(s(parsed - loaded)) s query \(s(queried - parsed)) s output \(s(clock.now - queried)) s total \(s(clock.now - started)) s"
            )
        }
        return problems.isEmpty ? 0 : 2  // bad input, as CLIError.usage
    }

    /// The line's two fields, separated by spaces, tabs, commas or a carriage return (runs
    /// count as one); nil unless there are exactly two. Like `split(whereSeparator:)`,
    /// without an array per line.
    private static func twoFields(_ line: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        func separator(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x2C || b == 0x0D }
        var first = 0..<0
        var second = 0..<0
        var count = 0
        var i = line.startIndex
        while i < line.endIndex, count < 3 {
            while i < line.endIndex, separator(line[i]) { i += 1 }
            guard i < line.endIndex else { break }
            let start = i
            while i < line.endIndex, !separator(line[i]) { i += 1 }
            if count == 0 { first = start..<i } else { second = start..<i }
            count += 1
        }
        guard count == 2 else { return nil }
        return (line[first], line[second])
    }

    /// What `Double(String)` reads from `field`, without making a String: `strtod` over a
    /// NUL-terminated copy, the whole field consumed. nil for anything else (then the
    /// String path decides and words the error).
    private static func number(_ field: ArraySlice<UInt8>) -> Double? {
        guard Arguments.isDecimal(field) else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: field.count + 1) { buffer in
            guard let base = buffer.baseAddress else { return nil }
            for (i, byte) in field.enumerated() { buffer[i] = CChar(bitPattern: byte) }
            buffer[field.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(base, &end)
            return end == base + field.count ? value : nil
        }
    }

    private static func parse(_ lat: String, _ lon: String, at place: String) throws(CLIError) -> Coordinate {
        guard let y = Arguments.decimal(lat), let x = Arguments.decimal(lon) else {
            throw CLIError.usage(
                "pathfinder where: \(place): \"\(lat) \(lon)\" is not two numbers in decimal degrees")
        }
        let c = Coordinate(latitude: y, longitude: x)
        guard c.isValid else {
            throw CLIError.usage("pathfinder where: \(place): \(lat) \(lon) is outside −90…90, −180…180")
        }
        return c
    }
}
