import Foundation
import Geo
import Synchronization

/// Captures 16 kHz mono audio from an ALSA device on a dedicated thread (Debian's sphinxad
/// only speaks PulseAudio), delivered as an `AsyncStream` of 100 ms chunks.
public enum Microphone {
    /// A chunk of captured audio; `muted` when the half-duplex gate was closed.
    public struct Chunk: Sendable {
        public var samples: [Int16]
        public var muted: Bool
        /// Samples captured just before this chunk and thrown away because the consumer was
        /// ``backlogChunks`` behind (``Listener/skip(samples:)`` keeps its clock right).
        public var skippedBefore = 0
        /// The device delivered audio faster than real time (``CapturePace``): not a
        /// microphone. Set on every chunk from the first that showed it; an open-ended capture
        /// is read at real time from then on.
        public var fasterThanRealTime = false
        /// Samples the device itself lost just before this chunk: it overran (the capture
        /// thread was not scheduled within its 100 ms buffer) and threw its audio away.
        /// ``Listener/skip(samples:)`` moves the clock on by them, as by `skippedBefore`; before,
        /// the audio on either side of the gap came out joined, as if said in one breath.
        public var lostBefore = 0
    }

    /// Chunks an open-ended capture holds for a consumer that fell behind (30 s); after that
    /// the newest are thrown away and counted in the next chunk's `skippedBefore`. A capture of
    /// given `seconds` holds them all.
    public static let backlogChunks = 300

    /// Samples per chunk: 100 ms at 16 kHz.
    public static let chunkSamples = 1_600

    /// How long a capture device may take to open and take its settings (s), as a loudspeaker
    /// (``Playback/openSeconds``).
    public static let openSeconds = Playback.openSeconds
    /// How long a read of an open capture device may give nothing before it has stalled (s):
    /// a chunk is 100 ms, so a device this late has stopped delivering audio.
    public static let stallSeconds = 3.0

    /// Opens `device` for capture and closes it again: a session checks its microphone before
    /// it asks anyone to speak.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened, or has not opened
    ///   within ``openSeconds`` ("stalled").
    public static func check(device: String) throws(SpeechError) {
        _ = try open(device: device)
    }

    /// Opens `device` for capture on a thread of its own, waiting ``openSeconds`` at most: a
    /// device whose open blocks (a sound server that hangs; a FIFO behind ALSA's file plugin,
    /// opened with no writer) is left opening on that thread, and said "stalled"; until that
    /// open comes back the device is not opened again (``StalledDevices``: "still stalled"; while
    /// it is still within its ``openSeconds``, "still opening"), and when it does, what it
    /// opened is closed. Before, `snd_pcm_open` was waited for as long as
    /// it took: the daemon's ears never listened, and said nothing.
    static func open(device: String) throws(SpeechError) -> PCMDevice {
        let stalled = StalledDevices.capture
        try stalled.opening(device)
        let opening = Opening()
        Thread.detachNewThread {
            let result: Result<PCMBox, SpeechError>
            do throws(SpeechError) {
                result = .success(
                    PCMBox(
                        try PCMDevice(device: device, direction: .capture, sampleRate: Listener.sampleRate)))
            } catch {
                result = .failure(error)
            }
            // Under the lock its caller gives up under: either the caller takes it, or it was
            // given up on, and the device, open or not, is let go (closed with `result`).
            opening.state.withLock { state in
                if state.abandoned {
                    stalled.remove(device)
                } else {
                    state.result = result
                }
            }
            opening.done.signal()
        }
        _ = opening.done.wait(timeout: .now() + .milliseconds(Int(openSeconds * 1000)))
        let result = opening.state.withLock { state -> Result<PCMBox, SpeechError>? in
            if let result = state.result {
                stalled.remove(device)
                return result
            }
            state.abandoned = true
            stalled.insert(device)
            return nil
        }
        guard let result else {
            throw .audioDevice(
                device: device,
                reason:
                    "stalled: not open after \(Int(openSeconds)) s (a sound server, or a USB or Bluetooth microphone, that does not answer?)"
            )
        }
        return try result.get().pcm
    }

    /// What an opening thread and its caller share.
    private final class Opening: Sendable {
        let state = Mutex<(result: Result<PCMBox, SpeechError>?, abandoned: Bool)>((nil, false))
        let done = DispatchSemaphore(value: 0)
    }

    /// Opens `device` and starts capturing; the stream ends when `seconds` have been
    /// captured (if given), on a device error (thrown), or when the consumer stops. A device
    /// that delivers audio faster than real time (ALSA's `null`, a file) is marked so in its
    /// chunks (``Chunk/fasterThanRealTime``); an open-ended capture then reads it no faster
    /// than real time, so it neither spins a core nor floods the backlog. One of given
    /// `seconds` is taken as fast as the device gives it: it ends, and keeps all of them.
    /// A device that stops delivering audio while open (a read that gives nothing for
    /// ``stallSeconds``) ends the stream with `SpeechError.audioDevice` ("stalled"); its read is
    /// left blocked on the capture thread, and the device not opened again until it comes back
    /// (``StalledDevices``). Before, the read was waited for as long as it took, without a word.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened, or has not opened
    ///   within ``openSeconds`` ("stalled").
    public static func capture(
        device: String = "default", seconds: Double? = nil, gate: HalfDuplexGate? = nil
    )
        throws(SpeechError) -> AsyncThrowingStream<Chunk, any Error>
    {
        let box = try PCMBox(open(device: device))
        return capture(
            reading: { try box.pcm.read(count: $0) }, seconds: seconds, gate: gate,
            watch: Watch(device: device, stallSeconds: stallSeconds))
    }

