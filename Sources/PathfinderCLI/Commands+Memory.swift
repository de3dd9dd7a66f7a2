import Arrival
import Daemon
import EntranceIndex
import Foundation
import Geo
import Storage

extension Commands {
    static let memory = Command(
        name: "memory",
        summary: "shows or changes the EntranceMemory file (show, confirm, reject, osm)",
        help: """
            Usage: pathfinder memory <subcommand> [--file M] [options]

            Subcommands:
              show     prints the memory
              confirm  "여기가 입구야": the door becomes the building's confirmed door
              reject   "여기 아니야": the door is remembered as not the way in
              osm      records OpenStreetMap's doors for the building as read at --now

            pathfinder memory show --file M
            pathfinder memory confirm --file M --name N --center LAT,LON --door LAT,LON
                [--level L] [--note S] [--label S] [--altitude METRES,ACCURACY | --no-altitude]
                [--now T]
            pathfinder memory reject --file M --name N --center LAT,LON --door LAT,LON [--now T]
            pathfinder memory osm --file M --name N --center LAT,LON --osm FILE [--now T]

              --file M          the memory file (missing = empty; written atomically, mode 0600);
                                default: the daemon's, as it finds it (the config file's
                                "memory", else $XDG_DATA_HOME/pathfinder/memory.json, else
                                ~/.local/share/pathfinder/memory.json), named on stderr
              --name N          the building's name (a centre within 120 m is the same building,
                                whatever its name)
              --center LAT,LON  the building's centre, degrees
              --door LAT,LON    the door, degrees
              --level L         the door's floor as OSM writes it ("0", "-1")
              --note S, --label S   spoken note and short name of the door
              --altitude METRES,ACCURACY   barometric altitude there, −500…9000 m above sea
                                level: it replaces the door's stored one as given; stored
                                only when accuracy ≤ 6 m (else a warning, and none kept)
              --no-altitude     clears the door's stored altitude. Without either, the same
                                door (within 15 m) keeps its stored altitude
              --osm FILE        OSM XML or Overpass JSON; the doors of the building at
                                --center in it, as a door index made from it gives them.
                                No building within 50 m of --center: nothing is stored
                                (that answer is no building's doors), exit 1
              --now T           ISO 8601 time with zone (default: now)

            confirm, reject and osm print the building as changed, marked with the version the
            edit began from ("basedOn"): a copy edited so and moved in over a running daemon's
            memory after the walker changed the building keeps the walker's answers, with the
            edit's where they do not contradict them. A memory file that does not
            parse is renamed aside (M.corrupt-<time>) with a warning, and they carry on with an
            empty memory; one with some damaged buildings is copied aside and they carry on with
            the buildings that parse; show reports either and exits 2. A file that exists but
            cannot be read (permissions, I/O) is never written over: exit 1. Missing
            directories above M are made (mode 0700). Commands run at once on one file take
            turns (a lock on its folder), so none writes over another's change; a change to the
            memory a running daemon keeps is refused (exit 1: stop the daemon first), since the
            daemon saves what it holds and would write over it.
            """
    ) { arguments, console in
        var arguments = arguments
        let names = ["show", "confirm", "reject", "osm"]
        guard let sub = arguments.subcommand() else {
            throw CLIError.usage(
                "pathfinder memory: expected a subcommand (\(names.joined(separator: ", ")))")
        }
        var args = Arguments(arguments.remaining, command: "pathfinder memory \(sub)")
        switch sub {
        case "show": return try MemoryCommands.show(&args, console)
        case "confirm", "reject", "osm": return try MemoryCommands.change(sub, &args, console)
        default:
            throw CLIError.usage(
                "pathfinder memory: unknown subcommand \"\(sub)\" (\(names.joined(separator: ", ")))")
        }
    }
}

/// The bodies of `pathfinder memory …`.
enum MemoryCommands {
    /// `--file`, else the daemon's memory as the daemon finds it (the default config file's
    /// `memory`, else `$XDG_DATA_HOME/pathfinder/memory.json`), said on stderr: the family
    /// need not find the path themselves (audit 10 A10-7; before, "--file is required").
    static func memoryFile(_ arguments: inout Arguments, _ console: Console) throws(CLIError) -> String {
        if let path = try arguments.option("--file") { return path }
        let (path, warning) = DaemonConfig.clientMemory()
        if let warning { console.error("\(arguments.command): warning: \(warning)") }
        // Only what is known: the file a daemon run with the default config uses. A daemon run
        // with --memory or another --config uses its own, and none may run at all (audit 11
        // A11-4: "the daemon's memory" was said of a file no daemon used).
        let absent = FileManager.default.fileExists(atPath: path) ? "" : " (no memory file there yet)"
        console.error(
            "\(arguments.command): no --file: using \(path), the memory of a daemon run with the default config\(absent)"
        )
        return path
    }

    static func show(_ arguments: inout Arguments, _ console: Console) throws(CLIError) -> Int32 {
        let path = try memoryFile(&arguments, console)
        try arguments.finish()
        do {
            let memory = try MemoryFile.read(path: path)
            console.line(String(decoding: try MemoryFile.encode(memory), as: UTF8.self).trimmingWhitespace())
        } catch let error as MemoryFileError {
            // A file that cannot be read (permissions, a directory) is a failure at run time, as
            // for `confirm` and `replay`; one that does not parse is bad input.
            if error.kind == .unreadable { throw .runtime("pathfinder memory show: \(error)") }
            throw .usage("pathfinder memory show: \(error)")
        } catch {
            throw .runtime("pathfinder memory show: \(error)")
        }
        return 0
    }

