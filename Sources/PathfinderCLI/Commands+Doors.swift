import Arrival
import EntranceIndex
import Foundation
import Geo

extension Commands {
    static let doors = Command(
        name: "doors",
        summary: "OpenStreetMap doors: build the offline door index, ask for a building's doors",
        help: """
            Usage: pathfinder doors import FILE --out DB
                   pathfinder doors near LAT LON [--radius M] [--db DB]

            import   reads OpenStreetMap data — .osm.pbf (through osmium-tool), OSM XML or
                     Overpass API JSON — and writes its entrance nodes and building outlines
                     to a SQLite door index with R*Trees. The index appears only when
                     complete; a failed import leaves no file.
            near     prints the ranked doors of the building at LAT LON (the one containing
                     the point, or the nearest outline within 50 m), one Door JSON a line,
                     best first. With no building there, the entrances within --radius
                     metres (default 150). Which building was found goes to stderr.
              --db DB   the door index (default: artifacts/doors/helsinki.db)
            """
    ) { arguments, console in
        var arguments = arguments
        // Options first: positionals() would otherwise take their values for words.
        let out = try arguments.option("--out")
        let radius = try arguments.option("--radius", expected: "metres (a number ≥ 0)") {
            Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        }
        let db = try arguments.option("--db")
        let words = arguments.positionals()
        try arguments.finish()
        switch words.first {
        case "import":
            guard radius == nil, db == nil else {
                throw CLIError.usage("pathfinder doors import: --radius and --db belong to `doors near`")
            }
            guard let out else { throw CLIError.usage("pathfinder doors import: --out is required") }
            guard words.count == 2 else {
                throw CLIError.usage(
                    "pathfinder doors import: expected <FILE>, got \(words.count - 1) arguments")
            }
            return try importDoors(words[1], out: out, console: console)
        case "near":
            guard out == nil else {
                throw CLIError.usage("pathfinder doors near: --out belongs to `doors import`")
            }
            guard words.count == 3 else {
                throw CLIError.usage(
                    "pathfinder doors near: expected <LAT> <LON>, got \(words.count - 1) arguments")
            }
            guard let lat = Double(words[1]), let lon = Double(words[2]),
                Coordinate(latitude: lat, longitude: lon).isValid
            else {
                throw CLIError.usage(
                    "pathfinder doors near: \"\(words[1]) \(words[2])\" is not LAT LON in degrees (−90…90, −180…180)"
                )
            }
            return try near(
                Coordinate(latitude: lat, longitude: lon), radius: radius ?? 150,
                db: try db ?? Artifacts.path("doors/helsinki.db"), console: console)
        default:
            throw CLIError.usage(
                "pathfinder doors: expected `import` or `near` (see pathfinder doors --help)")
        }
    }

    private static func importDoors(_ input: String, out: String, console: Console) throws(CLIError) -> Int32
    {
        let size = (try? FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0
        let showProgress = size >= DoorImporter.progressThreshold
        do {
            let s = try DoorImporter.importFile(input, to: out) { line in
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
        _ point: Coordinate, radius: Double, db: String, console: Console
    ) throws(CLIError) -> Int32 {
        let index: DoorIndex
        do { index = try DoorIndex(path: db) } catch {
            throw error.isBadInput
                ? .usage("pathfinder doors near: \(error)") : .runtime("pathfinder doors near: \(error)")
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
            throw .runtime("pathfinder doors near: \(db): \(error)")
        }
    }
}
