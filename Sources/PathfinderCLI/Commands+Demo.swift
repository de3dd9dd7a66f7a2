import Arrival
import Diagnostics
import Foundation
import Geo
import Replay
import Speech

extension Commands {
    static let demo = Command(
        name: "demo",
        summary: "the main job: replays the bundled walk to a real building and tells it aloud",
        help: """
            Usage: pathfinder demo [--json] [--speak-wav DIR] [--dir DIR] [--last-stretch-metres M]

            Replays the bundled walk in artifacts/demo/: a GPS trace to Siltavuorenpenger 10,
            Helsinki, with its real OpenStreetMap doors from the bundled door index
            (artifacts/doors/helsinki.db); the walker's recorded voice says
            "여기 아니야" at the first door and "여기가 입구야" at the second, heard by the real
            listener. The prompts are spoken on the sound device, or written as WAV files when
            there is none, it cannot be opened (a stalled one included) or it fails (the folder
            and the device's error are printed). The memory goes
            to a temporary file (printed).
              --json           print the event log (JSON lines) instead of the transcript (the
                               prompts are spoken all the same)
              --speak-wav DIR  write the prompts as WAV files in DIR instead of playing them
              --dir DIR        another demo folder (with demo.json); default: the bundled one
              --last-stretch-metres M   where the last stretch begins (5…1000 m; default as
                               the daemon's lastStretchMetres)
            """
    ) { arguments, console in
        var arguments = arguments
        let json = try arguments.flag("--json")
        let speakWAV = try arguments.option("--speak-wav")
        let dir = try arguments.option("--dir")
        let lastStretch = try ReplaySession.lastStretch(&arguments)
        try arguments.finish()

        let folder = try dir ?? DemoFiles.locate()
        let manifest: DemoFiles
        do {
            manifest = try JSONIO.read(DemoFiles.self, from: folder + "/demo.json", what: "demo manifest")
        } catch let error as CLIError {
            throw error.naming("pathfinder demo")
        }
        guard (manifest.doors == nil) != (manifest.osm == nil) else {
            throw CLIError.usage(
                "pathfinder demo: \(folder)/demo.json: name the doors' source as \"doors\" (a door index) "
                    + "or \"osm\" (an OSM file), one of them")
        }
        // A fresh directory each run (mkdtemp): the demo always starts from an empty memory,
        // even when runs overlap in one process (tests) or a PID is reused.
        var template = Array((TemporaryFolder.path() + "/pathfinder-demo-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            let code = errno
            throw CLIError.runtime(
                "pathfinder demo: " + TemporaryFolder.problem("a temporary folder for the demo", errno: code))
        }
        let scratch = String(cString: made)
        // A demo that fails takes its folder with it: nothing in it has been named to anyone yet
        // (the prompts' and the memory's lines come after the last step that can fail).
        do {
            let memoryPath = scratch + "/memory.json"
            // "../doors/helsinki.db" is named plainly in messages.
            let inFolder = { (name: String) in
                URL(fileURLWithPath: folder + "/" + name).standardizedFileURL.path
            }
            var session = try ReplaySession(
                command: "pathfinder demo", nmea: folder + "/" + manifest.nmea,
                destination: folder + "/" + manifest.destination, memory: memoryPath,
                osm: manifest.osm.map(inFolder), doors: manifest.doors.map(inFolder),
                heard: nil, audio: folder + "/" + manifest.audio, audioStart: manifest.audioStart,
                speakWAV: speakWAV,
                map: nil)
            if let lastStretch { session.settings.lastStretchMetres = lastStretch }
            if let warning = session.modelWarning { console.error("pathfinder demo: warning: \(warning)") }
            let result = try session.run()
            session.memoryLock = nil  // its last write is done
            try session.writeOutputs(result, speakDevice: false, console: console)

            if !json {
                console.line(
                    "pathfinder demo: a recorded walk to \(session.destination.name), Helsinki (\(folder))")
            }
            if let doors = session.doors {
                let text = doors.note
                if json { console.error(text) } else { console.line(text) }
            }
            if !json {
                console.line("")
            }
            // Spoken on the device, line by line with the event log or the transcript (before,
            // `--json` spoke nothing but a probe); without a device, into WAVs. The device is
            // opened, not played to, first: the listener hears "안내를 시작할게." once (before,
            // a probe of those words came first).
            var speaker: Speaker?
            var wavFolder = speakWAV
            /// Why the prompts went to WAV files though none was asked for.
            var why = ""
            if wavFolder == nil {
                do {
                    speaker = try Speaker()
                    try speaker?.check(device: "default")
                } catch {
                    // The device's own error (before, "no sound device" for any, even one that
                    // is there but stalled).
                    why =
                        speaker == nil
                        ? "no speech synthesizer (\(error))" : "the sound device cannot be used (\(error))"
                    speaker = nil
                    wavFolder = scratch + "/prompts"
                    try ReplaySession.writePrompts(result, to: wavFolder!, command: "pathfinder demo")
                }
            }
            for line in result.lines {
                console.line(json ? try JSONIO.line(line) : Transcript.line(line))
                guard let player = speaker, case .say(let prompt) = line.effect else { continue }
                do {
                    try player.play(prompt.text)
                } catch {
                    // A device that fails mid-demo is said, and every prompt is written instead
                    // (before, each failure was swallowed and the rest of the demo was silent).
                    speaker = nil
                    why = "the sound device failed (\(error))"
                    wavFolder = scratch + "/prompts"
                    try ReplaySession.writePrompts(result, to: wavFolder!, command: "pathfinder demo")
                }
            }
            if !json {
                console.line("")
            }
            let note = { (text: String) in json ? console.error(text) : console.line(text) }
            if let wavFolder {
                note(
                    speakWAV == nil
                        ? "prompts: \(why); written as WAV files to \(wavFolder)"
                        : "prompts: written as WAV files to \(wavFolder)")
            }
            let building = result.memory.building(near: session.destination.center)
            let confirmed =
                building?.confirmed.map {
                    "confirmed door \($0.label ?? "") at \(String(format: "%.6f,%.6f", $0.coordinate.latitude, $0.coordinate.longitude))"
                }
                ?? "no door confirmed"
            note("memory: \(memoryPath) (\(result.memory.buildings.count) building, \(confirmed))")
            return 0
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw error
        }
    }
}

/// The bundled demo's manifest (`demo.json`, written by Scripts/make-demo).
struct DemoFiles: Codable {
    var nmea: String
    var destination: String
    /// The door index, relative to the demo folder (the bundled demo: `../doors/helsinki.db`).
    var doors: String?
    /// An OSM file instead, relative to the demo folder (a manifest names one or the other).
    var osm: String?
    var audio: String
    /// Seconds into the trace where the audio begins.
    var audioStart: Double

