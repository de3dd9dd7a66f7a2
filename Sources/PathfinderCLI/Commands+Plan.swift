import Arrival
import EntranceIndex
import Foundation
import Geo
import OSM
import Storage

extension Commands {
    static let plan = Command(
        name: "plan",
        summary: "prints the plan: which door first, then the others",
        help: """
            Usage: pathfinder plan --destination FILE [--memory FILE] [--osm FILE] [--now T] [--compact]

            Prints the Plan JSON for a destination: {"walkTo", "entrance", "alternatives"}.
            Order: the walker's confirmed door, the destination's own (companion's) door, then
            OpenStreetMap's doors ranked (main first; wheelchair=yes first within a rank; then
            nearer the centre). Doors within 15 m of a rejected one are dropped; doors within
            15 m of each other are one door. No door left: walk to the centre.

              --destination FILE  Destination JSON: {"name", "center": {"lat", "lon"}, "door"?}
              --memory FILE       the EntranceMemory file (read only; missing = empty; a corrupt
                                  one is reported on stderr and left alone, and the plan is made
                                  without it; a damaged building is reported and skipped, the
                                  others used)
              --osm FILE          OSM doors just read (OSM XML or Overpass JSON): the doors
                                  of the building at the centre, as a door index made from
                                  the file gives them (no building within 50 m: the doors
                                  within 150 m); without it the memory's OSM doors are used
                                  while fresh (30 days)
              --now T             ISO 8601 time with zone (default: now), for that freshness
              --compact           one line instead of indented JSON

            Never writes anything.
            """
    ) { arguments, console in
        var arguments = arguments
        let destinationPath = try arguments.required("--destination")
        let memoryPath = try arguments.option("--memory")
        let osmPath = try arguments.option("--osm")
        let now = try arguments.now()
        let compact = try arguments.flag("--compact")
        try arguments.finish()

        let destination = try CLIFiles.destination(destinationPath, command: "pathfinder plan")
        var memory = EntranceMemory()
        if let memoryPath {
            do {
                // A damaged building is skipped (and named); the others still plan.
                let read = try MemoryFile.readSalvaging(path: memoryPath)
                memory = read.memory
                for damaged in read.damaged {
                    console.error("pathfinder plan: warning: \(damaged); planning with the other buildings")
                }
            } catch {
                console.error("pathfinder plan: warning: \(error); planning without the memory")
            }
        }
        let osmDoors = try osmPath.map { path throws(CLIError) in
            try CLIFiles.osmDoors(
                path, around: destination.center, building: destination.osm, command: "pathfinder plan")
        }
        let plan = ArrivalPlan.make(destination: destination, memory: memory, osmDoors: osmDoors, now: now)
        console.line(String(decoding: try JSONIO.encoder(pretty: !compact).encode(plan), as: UTF8.self))
        return 0
    }
}

/// Reading the input files the plan and memory commands share, with their error messages.
enum CLIFiles {
    /// A Destination JSON file.
    /// - Throws: `CLIError.usage` naming the file, line and field.
    static func destination(_ path: String, command: String) throws(CLIError) -> Destination {
        do {
            return try JSONIO.read(Destination.self, from: path, what: "destination")
        } catch {
            throw .usage("\(command): \(error)")
        }
    }

    /// The ranked doors of the building at `center` (or of `osm`, the destination's building,
    /// when the file holds it) in an OSM file, as the door index made from it gives them
    /// (``DoorsInFile``): an extract holds other buildings' doors too, and
    /// ranked by kind before distance a neighbour's "main" one led (before: every entrance
    /// within 150 m of the centre, then 800 m before that).
    /// - Throws: `CLIError.usage` naming the file, line and element; `.runtime` when the
    ///   temporary index cannot be written.
    static func osmDoors(
        _ path: String, around center: Coordinate, building osm: String?, command: String
    ) throws(CLIError) -> [Door] {
        try osmFile(path, around: center, building: osm, command: command).found.doors
    }

    /// The OSM file at `path`, read, and the door index's answer around `center` in it (for
    /// `osm`, the destination's building, when the file holds it).
    static func osmFile(
        _ path: String, around center: Coordinate, building osm: String? = nil, command: String
    ) throws(CLIError) -> (data: OSMData, found: DoorsNearResult) {
        let data: OSMData
        do { data = try OSMReader.read(path: path) } catch { throw .usage("\(command): \(error)") }
        do {
            let found = try DoorsInFile.doors(
                in: data, source: path, near: center, radius: DoorsInFile.radiusMetres, building: osm)
            return (data, found)
        } catch {
            throw error.isBadInput ? .usage("\(command): \(error)") : .runtime("\(command): \(error)")
        }
    }
}
