import Arrival
import Diagnostics
import Foundation
import Geo
import Speech
import Synchronization

/// The daemon's mouth: prompts spoken one at a time on their own queue (never on the loop),
/// through ALSA or into numbered WAV files. What waits is a bounded `PromptQueue`: a repeat
/// of a waiting prompt is not queued twice, a newer callout replaces an unspoken one, a
/// callout older than 10 s is dropped, and `interrupt` (`stop`) clears the queue so its own
/// prompt comes next. While a prompt plays, `gate` is closed so the microphone's audio is
/// not decoded (half-duplex: prompts contain the trigger phrases). Each prompt's end is told to
/// `spoken` (the walk's answer window runs from the end of its question).
final class DaemonVoice: Sendable {
    /// Closed while speaking; the microphone's chunks are muted through it.
    let gate = HalfDuplexGate()
    private let speaker: Speaker?
    private let device: String
    private let wavDirectory: String?
    private let log: DaemonLog
    /// Told when the voice is done with a prompt: played to its end (or into its WAV file and
    /// the time it takes to play), failed, or let go unplayed (replaced, dropped, stopped, or
    /// no synthesizer).
    private let spoken: @Sendable (FinalApproach.Prompt) -> Void
    private let work = DispatchQueue(label: "pathfinder.voice")
    private let state = Mutex<State>(State())
    /// The queue's clock: monotonic, so a wall-clock jump never ages a callout.
    private let clock = ContinuousClock()
    private let origin = ContinuousClock.now

    private struct State {
        var queue = PromptQueue()
        /// The number of the last `NNNN.wav` written, or found in the folder at start.
        var files = 0
        var lastProblem: String?
        /// A drain is scheduled or running on `work`: one at a time, however many prompts come.
        var draining = false
    }

    /// - Parameters:
    ///   - device: the ALSA playback device.
    ///   - wavDirectory: write each prompt as `NNNN.wav` there instead of playing it,
    ///     numbered on after the highest number already there.
    ///   - spoken: told when the voice is done with each prompt (see ``FinalApproach/Event/spoken(_:)``).
    /// Without a working synthesizer the daemon runs on mute: prompts stay in the event log.
    init(
        device: String, wavDirectory: String?, log: DaemonLog,
        spoken: @escaping @Sendable (FinalApproach.Prompt) -> Void = { _ in }
    ) {
        self.device = device
        self.wavDirectory = wavDirectory
        self.log = log
        self.spoken = spoken
        if let wavDirectory {
            do {
                try FileManager.default.createDirectory(
                    atPath: wavDirectory, withIntermediateDirectories: true)
            } catch {
                log.warning(
                    "speakWav \(wavDirectory): cannot make the folder: \(FileDiagnostics.reasonWriting(wavDirectory, error))"
                )
            }
        }
        do {
            speaker = try Speaker()
        } catch {
            log.warning("no speech synthesizer (\(error)); prompts only go to the event stream")
            speaker = nil
        }
        if let wavDirectory {
            let last = Self.lastPromptNumber(in: wavDirectory)
            state.withLock { $0.files = last }
        }
    }

    /// Checks the loudspeaker once, at start, when prompts are played (not written as WAV files):
    /// a device that cannot be opened, or does not open within 5 s, is a warning naming it now,
    /// not a silent first walk. The daemon runs on (a USB speaker may be plugged in later). Run on
    /// the voice's queue, so a stalling device never holds the start, and the first prompt
    /// comes after it.
    func checkDevice() {
        guard let speaker, wavDirectory == nil else { return }
        let (device, log) = (device, log)
        work.async {
            do {
                try speaker.check(device: device)
            } catch {
                log.warning("speaker \(device): \(error); the walker hears no prompts until it can be opened")
            }
        }
    }

    /// Digits in a prompt file's name: `0001.wav` … `9999.wav`, so name order is time order.
    static let promptDigits = 4
    /// The last prompt number: after it nothing more is written (a fifth digit, `10000.wav`,
    /// would sort before `9999.wav`; starting again would write over the first).
    static let lastNumber = 9999

