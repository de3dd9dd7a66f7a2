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

    /// Opens `device` for capture and closes it again: a session checks its microphone before
    /// it asks anyone to speak.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened.
    public static func check(device: String) throws(SpeechError) {
        _ = try PCMDevice(device: device, direction: .capture, sampleRate: Listener.sampleRate)
    }

    /// Opens `device` and starts capturing; the stream ends when `seconds` have been
    /// captured (if given), on a device error (thrown), or when the consumer stops. A device
    /// that delivers audio faster than real time (ALSA's `null`, a file) is marked so in its
    /// chunks (``Chunk/fasterThanRealTime``); an open-ended capture then reads it no faster
    /// than real time, so it neither spins a core nor floods the backlog. One of given
    /// `seconds` is taken as fast as the device gives it: it ends, and keeps all of them.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened.
    public static func capture(
        device: String = "default", seconds: Double? = nil, gate: HalfDuplexGate? = nil
    )
        throws(SpeechError) -> AsyncThrowingStream<Chunk, any Error>
    {
        let pcm = try PCMDevice(device: device, direction: .capture, sampleRate: Listener.sampleRate)
        let box = PCMBox(pcm)
        return capture(reading: { try box.pcm.read(count: $0) }, seconds: seconds, gate: gate)
    }

    /// ``capture(device:seconds:gate:)``'s loop, on its own thread, over `read` (a device's
    /// `read(count:)`) and `clock` (seconds since the capture began; nil: the system's
    /// monotonic clock). Tests give a device that overruns, on its own clock.
    package static func capture(
        reading read: @escaping @Sendable (Int) throws -> CaptureRead,
        clock: (@Sendable () -> Double)? = nil, seconds: Double? = nil, gate: HalfDuplexGate? = nil
    ) -> AsyncThrowingStream<Chunk, any Error> {
        let limit = seconds.map { Int($0 * Double(Listener.sampleRate)) }
        let (stream, continuation) = AsyncThrowingStream<Chunk, any Error>.makeStream(
            bufferingPolicy: seconds == nil ? .bufferingOldest(backlogChunks) : .unbounded)
        let stop = Mutex(false)
        continuation.onTermination = { _ in stop.withLock { $0 = true } }
        let thread = Thread {
            var captured = 0, skipped = 0, lost = 0
            var pace = CapturePace()
            let began = ContinuousClock.now
            let elapsed = clock ?? { (ContinuousClock.now - began).inSeconds }
            while !stop.withLock({ $0 }) {
                if let limit, captured >= limit { break }
                do {
                    let got = try read(chunkSamples)
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

/// Hands the capture device to its thread.
private final class PCMBox: @unchecked Sendable {
    // @unchecked: after init the device is used only by the one capture thread.
    let pcm: PCMDevice
    init(_ pcm: PCMDevice) { self.pcm = pcm }
}
