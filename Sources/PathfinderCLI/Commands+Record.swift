import Foundation
import Speech
import Storage
import Synchronization
import SystemCalls

extension Commands {
    static let record = Command(
        name: "record",
        summary: "record a person saying the answers and near-misses (voice benchmark data)",
        help: """
            Usage: pathfinder record --out DIR [--speaker ID] [--device NAME] [--playback NAME]
                                     [--seconds S] [--rounds N] [--quiet]

            Shows — and speaks — each of the 13 answers and \(RecordingScript.sentences.count - RecordingScript.answers.count) near-miss sentences
            in turn, then records S seconds from the microphone after the prompt: say the
            sentence the way you would to the app. Each recording is DIR/ID-ROUND-N.wav
            (16 kHz mono) with a line in DIR/manifest.jsonl:
              {"file": "…wav", "text": "여기 아니야", "speaker": "ID", "device": "…", "time": "…"}
            A take with nothing said, cut off at the window's edge, clipped, or with a gap
            (the computer too busy to record it all) is said again (up to \(takeTries) times);
            if the last is no better it is kept with "problem": "silent", "cutOff", "clipped"
            or "gap" in its line, which voice-eval and adapt-model leave out.
            \(silentSentencesToStop) sentences in a row with nothing heard in any take stop the session
            (exit 1), at its start or later: the microphone hears nothing, or stopped hearing
            (unplugged; check it with arecord -l and its capture switch); what was recorded is
            kept. Ctrl-C stops a session between takes, saying what it kept (a take is never in
            DIR without its line). Recording again with the same ID first finishes the round a
            session stopped in (its sentences not yet in DIR: "round 2: 17 sentences left from
            last time"), then adds N rounds after the ones in DIR: nothing recorded before is
            replaced, nor a name used again. One session records into a folder at a time: a
            second one into it is refused (exit 1), naming the other's pid (the lock is on the
            manifest: a daemon's memory in DIR does not hold it). A manifest voice-eval could
            not read (a damaged line, a file named twice) is refused before anyone is asked to
            speak, as are a folder it cannot write, a speaker ID too long for its file names,
            and a capture or playback device that does not open (checked before the folder is
            made).
            Score them with Scripts/voice-eval --real DIR; add them to the noise-adapted model
            with Scripts/adapt-model --real DIR (those speakers are then left out of the score).
              --out DIR         folder for the recordings (created; the manifest is appended to)
              --speaker ID      who is speaking (letters, digits, - and _): one ID per person.
                                Default: the folder's name (other characters as -), so one
                                folder per person keeps people apart (`--out voices/mina`);
                                a folder that holds another speaker's recordings needs it
              --device NAME     ALSA capture device (default "default")
              --playback NAME   ALSA playback device for the spoken prompt (default "default")
              --seconds S       seconds recorded per sentence, 1…10 (default 3)
              --rounds N        times through the whole list, 1…20 (default 2: ~3 minutes),
                                after the rest of a round a session stopped in
              --quiet           show the prompt without speaking it
            """
    ) { arguments, console in
        var arguments = arguments
        guard let out = try arguments.option("--out") else {
            throw CLIError.usage("pathfinder record: --out DIR is required")
        }
        let given = try arguments.option("--speaker")
        let device = try arguments.option("--device") ?? "default"
        let playback = try arguments.option("--playback") ?? "default"
        let seconds =
            try arguments.option("--seconds", expected: "seconds, 1…10") { text in
                Arguments.decimal(text).flatMap { (1...10).contains($0) ? $0 : nil }
            } ?? 3
        let rounds =
            try arguments.option("--rounds", expected: "a count, 1…20") { text in
                Int(text).flatMap { (1...20).contains($0) ? $0 : nil }
            } ?? 2
        let quiet = try arguments.flag("--quiet")
        try arguments.finish()
        guard let speaker = given ?? defaultSpeaker(forFolder: out) else {
            throw CLIError.usage(
                "pathfinder record: \(out) has no name to tell the speaker by; give --speaker ID (one ID per person)"
            )
        }
        guard !speaker.isEmpty, speaker.unicodeScalars.allSatisfy(speakerCharacters.contains) else {
            throw CLIError.usage("pathfinder record: --speaker \"\(speaker)\": use letters, digits, - and _")
        }
        // Recorded to score and adapt the model this device listens with: one that fell back
        // to Debian's stock model is said (none found is not this command's business).
        if let warning = (try? PhraseModel.locate())?.stockModelWarning {
            console.error("pathfinder record: warning: \(warning)")
        }
        // Ctrl-C, `kill` or a closed terminal ends the session between takes, never between a
        // take's file and its manifest line (before, 3 of 40 random kills left a take unlisted:
        // never scored, nor adapted, nor mentioned): the watcher waits for the line, says what
        // is kept, and ends the process by the signal. Set up before the folder is taken: a
        // signal while a device's check is held (a busy sound card blocks its open) removes
        // the manifest the lock made (before, in this stop: left empty).
        let listed = ListedTakes()
        let signals: SignalWatcher
        do {
            signals = try SignalWatcher(
                [SIGINT, SIGTERM, SIGHUP].filter { !SignalWatcher.isIgnored($0) }, queue: .global()
            ) { number in
                // Only these: the handlers write into one pipe per process, and another
                // watcher's signal (a test's SIGUSR2 in the same process) must not end it.
                guard [SIGINT, SIGTERM, SIGHUP].contains(number) else { return }
                listed.count.withLock { count in
                    let manifest = listed.manifest.withLock { $0 }
                    if let manifest, manifest.made, count == 0 { _ = unlink(manifest.path) }
                    let message =
                        "pathfinder record: stopped by \(signalName(number)): "
                        + (count == 0
                            ? "nothing of this session was recorded"
                            : "\(count) take\(count == 1 ? " of this session is" : "s of this session are") kept in \(out), listed in \(manifest?.path ?? out); recording again with the same ID goes on from there")
                    // Said by a thread of its own, waited for a second at most: output stopped
                    // (a terminal's Ctrl-S, a pipe to a stalled reader) holds the console in a
                    // blocked write, and the stop must not wait for it (before, in this stop:
                    // the session ran on until the output moved).
                    let said = DispatchSemaphore(value: 0)
                    Thread {
                        console.error(message)
                        said.signal()
                    }.start()
                    _ = said.wait(timeout: .now() + 1)
                    // To the process, not raise(3) to this thread, a dispatch worker's, which
                    // blocks it; the lock is kept to the end, so no take comes after.
                    signal(number, SIG_DFL)
                    kill(getpid(), number)
                    while true { pause() }
                }
            }
        } catch {
            throw CLIError.runtime("pathfinder record: \(error) (nothing was recorded)")
        }
        defer { signals.cancel() }
        // Nothing is made before both devices are known to open; a folder already there is
        // taken (and its manifest checked) first, so one in use or refused says so before a
        // device another session holds would be blamed.
        var isFolder: ObjCBool = false
        let taken =
            FileManager.default.fileExists(atPath: out, isDirectory: &isFolder) && isFolder.boolValue
            ? try takeFolder(out, speaker: speaker, given: given) : nil
        if let taken { listed.manifest.withLock { $0 = (taken.existing.path, taken.made) } }
        let voice: Speaker?
        do {
            let before =
                try taken.map {
                    try roundsTaken(of: speaker, in: out, listed: $0.existing.entries.map(\.file)).last
                }
                ?? 0
            try checkNameLength(of: speaker, given: given != nil, lastRound: before + rounds, in: out)
            do throws(SpeechError) { try Microphone.check(device: device) } catch {
                // A device that does not open already says how to list them.
                var said = "\(error)"
                if case .audioDevice(let name, let reason) = error {
                    said = "capture device \(name): \(reason)"
                }
                throw CLIError.runtime(
                    "pathfinder record: \(said) (nothing was recorded"
                        + (said.contains("arecord -l") ? ")" : "; arecord -l lists the devices)"))
            }
            do {
                voice = quiet ? nil : try Speaker()
                try voice?.check(device: playback)
            } catch SpeechError.audioDevice(let name, let reason) {
                throw CLIError.runtime(
                    "pathfinder record: the prompt's sound device \(name): \(reason); --quiet shows the prompts without speaking them (nothing was recorded)"
                )
            } catch {
                throw CLIError.runtime("pathfinder record: \(error)")
            }
        } catch {
            // A failed start leaves the folder as it was: no manifest the lock made.
            if let taken, taken.made { _ = unlink(taken.existing.path) }
            throw error
        }
        if taken == nil { try makeFolder(out) }
        let (lock, existing, made) = try taken ?? takeFolder(out, speaker: speaker, given: given)
        listed.manifest.withLock { $0 = (existing.path, made) }
        defer { withExtendedLifetime(lock) {} }
        AtomicFile.removeStaleTemps(in: out)
        let time = ISO8601DateFormatter()
        // A round a session stopped in (Ctrl-C, a silent microphone, a full disk) is finished
        // first: its sentences not yet taken, then new rounds.
        let (lastRound, left, unlisted) = try roundsTaken(
            of: speaker, in: out, listed: existing.entries.map(\.file))
        // A take file the manifest does not list (left by an older pathfinder stopped between
        // the two) keeps its name from reuse and its sentence from being asked again: said, so
        // it is not lost unseen (before: nothing said, and voice-eval never scored it).
        if !unlisted.isEmpty {
            console.error(
                "pathfinder record: warning: \(unlisted.count) take file\(unlisted.count == 1 ? "" : "s") of \(speaker) in \(out) "
                    + "\(unlisted.count == 1 ? "is" : "are") not listed in \(existing.path) (\(unlisted.prefix(3).joined(separator: ", "))\(unlisted.count > 3 ? ", …" : "")): "
                    + "not scored nor adapted, and \(unlisted.count == 1 ? "its sentence is" : "their sentences are") not asked again; remove \(unlisted.count == 1 ? "it" : "them") to have \(unlisted.count == 1 ? "it" : "them") asked again"
            )
        }
        let firstRound = lastRound + 1
        let takes =
            left.map { (round: lastRound, index: $0 - 1) }
            + (firstRound..<firstRound + rounds).flatMap { round in
                RecordingScript.sentences.indices.map { (round: round, index: $0) }
            }
        let total = takes.count
        if !left.isEmpty {
            console.line(
                "round \(lastRound): \(left.count) sentence\(left.count == 1 ? "" : "s") left from last time")
        }
        var newlineFirst = existing.lacksFinalNewline
        // A session that ends with nothing listed (a signal, a first take that cannot be
        // written) leaves no manifest it made: an empty one passed adapt-model's "manifest
        // exists" check, and voice-eval said "no recordings listed".
        defer { if made, listed.count.withLock({ $0 }) == 0 { _ = unlink(existing.path) } }
        var done = 0
        var kept: [TakeProblem: Int] = [:]
        // Sentences in a row with nothing heard in any take, and whether any take of this
        // session was heard (then the microphone stopped hearing, rather than never heard).
        var silentInARow = 0
        var heardBefore = false
        for (round, index) in takes {
            let text = RecordingScript.sentences[index]
            done += 1
            console.line("[\(done)/\(total)] 말해 주세요 — say: \(text)")
            do {
                var samples: [Int16] = []
                var problem: TakeProblem?
                var heard = false
                for attempt in 1...takeTries {
                    do { try voice?.play(text, device: playback) } catch SpeechError.audioDevice(
                        let name, let reason)
                    {
                        throw CLIError.runtime(
                            "pathfinder record: the prompt's sound device \(name): \(reason); --quiet shows the prompts without speaking them"
                        )
                    }
                    samples = []
                    var lost = 0
                    for try await chunk in try Microphone.capture(device: device, seconds: seconds) {
                        samples += chunk.samples
                        lost += chunk.lostBefore
                    }
                    problem = TakeCheck.problem(in: samples, lostSamples: lost)
                    if problem != .silent { heard = true }
                    guard let problem else { break }
                    console.line(
                        attempt < takeTries
                            ? "  다시 한 번 — again: \(problem.advice)"
                            : "  kept, marked \"\(problem.rawValue)\" (left out of voice-eval and adapt-model): \(problem.advice)"
                    )
                }
                let file = "\(speaker)-\(round)-\(String(format: "%02d", index + 1)).wav"
                var entry: [String: String] = [
                    "file": file, "text": text, "speaker": speaker, "device": device,
                    "time": time.string(from: Date()),
                ]
                if let problem {
                    entry["problem"] = problem.rawValue
                    kept[problem, default: 0] += 1
                }
                let line = try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys])
                let bytes = WAV.bytes(Audio(samples: samples, sampleRate: Listener.sampleRate))
                // The take and its line, with signals held off (acted on after).
                try listed.count.withLock { (count: inout Int) throws(CLIError) in
                    do throws(SystemCallError) {
                        try AtomicFile.create(bytes, at: out + "/" + file, mode: 0o644)
                    } catch {
                        if error.code == EEXIST {
                            throw CLIError.runtime(
                                "pathfinder record: \(out)/\(file) exists; not replacing it")
                        }
                        throw CLIError.runtime(
                            "pathfinder record: cannot write \(out)/\(file): \(error.why); the take was not kept. "
                                + leftBehind(stoppingAt: done, in: out))
                    }
                    do throws(SystemCallError) {
                        try AppendFile.append(
                            Array((newlineFirst ? Data("\n".utf8) : Data()) + line + Data("\n".utf8)),
                            to: existing.path, mode: 0o644)
                    } catch {
                        // Unlisted, the take would be in the folder but never scored.
                        _ = unlink(out + "/" + file)
                        throw CLIError.runtime(
                            "pathfinder record: cannot write \(existing.path): \(error.why); the take \(file) was not kept. "
                                + leftBehind(stoppingAt: done, in: out))
                    }
                    count += 1
                }
                newlineFirst = false
                silentInARow = heard ? 0 : silentInARow + 1
                if silentInARow == silentSentencesToStop {
                    let silence =
                        "nothing heard in \(silentInARow) sentences in a row (\(silentInARow * takeTries) takes) from capture device \"\(device)\""
                    let kept =
                        "The \(done) sentences of this session are kept in \(out), listed in its manifest (the silent ones marked, left out of scoring and adaptation); recording again with the same ID goes on from there"
                    throw CLIError.runtime(
                        heardBefore
                            ? "pathfinder record: the microphone stopped hearing: \(silence), which heard the sentences before: stopped. Check that it is still plugged in and is the device given (arecord -l lists them), and that its capture switch is still on and its level up (alsamixer, F4: Capture). \(kept)"
                            : "pathfinder record: \(silence): stopped. Check the microphone: that it is plugged in and is the device given (arecord -l lists them; --device plughw:CARD,DEVICE), and that its capture switch is on and its level up (alsamixer, F4: Capture; or amixer sset Capture cap). \(kept)"
                    )
                }
                if heard { heardBefore = true }
            } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError.runtime("pathfinder record: \(error)")
            }
        }
        let span =
            (left.isEmpty ? "" : "the rest of round \(lastRound) and ")
            + (rounds == 1 ? "round \(firstRound)" : "rounds \(firstRound)–\(firstRound + rounds - 1)")
        console.line("recorded \(total) sentences in \(out) (\(speaker), \(span); manifest \(existing.path))")
        if !kept.isEmpty {
            let marked = TakeProblem.allCases.compactMap { p in kept[p].map { "\($0) \(p.rawValue)" } }
            console.line(
                "kept with a problem, left out of scoring and adaptation: \(marked.joined(separator: ", "))")
        }
        return 0
    }

    /// The takes a session has listed in its manifest, locked from the making of a take's file
    /// to its line's append: a signal is acted on under the lock, so between takes.
    final class ListedTakes: Sendable {
        let count = Mutex(0)
        /// The session's manifest once its folder is taken, and whether its lock made it.
        let manifest = Mutex<(path: String, made: Bool)?>(nil)
    }

    /// How a person knows `number`: Ctrl-C's as Ctrl-C.
    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGINT: "Ctrl-C (SIGINT)"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP (the terminal closed)"
        default: "signal \(number)"
        }
    }

    /// What a session that stops at its `sentence`th sentence leaves in `folder`, and what to do.
    static func leftBehind(stoppingAt sentence: Int, in folder: String) -> String {
        let before = sentence - 1
        return
            (before == 0
            ? "Nothing of this session is in \(folder)"
            : "The \(before) sentence\(before == 1 ? "" : "s") before it \(before == 1 ? "is" : "are") kept in \(folder), listed in its manifest")
            + "; make room and record again to go on"
    }

    /// Makes `folder` and the folders above it that are not there, saying why not in the
    /// system's words, naming the folder (before, Foundation's: "The operation could not be
    /// completed. The volume is read only.", without "nothing was recorded").
    static func makeFolder(_ folder: String) throws(CLIError) {
        var path = folder.hasPrefix("/") ? "/" : ""
        let parts = folder.split(separator: "/")
        for (index, part) in parts.enumerated() {
            path += (path.isEmpty || path.hasSuffix("/") ? "" : "/") + part
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { continue }
            guard mkdir(path, 0o777) != 0 else { continue }
            let code = errno
            if code == EEXIST, stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { continue }
            let why = code == EEXIST ? "\(path) is a file, not a folder" : String(cString: strerror(code))
            throw .runtime(
                "pathfinder record: cannot create \(folder): \(why)"
                    + (index == parts.count - 1 || code == EEXIST ? "" : " (at \(path))")
                    + " (nothing was recorded)")
        }
    }

    /// `folder` (there) held for this session, and its manifest, checked: one session in a
    /// folder at a time, from before it reads the manifest to its end (two would both start at
    /// the next round of the same ID and write each other's takes); a manifest voice-eval would
    /// refuse, a folder holding others' recordings without `--speaker` (`given`), and a folder
    /// or manifest it cannot write are refused. `made`: the manifest was not there and the lock
    /// made it, empty: the session removes it if it lists nothing in it.
    static func takeFolder(
        _ folder: String, speaker: String, given: String?
    ) throws(CLIError) -> (lock: FolderLock, existing: RecordingManifest, made: Bool) {
        // Before the lock, whose file (the manifest, made if missing) it could not make.
        guard access(folder, W_OK) == 0 else {
            throw .runtime(
                "pathfinder record: \(folder): not writable: \(String(cString: strerror(errno))) (nothing was recorded)"
            )
        }
        let manifest = (folder as NSString).appendingPathComponent(lockFile)
        let made = !FileManager.default.fileExists(atPath: manifest)
        let lock: FolderLock
        do throws(FolderLock.Failure) { lock = try FolderLock(folder, file: lockFile) } catch {
            throw .runtime(
                error.isHeld
                    ? "pathfinder record: \(folder) is in use by another pathfinder record"
                        + (error.holder.map { " (pid \($0))" } ?? "")
                        + "; wait for it to finish, or record into another folder (nothing was recorded)"
                    : "pathfinder record: \(error) (nothing was recorded)")
        }
        let existing: RecordingManifest
        do throws(SpeechError) { existing = try RecordingManifest.read(directory: folder) } catch {
            if case .badAudio(let path, let reason) = error {
                throw .usage(
                    "pathfinder record: \(path): \(reason); mend or remove that line (nothing was recorded)")
            }
            throw .runtime("pathfinder record: \(error)")
        }
        if given == nil {
            // The folder's name stands for one person: in a folder that holds someone else's
            // recordings it would file this person under a second ID (if they are one of them)
            // or under the folder's, so who is speaking has to be said.
            let others = Set(existing.entries.map(\.speaker)).subtracting([speaker]).sorted()
            if !others.isEmpty {
                throw .usage(
                    "pathfinder record: \(folder) holds recordings of \(others.joined(separator: ", ")): say who is speaking with --speaker ID (nothing was recorded)"
                )
            }
        }
        if FileManager.default.fileExists(atPath: existing.path), access(existing.path, W_OK) != 0 {
            throw .runtime("pathfinder record: \(existing.path): not writable (nothing was recorded)")
        }
        return (lock, existing, made)
    }

    /// Refuses (exit 2) a speaker ID whose takes' names would be longer than `folder`'s file
    /// system allows (`NAME_MAX`: 255 bytes on ext4), before anyone is asked to speak (before,
    /// the first take failed, "File name too long", after its sentence was said): the longest is
    /// the temp file of the last round's take (`AtomicFile` writes each through one). A folder
    /// not made yet is checked on the nearest folder above it that is there.
    static func checkNameLength(
        of speaker: String, given: Bool, lastRound: Int, in folder: String
    ) throws(CLIError) {
        var there = URL(fileURLWithPath: folder).standardized
        while !FileManager.default.fileExists(atPath: there.path), there.path != "/" {
            there.deleteLastPathComponent()
        }
        let limit = pathconf(there.path, Int32(_PC_NAME_MAX))
        let take = "\(speaker)-\(lastRound)-\(RecordingScript.sentences.count).wav"
        let longest = AtomicFile.longestTempName(of: take)
        // The whole path too (PATH_MAX, 4 096 bytes with its NUL): a folder deep enough failed
        // at the first take, three times, with "File name too long … make room" (regression
        // auditor).
        let absolute = URL(fileURLWithPath: folder).standardized.path
        let pathLimit = Int(PATH_MAX) - 1
        let pathLength = absolute.utf8.count + 1 + longest
        if pathLength > pathLimit {
            throw .usage(
                "pathfinder record: \(folder) is too deep: a take's temporary file there would be a path of \(pathLength) bytes, where the system allows \(pathLimit); record into a folder with a shorter path (nothing was recorded)"
            )
        }
        guard limit > 0, longest > limit else { return }
        let most = limit - (longest - speaker.utf8.count)
        let id = given ? "--speaker \"\(speaker)\"" : "the speaker ID \"\(speaker)\" (the folder's name)"
        throw .usage(
            "pathfinder record: \(id) is too long for file names in \(folder): \(speaker.utf8.count) bytes, and a take's file (\(take)) is written through a temporary one of up to \(longest) bytes, where the file system allows \(limit); use an ID of at most \(most) bytes"
                + (given ? "" : ": give --speaker ID") + " (nothing was recorded)")
    }

    /// The file in a recordings folder a session holds its lock on: its manifest, the file two
    /// sessions would both append to (made empty if missing), not the folder, which a memory
    /// kept in it is locked on by the daemon and the commands that change it (before, record
    /// locked the folder: a running daemon's memory there was "another pathfinder record",
    /// and a `memory` change beside a session "a replay").
    static let lockFile = RecordingManifest.fileName

    /// What a speaker ID is made of: it names files (`ID-ROUND-N.wav`) and manifest lines.
    static let speakerCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))

    /// The speaker ID `record` uses without `--speaker`: the last component of `folder`
    /// (resolved: "voices/mina/." is "mina"), each run of characters an ID cannot hold as
    /// one "-" ("mina's voice" is "mina-s-voice"); nil when nothing is left ("/").
    /// A folder per person then keeps recordings of different people apart — what the
    /// speaker-disjoint splits of `Scripts/voice-eval --real` and `Scripts/adapt-model --real`
    /// rely on — and a second session in the same folder adds to the same person's rounds.
    static func defaultSpeaker(forFolder folder: String) -> String? {
        let name = URL(fileURLWithPath: folder).standardized.lastPathComponent
        let parts = name.unicodeScalars.split { !speakerCharacters.contains($0) }
        let speaker = parts.map { String(String.UnicodeScalarView($0)) }.joined(separator: "-")
        return speaker.isEmpty ? nil : speaker
    }

    /// Takes of one sentence before the last is kept whatever its problem.
    static let takeTries = 3

    /// Sentences in a row whose every take was silent, at any point of a session, after which
    /// it stops: one can be a person who paused or looked away, but three — nine takes, half a
    /// minute at 3 s — is a microphone that hears nothing (unplugged, muted, the wrong device),
    /// or stopped hearing (unplugged mid-session), and going on would ask for every other
    /// sentence three times (ten minutes for two rounds) to keep nothing. Before, once a take
    /// was heard silence was taken for the person's and the session went on to its end (117
    /// prompts, 39 of 42 sentences silent, exit 0); the next session now finishes the round,
    /// so stopping sends no one back to a new round's first sentence.
    static let silentSentencesToStop = 3

    /// The round after the last of `speaker`'s recordings in `directory`, 1 when there is none
    /// (``roundsTaken(of:in:listed:)``).
    static func nextRound(of speaker: String, in directory: String, listed: [String]) throws(CLIError) -> Int
    {
        try roundsTaken(of: speaker, in: directory, listed: listed).last + 1
    }

    /// The last of `speaker`'s rounds in `directory` (`ID-ROUND-N.wav`, a file there or a name
    /// its manifest lists: `listed`; 0 when there is none), and the numbers (from 1) of its
    /// sentences whose names are free: what a session stopped in that round left, which the
    /// next one records first (before, it began a new round, and the rest was never asked). A
    /// session adds and never replaces, nor reuses a name the folder or the manifest holds: a
    /// file there but not listed (a take an older version, killed, left) keeps its sentence out,
    /// and is one of `unlisted` (sorted), to be said.
    static func roundsTaken(
        of speaker: String, in directory: String, listed: [String]
    ) throws(CLIError) -> (last: Int, left: [Int], unlisted: [String]) {
        let files: [String]
        do { files = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw CLIError.runtime(
                "pathfinder record: cannot list \(directory): \(error.localizedDescription)")
        }
        let prefix = speaker + "-"
        func take(_ name: String) -> (round: Int, sentence: Int)? {
            guard name.hasPrefix(prefix), name.hasSuffix(".wav") else { return nil }
            let parts = name.dropFirst(prefix.count).dropLast(4).split(
                separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1].count == 2,
                parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isWholeNumber) && $0.allSatisfy(\.isASCII) }
                ),
                let round = Int(parts[0]), let sentence = Int(parts[1])
            else { return nil }
            return (round, sentence)
        }
        let taken = (files + listed).compactMap(take)
        let listedNames = Set(listed)
        let unlisted = files.filter { !listedNames.contains($0) && take($0) != nil }.sorted()
        guard let last = taken.map(\.round).max() else { return (0, [], unlisted) }
        let done = Set(taken.filter { $0.round == last }.map(\.sentence))
        return (
            last, RecordingScript.sentences.indices.map { $0 + 1 }.filter { !done.contains($0) }, unlisted
        )
    }
}
