import Foundation
import Geo
import Synchronization

/// One sound played on an ALSA device on a thread of its own, watched against deadlines: a
/// device that stalls without an error — a sound server that hangs, a Bluetooth or USB sink
/// that stops taking audio, any PCM whose open, write or drain blocks — is a
/// `SpeechError.audioDevice` naming it ("stalled") when its time is up, and its caller goes on.
/// Before, `play` blocked for good: the daemon fell silent with no log line, and the half-duplex
/// gate stayed closed, so the microphone never heard an answer again.
///
/// ALSA has no deadline of its own for these (a FIFO behind the file plugin blocks in `open(2)`
/// while the PCM's parameters are set; a blocking `writei` or `drain` waits as long as the
/// device does), so the thread that calls it is left blocked when the caller gives up. One such
/// thread at most per device: while it is blocked, the device's next sound fails at once
/// ("still stalled"); once ALSA lets it go (the device woke), the device is used again.
enum Playback {
    /// How long a device may take to open and take its settings (s): a sound server or a
    /// Bluetooth sink that connects takes a second or two.
    static let openSeconds = 5.0
    /// How long writing and draining a sound may take beyond its own duration (s): the
    /// device's buffer and a busy machine's scheduling.
    static let marginSeconds = 3.0

    /// Devices whose last sound is still blocked in ALSA, its caller gone.
    private static let stalled = StalledDevices.playback

    private enum Phase {
        case opening
        case playing(since: ContinuousClock.Instant)
        case done(SpeechError?)
    }

    /// What the playing thread and its caller share.
    private final class Progress: Sendable {
        let state = Mutex<(phase: Phase, abandoned: Bool)>((.opening, false))
        let changed = DispatchSemaphore(value: 0)
    }

    /// Opens `device` at `sampleRate`, plays `samples` (none: only opens it, a check) and
    /// returns when they have been heard. `gate` is closed once the device is open, for the
    /// sound's duration and ``marginSeconds`` at most.
    /// - Throws: `SpeechError.audioDevice` when the device fails, or when it has not opened
    ///   within ``openSeconds`` or not played the sound within its duration and
    ///   ``marginSeconds`` ("stalled").
    static func run(
        device: String, sampleRate: Int, samples: [Int16], gate: HalfDuplexGate?
    ) throws(SpeechError) {
        try stalled.check(device)
        let duration = Double(samples.count) / Double(max(1, sampleRate))
        let budget = duration + marginSeconds
        let progress = Progress()
        Thread.detachNewThread {
            var closing: HalfDuplexGate.Closing?
            var failure: SpeechError?
            do throws(SpeechError) {
                let pcm = try PCMDevice(device: device, direction: .playback, sampleRate: sampleRate)
                let goOn = progress.state.withLock { state in
                    if !state.abandoned { state.phase = .playing(since: .now) }
                    return !state.abandoned
                }
                // The microphone is muted only once the sound can be heard, and not for longer
                // than the sound may take.
                if goOn, !samples.isEmpty { closing = gate?.close(for: budget) }
                if !samples.isEmpty { try pcm.play(samples) { !progress.state.withLock { $0.abandoned } } }
            } catch {
                failure = error
            }
            if let closing { gate?.open(closing) }
            progress.state.withLock { state in
                state.phase = .done(failure)
                if state.abandoned { stalled.remove(device) }
            }
            progress.changed.signal()
        }
        let started = ContinuousClock.now
        while true {
            let phase = progress.state.withLock { $0.phase }
            let deadline: ContinuousClock.Instant
            switch phase {
            case .done(let failure):
                if let failure { throw failure }
                return
            case .opening: deadline = started + .milliseconds(Int(openSeconds * 1000))
            case .playing(let since): deadline = since + .milliseconds(Int(budget * 1000))
            }
            let left = deadline - .now
            if left <= .zero {
                // Given up under the lock the thread finishes under: either it has finished
                // (and is seen so on the next turn) or it is marked abandoned and the device
                // stalled, to be cleared by the thread if ALSA ever lets it go.
                let reason: String? = progress.state.withLock { state in
                    let reason: String
                    switch state.phase {
                    case .done: return nil
                    case .opening:
                        reason =
                            "stalled: not open after \(Int(openSeconds)) s (a sound server or a Bluetooth or USB sink that does not answer?)"
                    case .playing:
                        reason =
                            "stalled: \(String(format: "%.1f", duration)) s of sound not played after \(String(format: "%.1f", budget)) s"
                    }
                    state.abandoned = true
                    stalled.insert(device)
                    return reason
                }
                if let reason { throw .audioDevice(device: device, reason: reason) }
                continue
            }
            _ = progress.changed.wait(timeout: .now() + .nanoseconds(Int(left.inSeconds * 1e9)))
        }
    }
}