    /// A capture device watched for reads that stall: its name, and how long a read may take.
    package struct Watch: Sendable {
        package var device: String
        package var stallSeconds: Double

        package init(device: String, stallSeconds: Double) {
            self.device = device
            self.stallSeconds = stallSeconds
        }
    }

    /// ``capture(device:seconds:gate:)``'s loop, on its own thread, over `read` (a device's
    /// `read(count:)`) and `clock` (seconds since the capture began; nil: the system's
    /// monotonic clock), its reads `watch`ed (nil: not). Tests give a device that overruns, on
    /// its own clock, or one that stalls.
    package static func capture(
        reading read: @escaping @Sendable (Int) throws -> CaptureRead,
        clock: (@Sendable () -> Double)? = nil, seconds: Double? = nil, gate: HalfDuplexGate? = nil,
        watch: Watch? = nil
    ) -> AsyncThrowingStream<Chunk, any Error> {
        let limit = seconds.map { Int($0 * Double(Listener.sampleRate)) }
        let (stream, continuation) = AsyncThrowingStream<Chunk, any Error>.makeStream(
            bufferingPolicy: seconds == nil ? .bufferingOldest(backlogChunks) : .unbounded)
        let stop = Mutex(false)
        continuation.onTermination = { _ in stop.withLock { $0 = true } }
        let reads = ReadWatch()
        if let watch { reads.start(watch, continuation: continuation) }
        let thread = Thread {
            defer { reads.ended() }
            var captured = 0, skipped = 0, lost = 0
            var pace = CapturePace()
            let began = ContinuousClock.now
            let elapsed = clock ?? { (ContinuousClock.now - began).inSeconds }
            while !stop.withLock({ $0 }) {
                if let limit, captured >= limit { break }
                do {
                    guard reads.reading() else { return }
                    let outcome = Result { try read(chunkSamples) }
                    // Given up on while blocked: the stream has ended, stalled.
                    guard reads.read(device: watch?.device) else { return }
                    let got = try outcome.get()
                    let samples = got.samples
                    captured += samples.count
                    let now = elapsed()
                    let wait = pace.delivered(samples.count, after: now)
                    if !samples.isEmpty {
                        let chunk = Chunk(
                            samples: samples, muted: gate?.isClosed ?? false, skippedBefore: skipped,
                            fasterThanRealTime: pace.fasterThanRealTime, lostBefore: lost)
                        if case .dropped = continuation.yield(chunk) {
                            // Thrown away, it is skipped audio; the gap before it is the device's
                            // still, said with the next chunk that gets through.
                            skipped += samples.count
                        } else {
                            skipped = 0
                            lost = 0
                        }
                    }
                    if got.overran { lost += pace.overran(after: now) }
                    // About a chunk's time: a consumer that stops is noticed as soon.
                    if limit == nil, wait > 0 { Thread.sleep(forTimeInterval: wait) }
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            // A loss in the read that ended the capture is said all the same, in a chunk of no
            // samples (before, it ended with the capture, and `record` kept such a take unmarked).
            if lost > 0 {
                continuation.yield(
                    Chunk(
                        samples: [], muted: gate?.isClosed ?? false, skippedBefore: skipped,
                        fasterThanRealTime: pace.fasterThanRealTime, lostBefore: lost))
            }
            continuation.finish()
        }
        thread.name = "pathfinder.microphone"
        thread.start()
        return stream
    }
}

/// The capture thread's reads, watched from a thread of its own: a read that has not come back
/// within its ``Microphone/Watch/stallSeconds`` ends the stream, stalled, and is given up on.
private final class ReadWatch: Sendable {
    private let state = Mutex<(since: ContinuousClock.Instant?, abandoned: Bool, ended: Bool)>(
        (nil, false, false))
    private let changed = DispatchSemaphore(value: 0)

    /// Watches until the capture ends, or a read stalls.
    func start(
        _ watch: Microphone.Watch, continuation: AsyncThrowingStream<Microphone.Chunk, any Error>.Continuation
    ) {
        let limit = Duration.milliseconds(Int(watch.stallSeconds * 1000))
        Thread.detachNewThread { [self] in
            while true {
                _ = changed.wait(timeout: .now() + .milliseconds(250))
                // Under the lock the capture thread's read comes back under (``read(device:)``).
                let stalled = state.withLock { state -> Bool? in
                    if state.ended { return nil }
                    guard let since = state.since, ContinuousClock.now - since >= limit else { return false }
                    state.abandoned = true
                    StalledDevices.capture.insert(watch.device)
                    return true
                }
                guard let stalled else { return }
                if stalled {
                    continuation.finish(
                        throwing: SpeechError.audioDevice(
                            device: watch.device,
                            reason:
                                "stalled: no audio for \(String(format: "%g", watch.stallSeconds)) s while open (the device stopped delivering it)"
                        ))
                    return
                }
            }
        }
    }

    /// A read begins; false when the capture was given up on.
    func reading() -> Bool {
        state.withLock { state in
            state.since = .now
            return !state.abandoned
        }
    }

    /// The read came back; false when it was given up on meanwhile (`device` is then cleared
    /// of its stall).
    func read(device: String?) -> Bool {
        state.withLock { state in
            state.since = nil
            if state.abandoned, let device { StalledDevices.capture.remove(device) }
            return !state.abandoned
        }
    }

    /// The capture thread ends: so does the watch.
    func ended() {
        state.withLock { $0.ended = true }
        changed.signal()
    }
}

/// Hands the capture device to its thread.
private final class PCMBox: @unchecked Sendable {
    // @unchecked: after init the device is used only by the one capture thread.
    let pcm: PCMDevice
    init(_ pcm: PCMDevice) { self.pcm = pcm }
}
