import Arrival
import Diagnostics
import Foundation
import Geo
import OSM
import Replay
import Speech
import Storage

extension Commands {
    static let replay = Command(
        name: "replay",
        summary: "replays a recorded walk through the last stretch; prints the event log",
        help: """
            Usage: pathfinder replay --nmea FILE --destination FILE [--memory FILE]
                                     [--doors DB|DIR | --osm FILE] [--doors-after S]
                                     [--heard TSV | --audio WAV [--audio-start T]]
                                     [--speak-wav DIR] [--map SVG]

            Replays a recorded walk deterministically, as fast as it can, on a clock taken from
            the trace: the walk starts at the first fix, a tick comes every second of trace time.
              --nmea FILE         NMEA 0183 trace (fixes; XDR/MDA pressure sentences if any)
              --destination FILE  Destination JSON (name, center, optional named door)
              --memory FILE       EntranceMemory JSON; read first, written at each change
                                  (held for the replay: memory commands on it wait their turn)
              --doors DB|DIR      door index (`pathfinder doors import`; the bundled one is
                                  artifacts/doors/helsinki.db), or a directory of them
                                  (one per region, the nearest used): the ranked doors of the
                                  building at the destination arrive \(Int(Replayer.doorsDelaySeconds)) s after they
                                  are asked for; its outline is the map's building
              --osm FILE          instead, OSM XML or Overpass JSON, imported into a door
                                  index of its own and asked the same way (the building's
                                  doors, not its neighbours'), arriving the same way.
                                  With neither, no doors arrive and the walk goes to the
                                  centre: a replay reads only the files it is given.
              --doors-after S     the doors arrive S seconds after they are asked for
                                  instead (0…\(Int(Replayer.maximumSpanSeconds)); a slow card, or doors that
                                  come only after the walker's answer; due after the
                                  replay's last tick, they never arrive)
              --heard TSV         lines "T<TAB>text", T seconds from the trace's start
              --audio WAV         the walker's voice, decoded by the real listener; each
                                  utterance is heard at the audio's start + the time the
                                  listener decided (its end + the pause that ends it), with
                                  the listener's meaning and confidence
              --models DIR        the phrase model for --audio (default: as `listen`)
              --audio-start T     seconds into the trace where the audio begins (default 0)
              --speak-wav DIR     writes every prompt spoken as DIR/NNN-tSECONDS.wav, NNN
                                  in time order; DIR new or holding no WAV files
              --map SVG           draws the walk: trace, building, doors, target changes, prompts
              --last-stretch-metres M   where the last stretch begins, metres from the door
                                  (5…1000; default \(Int(FinalApproach.Settings().lastStretchMetres)), as the daemon's lastStretchMetres)
            Prints the event log, one JSON object a line: {"t": seconds, "event": …}.
            The same inputs give the same output, byte for byte. --memory is written at each
            change, as the daemon writes it; a write that fails is logged as memoryFailed, the
            walker hears "입구를 기억하지 못했어.", and replay exits 1 after the whole log. A
            --memory file that exists but cannot be read stops the replay (exit 1).
            """
    ) { arguments, console in
        var arguments = arguments
        var session = try ReplaySession(arguments: &arguments, command: "pathfinder replay")
        try arguments.finish()
        if let doors = session.doors {
            console.error("pathfinder replay: " + doors.note)
        }
        if let warning = session.modelWarning { console.error("pathfinder replay: warning: \(warning)") }
        let result = try session.run()
        // The memory's last write is done: its lock is not held through the outputs (before,
        // through minutes of --speak-wav synthesis).
        session.memoryLock = nil
        for line in result.lines { console.line(try JSONIO.line(line)) }
        try session.writeOutputs(result, speakDevice: false, console: console)
        try session.checkMemoryWritten(result)
        return 0
    }
}

