import Foundation
import Synchronization

/// Captures 16 kHz mono audio from an ALSA device on a dedicated thread (Debian's sphinxad
/// only speaks PulseAudio), delivered as an `AsyncStream` of 100 ms chunks.
public enum Microphone {
    /// A chunk of captured audio; `muted` when the half-duplex gate was closed.
    public struct Chunk: Sendable {
        public var samples: [Int16]
        public var muted: Bool
    }

    /// Samples per chunk: 100 ms at 16 kHz.
    public static let chunkSamples = 1_600

    /// Opens `device` for capture and closes it again: a session checks its microphone before
    /// it asks anyone to speak.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened.
    public static func check(device: String) throws(SpeechError) {
        _ = try PCMDevice(device: device, direction: .capture, sampleRate: Listener.sampleRate)
    }

    /// Opens `device` and starts capturing; the stream ends when `seconds` have been
    /// captured (if given), on a device error (thrown), or when the consumer stops.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened.
    public static func capture(
        device: String = "default", seconds: Double? = nil, gate: HalfDuplexGate? = nil
    )
        throws(SpeechError) -> AsyncThrowingStream<Chunk, any Error>
    {
        let pcm = try PCMDevice(device: device, direction: .capture, sampleRate: Listener.sampleRate)
        let box = PCMBox(pcm)
        let limit = seconds.map { Int($0 * Double(Listener.sampleRate)) }
        let (stream, continuation) = AsyncThrowingStream<Chunk, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(100))
        let stop = Mutex(false)
        continuation.onTermination = { _ in stop.withLock { $0 = true } }
        let thread = Thread {
            var captured = 0
            while !stop.withLock({ $0 }) {
                if let limit, captured >= limit { break }
                do {
                    let samples = try box.pcm.read(count: chunkSamples)
                    captured += samples.count
                    continuation.yield(Chunk(samples: samples, muted: gate?.isClosed ?? false))
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
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