    /// The highest number among `folder`'s `NNNN.wav` files (0 for none, or a folder that
    /// cannot be read): a restarted daemon numbers on after it, so it never writes over the
    /// last run's prompts and name order stays time order (before: each start began again at
    /// 0001.wav). Other names — other lengths of digits included — are not its own and are
    /// ignored (before, any digits counted: `9223372036854775807.wav` crashed the daemon at
    /// the next prompt, `4294967296.wav` made it write 0001.wav again).
    static func lastPromptNumber(in folder: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(".wav") else { return nil }
            let stem = name.dropLast(4)
            guard stem.count == promptDigits, stem.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return nil
            }
            return Int(stem)
        }.max() ?? 0
    }

    /// `number`'s file name: `0042.wav`.
    static func promptName(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, promptDigits - digits.count)) + digits + ".wav"
    }

    /// Seconds since the voice was made, on the monotonic clock.
    private var now: Double {
        (clock.now - origin).inSeconds
    }

    /// Queues `prompt` and returns at once.
    func say(_ prompt: FinalApproach.Prompt) {
        guard speaker != nil else { return spoken(prompt) }
        let now = now
        let dropped = state.withLock { $0.queue.enqueue(prompt, at: now) }
        report(dropped)
        schedule()
    }

    /// Why what waited was dropped, for the log.
    enum Interruption: String {
        case stop = "dropped by stop"
        case walkReplaced = "dropped, walk replaced"
    }

    /// `stop`, or a `go` that replaces the walk: drops every prompt waiting; `prompt` is
    /// spoken next (after the one playing). The log says `why` for each prompt dropped.
    func interrupt(with prompt: FinalApproach.Prompt?, because why: Interruption) {
        guard speaker != nil else {
            if let prompt { spoken(prompt) }
            return
        }
        let now = now
        let dropped = state.withLock { $0.queue.interrupt(with: prompt, at: now) }
        report(dropped, interruption: why)
        schedule()
    }

    /// Logs what was dropped and tells `spoken` of each prompt let go; `interruption` says why
    /// an interrupt dropped one.
    private func report(_ dropped: [PromptQueue.Dropped], interruption: Interruption? = nil) {
        for item in dropped {
            switch item {
            case .duplicate(let p): log.debug("not queued twice: \(p.text)")
            case .replaced(let p): log.debug("replaced by a newer callout: \(p.text)")
            case .stale(let p):
                log.info("dropped, older than \(Int(PromptQueue.calloutMaxAgeSeconds)) s: \(p.text)")
            case .overflow(let p):
                log.warning("speech queue full (\(PromptQueue.capacity)); dropped: \(p.text)")
            case .interrupted(let p): log.debug("\(interruption?.rawValue ?? "dropped"): \(p.text)")
            }
            // Let go unplayed; a prompt not queued twice ends with its twin.
            switch item {
            case .duplicate: break
            case .replaced(let p), .stale(let p), .overflow(let p), .interrupted(let p): spoken(p)
            }
        }
    }

    private func schedule() {
        let start = state.withLock { value in
            defer { value.draining = true }
            return !value.draining
        }
        if start { work.async { self.drain() } }
    }

    /// Speaks until the queue is empty; the flag is cleared under the same lock that finds
    /// the queue empty, so a prompt queued meanwhile is never left waiting.
    private func drain() {
        while true {
            let now = now
            var dropped: [PromptQueue.Dropped] = []
            let prompt = state.withLock { value in
                let next = value.queue.next(at: now, dropped: &dropped)
                if next == nil { value.draining = false }
                return next
            }
            report(dropped)
            guard let prompt else { return }
            speak(prompt)
            spoken(prompt)
        }
    }

    private func speak(_ prompt: FinalApproach.Prompt) {
        guard let speaker else { return }
        do {
            if let wavDirectory {
                // Run out: the folder is looked at again, in case its files were moved away.
                let rescanned =
                    state.withLock { $0.files } >= Self.lastNumber
                    ? Self.lastPromptNumber(in: wavDirectory) : nil
                let number: Int? = state.withLock {
                    if let rescanned { $0.files = rescanned }
                    guard $0.files < Self.lastNumber else { return nil }
                    $0.files += 1
                    return $0.files
                }
                guard let number else { throw WAVNumbersRunOut(folder: wavDirectory) }
                let path = wavDirectory + "/" + Self.promptName(number)
                // Into a file: nothing is audible, so the microphone stays open.
                let audio = try speaker.synthesize(prompt.text)
                do { try WAV.write(audio, to: path) } catch {
                    // Numbered files stay consecutive; the problem is the folder's, not the file's.
                    state.withLock { $0.files -= 1 }
                    if case .io(_, let reason) = error {
                        throw WAVFolderProblem(folder: wavDirectory, reason: reason)
                    }
                    throw error
                }
                log.debug("said into \(path): \(prompt.text)")
                // The file stands in for the loudspeaker, so it takes as long as the prompt
                // would to play: a loop of `repeat` writes speech in real time (44 kB/s), not
                // as fast as espeak-ng can synthesize (MB/s), and the queue ages as it would.
                usleep(useconds_t(Double(audio.samples.count) / Double(max(1, audio.sampleRate)) * 1_000_000))
            } else {
                try speaker.play(prompt.text, device: device, gate: gate)
                log.debug("said: \(prompt.text)")
            }
            state.withLock { $0.lastProblem = nil }
        } catch {
            // A missing sound card fails every prompt the same way: logged once, not per prompt.
            let problem = "\(error)"
            let isNew = state.withLock { value in
                defer { value.lastProblem = problem }
                return value.lastProblem != problem
            }
            if isNew { log.warning("cannot speak (\(problem)); prompts stay in the event stream") }
        }
    }
}

