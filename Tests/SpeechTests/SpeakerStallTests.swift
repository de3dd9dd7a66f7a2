import Foundation
import Glibc
import Speech
import Synchronization
import Testing

/// A loudspeaker that stalls without an error — a sound server that hangs, a Bluetooth or USB
/// sink that stops taking audio — is ALSA's file plugin writing into a FIFO: with no reader its
/// open blocks, with a reader that never reads its writes block once the pipe is full. Before,
/// `play` blocked for good, the half-duplex gate stayed closed (it was closed before the device
/// opened), and the daemon's microphone never heard an answer again.
@Suite struct SpeakerStallTests {
    /// A FIFO in a fresh folder, and the playback device writing raw audio into it.
    final class StuckSink {
        let folder: String
        let fifo: String
        var device: String { "file:FILE=\(fifo),FORMAT=raw" }

        init() throws {
            folder = NSTemporaryDirectory() + "pathfinder-stall-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            fifo = folder + "/sink.fifo"
            try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// `body` run on its own thread; its result, or nil if it has not returned after `seconds`
    /// (the thread is left blocked: the test fails instead of hanging).
    static func within<T: Sendable>(
        _ seconds: Double, _ body: @escaping @Sendable () -> T
    ) -> T? {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }

    /// What `play` threw (nil: it returned).
    static func playing(
        _ speaker: Speaker, _ audio: Audio, on device: String, gate: HalfDuplexGate
    ) -> SpeechError? {
        do {
            try speaker.play(audio, device: device, gate: gate)
            return nil
        } catch { return error }
    }

    static func seconds(_ audio: Audio) -> Double { Double(audio.samples.count) / Double(audio.sampleRate) }

    @Test func aDeviceThatNeverOpensIsAnErrorInBoundedTimeAndTheGateStaysOpen() throws {
        let sink = try StuckSink()
        let speaker = try Speaker()
        let audio = try speaker.synthesize("입구까지 삼십 미터")
        let gate = HalfDuplexGate()
        let bound = Self.seconds(audio) + 15
        let device = sink.device
        let outcome = Self.within(bound) { Self.playing(speaker, audio, on: device, gate: gate) }
        let error = try #require(outcome, "play still blocked after \(bound) s")
        guard case .audioDevice(let named, let reason) = try #require(error) else {
            Issue.record("not a device error: \(String(describing: error))")
            return
        }
        #expect(named == sink.device)
        #expect(reason.contains("stalled"), "\(reason)")
        // Never opened: the microphone was never muted for it.
        #expect(!gate.isClosed)
        // A second sound while the first is still blocked in ALSA fails at once, naming the stall,
        // and starts no second thread to block beside it.
        let again = Self.within(2) { Self.playing(speaker, audio, on: device, gate: gate) }
        guard case .some(.some(.audioDevice(_, let still))) = again else {
            Issue.record("a second play did not fail at once: \(String(describing: again))")
            return
        }
        #expect(still.contains("stalled"), "\(still)")
    }

    /// A stalled device that wakes (here: the FIFO gets a reader) is used again: the sound the
    /// caller gave up on is not played late, and the next one plays.
    @Test func aStalledDeviceThatWakesIsUsedAgain() throws {
        let sink = try StuckSink()
        let speaker = try Speaker()
        let audio = try speaker.synthesize("여기 아니야")
        let gate = HalfDuplexGate()
        let device = sink.device
        let first = Self.within(Self.seconds(audio) + 15) {
            Self.playing(speaker, audio, on: device, gate: gate)
        }
        guard case .some(.some(.audioDevice)) = first else {
            Issue.record("no device error: \(String(describing: first))")
            return
        }
        // A reader comes and reads everything written, until told to stop.
        let reader = open(sink.fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        let received = Mutex(0)
        let stop = Mutex(false)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !stop.withLock({ $0 }) {
                let got = read(reader, &buffer, buffer.count)
                if got > 0 { received.withLock { $0 += got } } else { usleep(5_000) }
            }
            stopped.signal()
        }
        defer {
            stop.withLock { $0 = true }
            stopped.wait()
            close(reader)
        }
        var played = false
        for _ in 0..<100 where !played {
            if Self.within(Self.seconds(audio) + 15, { Self.playing(speaker, audio, on: device, gate: gate) })
                == .some(nil)
            {
                played = true
            } else {
                usleep(100_000)
            }
        }
        #expect(played, "the device that woke was not used again")
        // The sound given up on was dropped, not played late: one sound's bytes came, not two.
        usleep(200_000)
        let bytes = received.withLock { $0 }
        #expect(bytes >= audio.samples.count * 2 && bytes < audio.samples.count * 4, "\(bytes) bytes")
    }

    /// A device that opens and then stops taking audio: the gate is closed while it plays, and
    /// opens again by itself after the sound's duration and a margin, when `play` gives up.
    @Test func aDeviceThatStopsTakingAudioIsAnErrorAndTheGateOpensAgain() throws {
        let sink = try StuckSink()
        // A reader that never reads: the pipe's 64 kB (1.5 s of sound) fill, then writes block.
        let reader = open(sink.fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer {
            // Read to the end before closing: a writer still blocked would get SIGPIPE.
            var buffer = [UInt8](repeating: 0, count: 65_536)
            for _ in 0..<2000 {
                let got = read(reader, &buffer, buffer.count)
                if got == 0 { break }
                if got < 0 { usleep(10_000) }
            }
            close(reader)
        }
        let speaker = try Speaker()
        let audio = try speaker.synthesize(
            "입구까지 삼십 미터, 두 시 방향. 다른 입구로 안내할게. 입구에 도착했어. 맞으면 여기가 입구야라고 말해줘.")
        #expect(Self.seconds(audio) > 4)
        let gate = HalfDuplexGate()
        let bound = Self.seconds(audio) + 15
        let device = sink.device
        let started = DispatchSemaphore(value: 0)
        let watcher = Mutex(false)
        Thread.detachNewThread {
            // Whether the gate closed while the sound was being written.
            for _ in 0..<300 {
                if gate.isClosed {
                    watcher.withLock { $0 = true }
                    break
                }
                usleep(10_000)
            }
            started.signal()
        }
        let outcome = Self.within(bound) { Self.playing(speaker, audio, on: device, gate: gate) }
        started.wait()
        let error = try #require(outcome, "play still blocked after \(bound) s")
        guard case .audioDevice(_, let reason) = try #require(error) else {
            Issue.record("not a device error: \(String(describing: error))")
            return
        }
        #expect(reason.contains("stalled"), "\(reason)")
        #expect(watcher.withLock { $0 }, "the gate never closed while the device was open")
        #expect(!gate.isClosed, "the microphone stays muted after the stall")
    }
}