/// A replay's inputs, resolved and checked, and what to write afterwards. Shared by `replay`
/// and `demo`.
struct ReplaySession {
    var command: String
    var nmeaPath: String
    var destination: Destination
    var memoryPath: String?
    /// The memory's lock, held while the session lives (see ``MemoryFile/Lock``).
    var memoryLock: MemoryFile.Lock?
    var memory: EntranceMemory
    /// OSM's doors: from `--osm` or `--doors`; `nil` leaves the request unanswered.
    var doors: ReplayDoors?
    var heard: [Replayer.Heard]
    var speakWAV: String?
    var mapPath: String?
    /// Where the answers came from, for a message about them.
    var answersSource: String
    /// The walk's numbers; `--last-stretch-metres` sets where the last stretch begins.
    var settings = FinalApproach.Settings()
    /// `--doors-after`: how long OSM's doors take to arrive (seconds of trace time).
    var doorsDelay = Replayer.doorsDelaySeconds
    /// `--audio` was heard with Debian's stock acoustic model: why, to say on standard error.
    var modelWarning: String?

    init(arguments: inout Arguments, command: String) throws(CLIError) {
        let nmea = try arguments.required("--nmea")
        let destination = try arguments.required("--destination")
        let memory = try arguments.option("--memory")
        let osm = try arguments.option("--osm")
        let doors = try arguments.option("--doors")
        let heard = try arguments.option("--heard")
        let audio = try arguments.option("--audio")
        let audioStart = try arguments.option("--audio-start", expected: "seconds ≥ 0") {
            Arguments.decimal($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        }
        let models = try arguments.option("--models")
        if models != nil, audio == nil { throw .usage("\(command): --models needs --audio") }
        if osm != nil, doors != nil { throw .usage("\(command): give --osm or --doors, not both") }
        if heard != nil, audio != nil { throw .usage("\(command): give --heard or --audio, not both") }
        if audioStart != nil, audio == nil { throw .usage("\(command): --audio-start needs --audio") }
        let doorsAfter = try arguments.option(
            "--doors-after", expected: "seconds (0…\(Int(Replayer.maximumSpanSeconds)))"
        ) {
            Arguments.decimal($0).flatMap { (0...Replayer.maximumSpanSeconds).contains($0) ? $0 : nil }
        }
        if doorsAfter != nil, osm == nil, doors == nil {
            throw .usage("\(command): --doors-after needs --doors or --osm (no doors arrive without them)")
        }
        try self.init(
            command: command, nmea: nmea, destination: destination, memory: memory, osm: osm, doors: doors,
            heard: heard,
            audio: audio, audioStart: audioStart ?? 0, models: models,
            speakWAV: try arguments.option("--speak-wav"),
            map: try arguments.option("--map"))
        if let metres = try Self.lastStretch(&arguments) { settings.lastStretchMetres = metres }
        if let doorsAfter { doorsDelay = doorsAfter }
    }

    /// `--last-stretch-metres M`: the same key, range and default as the daemon's
    /// `lastStretchMetres` (``FinalApproach/Settings/lastStretchMetres``).
    static func lastStretch(_ arguments: inout Arguments) throws(CLIError) -> Double? {
        let range = FinalApproach.Settings.lastStretchRange
        return try arguments.option(
            "--last-stretch-metres",
            expected: "a distance in metres (\(Int(range.lowerBound))…\(Int(range.upperBound)))"
        ) {
            Arguments.decimal($0).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    init(
        command: String, nmea: String, destination: String, memory: String?, osm: String?, doors: String?,
        heard: String?,
        audio: String?, audioStart: Double, models: String? = nil, speakWAV: String?, map: String?
    ) throws(CLIError) {
        self.command = command
        nmeaPath = nmea
        answersSource =
            heard.map { "--heard \($0)" } ?? audio.map { "--audio \($0) from --audio-start \(audioStart)" }
            ?? ""
        guard FileManager.default.isReadableFile(atPath: nmea) else {
            throw .usage("\(command): \(nmea): cannot read the NMEA trace")
        }
        do {
            self.destination = try JSONIO.read(Destination.self, from: destination, what: "destination")
        } catch {
            throw error.naming(command)
        }
        memoryPath = memory
        if let memory {
            // Held from the read to the last write, as the memory commands hold it for theirs
            // (before, a door confirmed beside a replay was written over by its next save).
            do {
                memoryLock = try MemoryFile.Lock(path: memory)
            } catch  where error.kind == .inUse || error.kind == .hardLinked {
                throw .runtime("\(command): \(error)")
            } catch {
                // A folder that cannot be made or opened takes no other writer either: the walk
                // runs, and each write that fails is logged as memoryFailed.
                memoryLock = nil
            }
            do {
                self.memory = try MemoryFile.read(path: memory)
            } catch {
                // A file that exists but cannot be read is a run-time failure, and the walk
                // must not write over it.
                if error.kind == .unreadable { throw .runtime("\(command): \(error); not writing over it") }
                throw .usage("\(command): \(error)")
            }
        } else {
            self.memory = EntranceMemory()
        }
        if let osm {
            self.doors = try ReplayDoors.osm(
                path: osm, around: self.destination.center, building: self.destination.osm, command: command)
        } else if let doors {
            self.doors = try ReplayDoors.index(
                path: doors, around: self.destination.center, building: self.destination.osm, command: command
            )
        }
        if let heard {
            let bytes: Data
            do {
                bytes = try FileDiagnostics.contents(of: heard)
            } catch {
                throw .usage("\(command): \(heard): cannot read: \(error)")
            }
            // Named where (before: "cannot read: the file could not be read" for a readable file).
            if let bad = TextDiagnostics.firstInvalidUTF8(in: bytes) {
                throw .usage(
                    "\(command): \(heard): line \(bad.line): bytes that are not UTF-8 at byte \(bad.offset + 1)"
                )
            }
            // A Windows editor's byte-order mark is no part of line 1.
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            let text = String(
                decoding: bytes.starts(with: bom) ? bytes.dropFirst(3) : bytes[...], as: UTF8.self)
            do {
                self.heard = try ReplayInputs.heard(tsv: text)
            } catch {
                throw .usage("\(command): \(heard) \(error)")
            }
        } else if let audio {
            do {
                let model = try PhraseModel.locate(explicit: models)
                modelWarning = model.stockModelWarning
                self.heard = try Listener.decode(wav: audio, model: model).map {
                    Replayer.Heard(t: audioStart + ($0.decided ?? $0.end), answer: $0.answer)
                }
            } catch {
                switch error {
                case .badAudio, .io: throw .usage("\(command): \(error)")
                case .model where models != nil: throw .usage("\(command): --models \(models!): \(error)")
                default: throw .runtime("\(command): \(error)")
                }
            }
        } else {
            self.heard = []
        }
        // Outputs are checked before the walk runs: the walk writes --memory as it goes, so a
        // bad output found afterwards failed a run that had already changed it (before,
        // --speak-wav naming a file exited 2 after the log was printed and the memory written).
        if let speakWAV { try Self.makeFolder(speakWAV, command: command) }
        if let map { try Self.checkMapPath(map, command: command) }
        self.speakWAV = speakWAV
        mapPath = map
    }

    func run() throws(CLIError) -> Replayer.Result {
        let bytes: Data
        do {
            bytes = try FileDiagnostics.contents(of: nmeaPath)
        } catch {
            throw .usage("\(command): \(nmeaPath): cannot read: \(error)")
        }
        // Each change is written when it happens, as the daemon does; no --memory: kept in
        // the result only.
        let path = memoryPath
        let saveMemory: @Sendable (EntranceMemory) throws -> Void = { memory in
            if let path { try MemoryFile.save(memory, path: path) }
        }
        var replayer = Replayer(
            destination: destination, memory: memory,
            doors: doors?.answer, heard: heard, settings: settings,
            saveMemory: saveMemory)
        replayer.doorsDelay = doorsDelay
        do {
            return try replayer.run(nmea: bytes)
        } catch .answerAfterWalk(let t, let span) {
            // The answers' file (or the audio's start) is wrong, not the trace.
            throw .usage(
                "\(command): \(answersSource): \(ReplayError.answerAfterWalk(t: t, span: span)) (\(nmeaPath))"
            )
        } catch {
            throw .usage("\(command): \(nmeaPath): \(error)")
        }
    }

    /// Memory, map and prompt WAVs. Returns where prompts went when spoken into files.
    @discardableResult
    func writeOutputs(
        _ result: Replayer.Result, speakDevice: Bool, console: Console
    ) throws(CLIError) -> String? {
        if let mapPath {
            let outline = doors?.outline
            let svg = WalkMap(destination: destination, outline: outline, result: result).svg()
            do {
                try Data(svg.utf8).write(to: URL(fileURLWithPath: mapPath), options: .atomic)
            } catch {
                throw .runtime(
                    "\(command): \(mapPath): cannot write the map: \(FileDiagnostics.reason(error))")
            }
        }
        if let speakWAV {
            try Self.writePrompts(result, to: speakWAV, command: command)
        }
        return speakWAV
    }

    /// Exit 1 when a memory write failed: the log (printed first) has `memoryFailed` and the
    /// walker heard "입구를 기억하지 못했어."; the run still failed at its job.
    func checkMemoryWritten(_ result: Replayer.Result) throws(CLIError) {
        for line in result.lines {
            if case .log(.memoryFailed(let reason)) = line.effect {
                throw .runtime("\(command): the memory was not saved: \(reason)")
            }
        }
    }

    /// The prompts' folder, made now (with its parents) or refused as bad input.
    static func makeFolder(_ directory: String, command: String) throws(CLIError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            // In words (before: Foundation's NSError, "Code=516 …"); the folder is the input.
            var isFolder: ObjCBool = false
            let reason =
                FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder)
                    && !isFolder.boolValue
                ? "a file is there" : FileDiagnostics.reasonWriting(directory, error)
            throw .usage("\(command): --speak-wav \(directory): cannot make the folder: \(reason)")
        }
        // The folder holds this run's prompts alone: never written over nor mixed with another
        // run's (before: a second run wrote its 3 prompts over the first's 001…003 and left the
        // first's others, which looked like its own). Files other than WAVs are left alone, as
        // the daemon's `speakWav` leaves names not its own.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.lowercased().hasSuffix(".wav") }.sorted()
        if let first = names.first {
            throw .usage(
                "\(command): --speak-wav \(directory): holds \(names.count) WAV files already (\(first) …); "
                    + "name an empty or new folder, so it holds this run's prompts alone")
        }
    }

    /// `--map`'s path can take a file: not a folder, in a folder that exists.
    static func checkMapPath(_ path: String, command: String) throws(CLIError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw .usage("\(command): --map \(path): is a directory, not a file")
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue
        else {
            throw .usage("\(command): --map \(path): no folder \(folder) to write it in")
        }
    }

    /// Prompt `number` of `count`, said at `t` seconds: `NNN-tSSSSS.wav`, its number in as many
    /// digits as `count` takes (3 at least), so name order is time order (before: the 1000th,
    /// `1000-t….wav`, sorted before `999-t….wav`).
    static func promptName(_ number: Int, of count: Int, t: Double) -> String {
        let digits = String(number)
        let width = max(3, String(count).count)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
            + String(format: "-t%05.0f.wav", t)
    }

    /// Every prompt as `DIR/NNN-tSECONDS.wav`, in order.
    static func writePrompts(
        _ result: Replayer.Result, to directory: String, command: String
    ) throws(CLIError) {
        try makeFolder(directory, command: command)
        let count = result.lines.filter { if case .say = $0.effect { true } else { false } }.count
        do {
            let speaker = try Speaker()
            var n = 0
            for line in result.lines {
                guard case .say(let prompt) = line.effect else { continue }
                n += 1
                let name = promptName(n, of: count, t: line.t)
                try speaker.writeWAV(prompt.text, to: directory + "/" + name)
            }
        } catch {
            throw .runtime("\(command): \(directory): \(error)")
        }
    }
}
