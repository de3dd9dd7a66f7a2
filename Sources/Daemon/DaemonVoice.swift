import Arrival
import Foundation
import Speech
import Synchronization

/// The daemon's mouth: prompts spoken one at a time on their own queue (never on the loop),
/// through ALSA or into numbered WAV files. A newer callout replaces an unspoken one
/// (`PromptQueue`). While a prompt plays, `gate` is closed so the microphone's audio is not
/// decoded (half-duplex: prompts contain the trigger phrases).
final class DaemonVoice: Sendable {
    /// Closed while speaking; the microphone's chunks are muted through it.
    let gate = HalfDuplexGate()
    private let speaker: Speaker?
    private let device: String
    private let wavDirectory: String?
    private let log: DaemonLog
    private let work = DispatchQueue(label: "pathfinder.voice")
    private let state = Mutex<(queue: PromptQueue, files: Int, lastProblem: String?)>((PromptQueue(), 0, nil))

    /// - Parameters:
    ///   - device: the ALSA playback device.
    ///   - wavDirectory: write each prompt as `NNNN.wav` there instead of playing it.
    /// Without a working synthesizer the daemon runs on mute: prompts stay in the event log.
    init(device: String, wavDirectory: String?, log: DaemonLog) {
        self.device = device
        self.wavDirectory = wavDirectory
        self.log = log
        if let wavDirectory {
            do {
                try FileManager.default.createDirectory(
                    atPath: wavDirectory, withIntermediateDirectories: true)
            } catch {
                log.warning("speakWav \(wavDirectory): \(error)")
            }
        }
        do {
            speaker = try Speaker()
        } catch {
            log.warning("no speech synthesizer (\(error)); prompts only go to the event stream")
            speaker = nil
        }
    }

    /// Queues `prompt` and returns at once.
    func say(_ prompt: FinalApproach.Prompt) {
        guard speaker != nil else { return }
        state.withLock { $0.queue.enqueue(prompt) }
        work.async { self.speakNext() }
    }

    private func speakNext() {
        guard let speaker, let prompt = state.withLock({ $0.queue.next() }) else { return }
        do {
            if let wavDirectory {
                let number = state.withLock {
                    $0.files += 1
                    return $0.files
                }
                let path = wavDirectory + "/" + String(format: "%04d.wav", number)
                // Into a file: nothing is audible, so the microphone stays open.
                try speaker.writeWAV(prompt.text, to: path)
                log.debug("said into \(path): \(prompt.text)")
            } else {
                try speaker.play(prompt.text, device: device, gate: gate)
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
/// speaks arrives muted and is never decoded.
final class DaemonEars: Sendable {
    private let device: String
    private let gate: HalfDuplexGate
    private let log: DaemonLog
    private let heard: @Sendable (Heard) -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(device: String, gate: HalfDuplexGate, log: DaemonLog, heard: @escaping @Sendable (Heard) -> Void) {
        self.device = device
        self.gate = gate
        self.log = log
        self.heard = heard
    }

    var isOpen: Bool { task.withLock { $0 != nil } }

    /// Opens the microphone; a missing device or model is logged and the daemon runs on
    /// (answers can still come as `heard` requests).
    func open() {
        let (device, gate, log, heard) = (device, gate, log, heard)
        task.withLock { current in
            guard current == nil else { return }
            current = Task.detached {
                do {
                    let listener = try Listener(model: try PhraseModel.locate())
                    let stream = try Microphone.capture(device: device, gate: gate)
                    log.info("microphone \(device): listening")
                    for try await chunk in stream {
                        if Task.isCancelled { break }
                        for utterance in try listener.process(samples: chunk.samples, muted: chunk.muted) {
                            heard(utterance.answer)
                        }
                    }
                } catch {
                    log.warning("microphone \(device): \(error); answers only via `heard` requests")
                }
            }
        }
    }

    /// Closes the microphone (the capture thread notices within one 100 ms chunk).
    func close() {
        let running = task.withLock { current in
            defer { current = nil }
            return current
        }
        if let running {
            running.cancel()
            log.info("microphone \(device): closed")
        }
    }
}