/// The daemon's ears: the microphone, open only during the last stretch, decoded by the
/// phrase model; each recognised sentence goes to `heard`. Audio captured while the voice
/// speaks arrives muted and is never decoded. When they cannot hear — the model refused, the
/// device gone, stalled, or nothing but digital silence — `deaf` is told (the walker hears it);
/// when a device that failed delivers audio again, `hears` is.
/// A device that fails — cannot be opened, does not open within 5 s, or stops delivering audio
/// while open (``Microphone/stallSeconds``) — is opened again with backoff while the last
/// stretch lasts, and listened to again once it works; `status` shows where it stands
/// (``status``).
final class DaemonEars: Sendable {
    private let device: String
    private let gate: HalfDuplexGate
    private let log: DaemonLog
    private let buttons: Bool
    private let heard: @Sendable (Heard) -> Void
    private let deaf: @Sendable () -> Void
    private let hears: @Sendable () -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// The device opened and is being decoded (a close is logged only then).
    private let listening = Mutex(false)
    /// Where the microphone stands, for `status`: "closed", "opening", "listening" or
    /// "failed", and the problem of the last open or capture that failed.
    private let standing = Mutex<(state: String, problem: String?)>(("closed", nil))

    /// Seconds before a failed device is opened again the first time; doubled each time it
    /// fails again, up to ``lastRetrySeconds``.
    static let firstRetrySeconds = 1.0
    static let lastRetrySeconds = 8.0

    init(
        device: String, gate: HalfDuplexGate, log: DaemonLog, buttons: Bool,
        heard: @escaping @Sendable (Heard) -> Void, deaf: @escaping @Sendable () -> Void,
        hears: @escaping @Sendable () -> Void
    ) {
        self.device = device
        self.gate = gate
        self.log = log
        self.buttons = buttons
        self.heard = heard
        self.deaf = deaf
        self.hears = hears
    }

    var isOpen: Bool { task.withLock { $0 != nil } }

    /// The microphone for `status`: `{"device": D, "state": S, "problem": P}`.
    var status: JSONValue {
        let (state, problem) = standing.withLock { $0 }
        return .object([
            "device": .string(device), "state": .string(state),
            "problem": problem.map { .string($0) } ?? .null,
        ])
    }

    /// How answers can still come, for the log.
    private var otherWays: String { buttons ? "buttons and `heard` requests" : "`heard` requests" }

    /// Opens the microphone; a missing model is logged, the walker told, and the daemon runs on
    /// (answers can still come as buttons and `heard` requests); so is a device that fails,
    /// which is opened again with backoff (``firstRetrySeconds``) until the stretch ends.
    func open() {
        task.withLock { current in
            guard current == nil else { return }
            current = Task.detached { [self] in
                let listener: Listener
                let model: PhraseModel
                do {
                    model = try PhraseModel.locate()
                    listener = try Listener(model: model)
                } catch {
                    failed("\(error)", first: true)
                    return
                }
                var wait = Self.firstRetrySeconds
                /// The problem last logged: said once while it lasts.
                var said: String?
                while !Task.isCancelled {
                    do {
                        // A try while a problem stands is no news: `status` says `failed` until
                        // the device listens (before, `opening` for as long as the outage lasted).
                        standing.withLock { if $0.state != "failed" { $0 = ("opening", $0.problem) } }
                        try await listen(with: listener, model: model) {
                            if said != nil { hears() }
                            wait = Self.firstRetrySeconds
                            said = nil
                        }
                    } catch {
                        let problem = "\(error)"
                        if Task.isCancelled {
                            // Closed while it opened: the stall is named all the same (before, a
                            // stall given up on after a `stop` was never said, only its "still stalled").
                            log.warning(
                                "microphone \(device): \(problem); the microphone was closed meanwhile")
                        } else {
                            failed(problem, new: problem != said, first: said == nil)
                            said = problem
                        }
                    }
                    try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                    wait = min(wait * 2, Self.lastRetrySeconds)
                }
            }
        }
    }

