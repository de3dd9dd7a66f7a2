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
              --stdin     read "LAT LON" lines, print one answer a line in the same order
              --timing    with --stdin: print load, query and output seconds on stderr
              --db FILE   gazetteer database (default: artifacts/gazetteer/gazetteer.sqlite)
            (`pathfinder where` without coordinates asks the running daemon.)
            """
    ) { arguments, console in
        var arguments = arguments
        let stdin = try arguments.flag("--stdin")
        let timing = try arguments.flag("--timing")
        let path = try arguments.option("--db") ?? GazetteerDatabase.defaultPath()
        let words = arguments.positionals()
        try arguments.finish()
        if !stdin && words.isEmpty {
            throw CLIError.usage(
                "pathfinder where: expected LAT LON or --stdin (the daemon client is not built yet)")
        }
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
        let loaded = clock.now
        if let point {
            console.line(try geocoder.locate(point).json)
            return 0
        }
        // Answers go out as bytes in chunks: one console write per line would dominate.
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var lineNumber = 0
        var queryTime = Duration.zero
        var outputTime = Duration.zero
        // All of stdin at once, split by hand: readLine per line costs more than a query.
        let input = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        var lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }  // the final newline ends the last line
        for line in lines {
            lineNumber += 1
            let fields = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x2C || $0 == 0x0D })
            guard fields.count == 2 else {
                let text = String(decoding: line, as: UTF8.self)
                throw CLIError.usage(
                    "pathfinder where: stdin line \(lineNumber): expected \"LAT LON\", got \"\(text)\"")
            }
            let c = try parse(
                String(decoding: fields[0], as: UTF8.self), String(decoding: fields[1], as: UTF8.self),
                at: "stdin line \(lineNumber)")
            let t0 = clock.now
            let location = try geocoder.locate(c)
            let t1 = clock.now
            location.appendJSON(to: &out)
            out.append(0x0A)
            if out.count > 1 << 20 {
                console.write(String(decoding: out, as: UTF8.self))
                out.removeAll(keepingCapacity: true)
            }
            queryTime += t1 - t0
            outputTime += clock.now - t1
        }
        if !out.isEmpty { console.write(String(decoding: out, as: UTF8.self)) }
        if timing {
            func s(_ d: Duration) -> String {
                String(format: "%.4f", Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds))
            }
            console.error(
                "pathfinder where: timing points \(lineNumber) load \(s(loaded - started)) s query \(s(queryTime)) s output \(s(outputTime)) s total \(s(clock.now - started)) s"
            )
        }
        return 0
    }

    private static func parse(_ lat: String, _ lon: String, at place: String) throws(CLIError) -> Coordinate {
        guard let y = Double(lat), let x = Double(lon) else {
            throw CLIError.usage("pathfinder where: \(place): \"\(lat) \(lon)\" is not two numbers")
        }
        let c = Coordinate(latitude: y, longitude: x)
        guard c.isValid else {
            throw CLIError.usage("pathfinder where: \(place): \(lat) \(lon) is outside −90…90, −180…180")
        }
        return c
    }
}
