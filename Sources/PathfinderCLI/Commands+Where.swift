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
            polygon (at sea) country and region are null, the city is the nearest anywhere
            and "sea": true is added.
              --stdin     read "LAT LON" lines, print one answer a line in the same order
              --db FILE   gazetteer database (default: artifacts/gazetteer/gazetteer.sqlite)
            Without coordinates (`pathfinder where [--socket PATH]`) it asks the running
            daemon where the walker is.
            """
    ) { arguments, console in
        var arguments = arguments
        let original = arguments
        let stdin = try arguments.flag("--stdin")
        let path = try arguments.option("--db")
        let words = arguments.positionals()
        // No coordinates: ask the running daemon where the walker is (`whereClient`).
        if !stdin && words.isEmpty && path == nil { return try await whereClient.body(original, console) }
        try arguments.finish()
        if !stdin && words.isEmpty { throw CLIError.usage("pathfinder where: expected LAT LON or --stdin") }
        if stdin && !words.isEmpty { throw CLIError.usage("pathfinder where: give LAT LON or --stdin, not both") }
        var point: Coordinate?
        if !stdin {
            guard words.count == 2 else {
                throw CLIError.usage("pathfinder where: expected <LAT> <LON>, got \(words.count) arguments")
            }
            point = try parse(words[0], words[1], at: "argument")
        }
        let db = try GazetteerCLI.open(path ?? GazetteerDatabase.defaultPath(), command: "where")
        let geocoder = try ReverseGeocoder(database: db)
        if let point {
            console.line(try geocoder.locate(point).json)
            return 0
        }
        // Answers go out in chunks: one console write per line would dominate the run time.
        var out: [String] = []
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            guard fields.count == 2 else {
                throw CLIError.usage("pathfinder where: stdin line \(lineNumber): expected \"LAT LON\", got \"\(line)\"")
            }
            let c = try parse(String(fields[0]), String(fields[1]), at: "stdin line \(lineNumber)")
            out.append(try geocoder.locate(c).json)
            if out.count == 4096 {
                console.line(out.joined(separator: "\n"))
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { console.line(out.joined(separator: "\n")) }
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