    /// Opens the device and decodes what it captures until the task is cancelled; `audio` is
    /// told of each chunk that came.
    /// - Throws: when the device cannot be opened, stalls or fails.
    private func listen(
        with listener: Listener, model: PhraseModel, audio: () -> Void
    ) async throws {
        let (device, log, otherWays) = (device, log, otherWays)
        let stream = try await Self.capture(device, gate: gate)
        // Closed while it opened: not listening (the stream, let go, ends the capture).
        if Task.isCancelled { return }
        listening.withLock { $0 = true }
        standing.withLock { $0 = ("listening", nil) }
        log.info("microphone \(device): listening; decoders: \(listener.decoderSummary)")
        if let warning = model.stockModelWarning {
            log.warning("microphone \(device): \(warning)")
        }
        var health = MicrophoneHealth()
        for try await chunk in stream {
            if Task.isCancelled { return }
            audio()
            for change in health.feed(
                chunk.samples, skippedBefore: chunk.skippedBefore,
                fasterThanRealTime: chunk.fasterThanRealTime, lostBefore: chunk.lostBefore)
            {
                Self.report(change, device: device, log: log, otherWays: otherWays)
                if change == .began(.silent) { deaf() }
                // `status` shows a fault of the sound while it lasts (audit 11 A11-5: before,
                // "listening" with no problem while the walker was told it cannot hear).
                standing.withLock { standing in
                    switch change {
                    case .began: standing.problem = change.message(device: device)
                    case .ended(let fault):
                        if standing.problem == MicrophoneHealth.Change.began(fault).message(device: device) {
                            standing.problem = nil
                        }
                    }
                }
            }
            for utterance in try listener.skip(samples: chunk.skippedBefore + chunk.lostBefore) {
                heard(utterance.answer)
            }
            for utterance in try listener.process(samples: chunk.samples, muted: chunk.muted) {
                heard(utterance.answer)
            }
        }
    }

    /// `Microphone.capture` on a thread of its own: its open waits up to 5 s for a device that
    /// stalls, never on the Swift concurrency pool the daemon's loop runs on (two cores, two
    /// threads: before, two walks' opens blocked on such a device held both, and the daemon
    /// answered nothing, not even SIGTERM).
    private static func capture(
        _ device: String, gate: HalfDuplexGate
    ) async throws -> AsyncThrowingStream<Microphone.Chunk, any Error> {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try Microphone.capture(device: device, gate: gate))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The microphone cannot hear: `problem` shown in `status`, logged when it is `new`, and the
    /// walker told (``deaf``) when it is the `first` since it last listened.
    private func failed(_ problem: String, new: Bool = true, first: Bool) {
        guard !Task.isCancelled else { return }
        // Not open any more: no "closed" is said of it.
        listening.withLock { $0 = false }
        standing.withLock { $0 = ("failed", problem) }
        if new { log.warning("microphone \(device): \(problem); answers only via \(otherWays)") }
        if first { deaf() }
    }

    /// Logs a fault of the microphone's sound as it begins (a warning) and as it ends.
    static func report(_ change: MicrophoneHealth.Change, device: String, log: DaemonLog, otherWays: String) {
        let message = change.message(device: device)
        switch change {
        case .began(.silent):
            log.warning(message + " Answers only via \(otherWays) until it hears sound.")
        case .began: log.warning(message)
        case .ended: log.info(message)
        }
    }

    /// Closes the microphone (the capture thread notices within one 100 ms chunk; one blocked
    /// in a stalled device is left to it, and never waited for).
    func close() {
        let running = task.withLock { current in
            defer { current = nil }
            return current
        }
        if let running {
            running.cancel()
            standing.withLock { $0 = ("closed", nil) }
            if listening.withLock({ was in
                defer { was = false }; return was
            }) {
                log.info("microphone \(device): closed")
            }
        }
    }
}

/// The folder holds `9999.wav`: no number is left that sorts after it, and none is reused.
private struct WAVNumbersRunOut: Error, CustomStringConvertible {
    var folder: String
    var description: String {
        "speakWav \(folder): \(DaemonVoice.promptName(DaemonVoice.lastNumber)) is the last prompt number; no more prompts are written there until its files are moved away"
    }
}

/// A prompt's WAV file could not be written: said once for the folder, not once per file.
private struct WAVFolderProblem: Error, CustomStringConvertible {
    var folder: String
    var reason: String
    var description: String { "speakWav \(folder): \(reason)" }
}