    /// The demo folder: `$PATHFINDER_DEMO`, else `artifacts/demo` of the data directory
    /// (``Artifacts``), else beside the executable or in one of its parents.
    static func locate() throws(CLIError) -> String {
        if let env = ProcessInfo.processInfo.environment["PATHFINDER_DEMO"] { return env }
        // The data directory, as for every bundled file (an install's share/pathfinder too).
        var looked: [String] = []
        if let found = try? Artifacts.path("demo") {
            if FileManager.default.fileExists(atPath: found + "/demo.json") { return found }
            looked.append(found)
        }
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        let parents = looked.count
        while true {
            let candidate = dir.appendingPathComponent("artifacts/demo").path
            if FileManager.default.fileExists(atPath: candidate + "/demo.json") { return candidate }
            looked.append(candidate)
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        throw .runtime(
            "pathfinder demo: no demo.json (looked in \((looked.prefix(parents) + looked.dropFirst(parents).prefix(1)).joined(separator: ", ")) and its parents); set PATHFINDER_DATA or PATHFINDER_DEMO, or pass --dir"
        )
    }
}

/// The event log as sentences a person reads.
enum Transcript {
    static func line(_ line: FinalApproach.LogLine) -> String {
        let clock = String(format: "%3d:%02d", Int(line.t) / 60, Int(line.t) % 60)
        return "\(clock)  " + text(line.effect)
    }

    /// A heard line: the text, its meaning, and for speech how confident the Listener was.
    static func heardText(_ answer: Heard) -> String {
        let meaning = answer.meaning?.rawValue ?? "no answer"
        guard let confidence = answer.confidence else { return "hears    \"\(answer.text)\" → \(meaning)" }
        let judged = answer.meaning == nil ? "" : answer.sure ? ", sure" : ", unsure"
        return
            "hears    \"\(answer.text)\" → \(meaning) (confidence \(String(format: "%.2f", confidence))\(judged))"
    }

    static func text(_ effect: FinalApproach.Effect) -> String {
        switch effect {
        case .say(let prompt): "says     \(prompt.text)"
        case .plan(let plan, let reason):
            "plan     (\(reason.rawValue)) walk to "
                + (plan.entrance.map { "door \(name($0))" } ?? "the building's centre (no door known)")
                + (plan.alternatives.isEmpty
                    ? "" : "; then " + plan.alternatives.map(name).joined(separator: ", "))
        case .requestDoors(let d): "asks     OpenStreetMap for the doors of \(d.name)"
        case .saveMemory(let m):
            "memory   to be written (\(m.buildings.count) building\(m.buildings.count == 1 ? "" : "s"))"
        case .log(.memorySaved(let n)): "memory   saved (\(n) building\(n == 1 ? "" : "s"))"
        case .log(.memoryFailed(let reason)): "memory   NOT saved: \(reason)"
        case .walkEnded(let reason): "walk     ended (\(reason.rawValue))"
        case .log(.heard(let answer)): heardText(answer)
        case .log(.rejected(let door)): "rejected door \(name(door)) for good"
        case .log(.confirmed(let door)): "stored   door \(name(door)) where the walker stands (source walker)"
        case .log(.arrived(let door, let metres, let toWalls)):
            "arrived  at \(door.map { "door \(name($0))" } ?? (toWalls ? "the building's walls" : "the centre")), \(String(format: "%.1f", metres)) m away"
        case .log(.level(let check, let door, let walker)):
            "level    \(check.rawValue) (door \(door.metres) m, walker \(walker.metres) m above sea level)"
        case .log(.gps(let state)):
            switch state {
            case .lost: "gps      no fix"
            case .waiting: "gps      no fix yet"
            case .back: "gps      fix again"
            case .poor(let accuracy): "gps      poor accuracy, ±\(Int(accuracy)) m"
            }
        }
    }

    static func name(_ door: Door) -> String {
        (door.label ?? "?") + " (\(door.source?.rawValue ?? "?"))"
    }
}