    static func change(
        _ sub: String, _ arguments: inout Arguments, _ console: Console
    ) throws(CLIError) -> Int32 {
        let command = arguments.command
        let path = try memoryFile(&arguments, console)
        let name = try arguments.required("--name")
        guard !name.allSatisfy(\.isWhitespace) else {
            throw .usage("\(command): --name is empty (the walker hears it)")
        }
        let (center, centerAsTyped) = try arguments.requiredCoordinateAsTyped("--center")
        let now = try arguments.now()
        /// The door, no farther from the centre than a destination's named door may be.
        func door() throws(CLIError) -> Coordinate {
            let door = try arguments.requiredCoordinate("--door")
            let metres = door.distance(to: center)
            guard metres <= Destination.doorMetresFromCenter else {
                throw .usage(
                    "\(command): --door is \(Destination.describe(metres: metres)) from --center (at most \(Int(Destination.doorMetresFromCenter)) m): another building's door?"
                )
            }
            return door
        }
        var apply: (inout EntranceMemory) -> Void
        switch sub {
        case "confirm":
            let altitude = try arguments.altitude()
            let noAltitude = try arguments.flag("--no-altitude")
            if altitude != nil, noAltitude {
                throw .usage("\(command): --altitude and --no-altitude: give one (set it, or clear it)")
            }
            if let altitude, altitude.accuracy > EntranceMemory.storedAltitudeAccuracyMetres {
                console.error(
                    "\(command): warning: --altitude: accuracy \(String(format: "%.1f", altitude.accuracy)) m is over \(String(format: "%.1f", EntranceMemory.storedAltitudeAccuracyMetres)) m: not stored (a level check needs that); the door has no altitude"
                )
            }
            let door = Door(
                coordinate: try door(),
                level: try arguments.option("--level"), note: try arguments.option("--note"),
                label: try arguments.option("--label"), altitude: altitude)
            let given = altitude != nil || noAltitude
            apply = { $0.confirm(door, name: name, center: center, now: now, altitudeGiven: given) }
        case "reject":
            let door = try door()
            apply = { $0.reject(door, name: name, center: center, now: now) }
        default:
            let osmPath = try arguments.required("--osm")
            try arguments.finish()
            let answer = try CLIFiles.osmFile(osmPath, around: center, command: command).found.answer
            // The core's rule, as a walk follows it: OSM's answer that no building is there is
            // no building's doors. Said before the memory is locked, read or made, so it is
            // left exactly as it was (before: the entrances near a square were stored as its
            // doors, or as those of a building within 120 m of it, for 30 days).
            guard answer.remembered != nil else {
                let entrances = answer.doors.count == 1 ? "1 entrance" : "\(answer.doors.count) entrances"
                throw .runtime(
                    "\(command): nothing stored: no building within \(Int(DoorIndex.nearestOutlineMetres)) m of --center \(centerAsTyped) in \(osmPath); OSM's answer there is no building's doors (its \(entrances) within \(Int(DoorsInFile.radiusMetres)) m would lead a walk there, not be remembered)"
                )
            }
            apply = { $0.recordOSM(answer, name: name, center: center, now: now) }
        }
        try arguments.finish()

        // Read, change and write under the memory's lock: another `memory` command at the same
        // time waits its turn (before, of 20 run at once, 16 confirmed doors were lost).
        let memory: EntranceMemory
        do {
            memory = try MemoryFile.locked(path: path) { () throws(CLIError) -> EntranceMemory in
                var (memory, warning) = MemoryFile.load(path: path, now: now)
                if let warning, warning.mustNotWriteOver {
                    // What it holds is unknown, or not all loaded and kept nowhere else: writing
                    // would replace the walker's doors with fewer or none.
                    let why = warning.kind == .unreadable ? "cannot be read" : "could not be kept aside"
                    throw .runtime("\(command): \(warning); not writing over a file that \(why)")
                }
                if let warning { console.error("\(command): warning: \(warning)") }
                // Marked with the version it began from, so a daemon that changed the building
                // since (a copy edited after the walker's newer answer) keeps its answer (A11-1).
                memory.edit(at: center, apply)
                do {
                    try MemoryFile.save(memory, path: path)
                } catch {
                    throw .runtime("\(command): \(error)")
                }
                return memory
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw .runtime("\(command): \(error)")
        }
        // The building changed, wherever its time put it (before, the first: another building
        // when --now was older than the file's newest).
        // Of two buildings as near (a tie), the one this change stamped.
        let near = memory.buildings.filter {
            $0.center.distance(to: center) <= EntranceMemory.sameVenueMetres
        }
        guard let building = near.first(where: { $0.changed == now }) ?? memory.building(near: center) else {
            throw .runtime(
                "\(command): not kept: the memory holds at most \(EntranceMemory.limit) buildings, and trimming took this one at once (the least recently changed of those holding nothing the walker taught, or of all when every one holds something)"
            )
        }
        if let line = try? JSONIO.line(building) { console.line(line) }
        return 0
    }
}
