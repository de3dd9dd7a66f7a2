import Foundation
import Speech
import TestSupport
import Testing

/// `MicrophoneHealth`, fed as the daemon feeds it (100 ms chunks as captured), on digital
/// silence, espeak-ng's voice in a room's noise, and that voice clipped.
@Suite("microphone health")
struct MicrophoneHealthTests {
    /// "여기 아니야" with half a second around it, in sox's pink noise about 20 dB below it, 16
    /// kHz: a live microphone.
    func voiceInARoom() throws -> [Int16] {
        let voice = silence(0.5) + (try spoken("여기 아니야")) + silence(0.5)
        let room = try soxNoise("pinknoise", seconds: Double(voice.count) / 16_000 + 0.1, volume: 0.02)
        return zip(voice, room).map { Int16(clamping: Int($0) + Int($1)) }
    }

    /// Every change `samples` make, fed in 100 ms chunks, with the second (of audio) it came in.
    func changes(
        _ samples: [Int16], into health: inout MicrophoneHealth
    ) -> [(Double, MicrophoneHealth.Change)] {
        var out: [(Double, MicrophoneHealth.Change)] = []
        for start in stride(from: 0, to: samples.count, by: 1_600) {
            let chunk = Array(samples[start..<min(start + 1_600, samples.count)])
            for change in health.feed(chunk) { out.append((Double(start + chunk.count) / 16_000, change)) }
        }
        return out
    }

    @Test func digitalSilenceIsAFaultAfterTenSecondsAndSoundEndsIt() throws {
        var health = MicrophoneHealth()
        let silence = changes([Int16](repeating: 0, count: 15 * 16_000), into: &health)
        #expect(silence.map(\.1) == [.began(.silent)])
        #expect(silence.first?.0 == 10.0)
        let voice = changes(try voiceInARoom(), into: &health)
        #expect(voice.map(\.1) == [.ended(.silent)])
        #expect(health.faults.isEmpty)
    }

    @Test func aLiveMicrophoneIsNoFault() throws {
        var health = MicrophoneHealth()
        let room = try voiceInARoom()
        // Twelve answers in a row (more than the ten seconds), and the room alone between them.
        let stretch = Array(repeating: room, count: 12).joined()
        #expect(changes(Array(stretch), into: &health).isEmpty)
        // A quiet room is never digital silence (the noise is a few LSB, not 0).
        let hush = room.map { $0 / 64 }
        #expect(changes(Array(Array(repeating: hush, count: 12).joined()), into: &health).isEmpty)
    }

    @Test func clippingIsAFaultUntilThirtySecondsWithoutIt() throws {
        var health = MicrophoneHealth()
        let room = try voiceInARoom()
        let clipped = room.map { Int16(clamping: Int($0) * 8) }
        #expect(changes(clipped, into: &health).map(\.1) == [.began(.clipping)])
        #expect(health.faults == [.clipping])
        // The gain turned down: the fault ends once 30 s have passed without a clipped run.
        let calm = changes(Array(Array(repeating: room, count: 20).joined()), into: &health)
        #expect(calm.map(\.1) == [.ended(.clipping)])
        // (counted from the last clipped run, within the clipped take before the calm began)
        let end = try #require(calm.first?.0)
        #expect(end >= 30 - Double(clipped.count) / 16_000 && end <= 30)
    }

    /// Clipping through a rate converter (a 48 kHz USB microphone clipping, brought to 16 kHz
    /// by ALSA's plughw: sox's converter here) is a fault, as the take check's rule has it
    /// (before, it needed runs of three samples at full scale, which the converter leaves
    /// none of); a voice normalised to −0.1 dBFS is none.
    @Test func clippingThroughARateConverterIsAFaultAndLoudSpeechIsNot() throws {
        let room = try voiceInARoom()
        var health = MicrophoneHealth()
        let clipped = try soxed(room, ["vol", "8"], at: 48_000)
        #expect(changes(clipped, into: &health).map(\.1) == [.began(.clipping)])
        var loud = MicrophoneHealth()
        #expect(changes(try soxed(room, ["gain", "-n", "-0.1"], at: 48_000), into: &loud).isEmpty)
        #expect(changes(try soxed(room, ["gain", "-n", "-0.1"], at: 16_000), into: &loud).isEmpty)
    }

    /// Audio thrown away because the decoder fell behind (`Chunk.skippedBefore`) is a fault at
    /// the first chunk after it — once, however often it goes on — and ends after 10 s of
    /// audio with none thrown away.
    @Test func audioThrownAwayIsAFaultUntilTenSecondsWithout() throws {
        var health = MicrophoneHealth()
        let room = try voiceInARoom()
        #expect(health.feed(Array(room.prefix(1_600))).isEmpty)
        #expect(health.feed(Array(room.prefix(1_600)), skippedBefore: 1_600) == [.began(.behind)])
        #expect(health.feed(Array(room.prefix(1_600)), skippedBefore: 3_200).isEmpty)
        var ended: [Int] = []
        for k in 1...120 where !health.feed(Array(room.prefix(1_600))).isEmpty { ended.append(k) }
        #expect(ended == [100], "ended after 10 s of chunks: \(ended)")
        #expect(health.faults.isEmpty)
        #expect(
            MicrophoneHealth.Change.began(.behind).message(device: "hw:1,0")
                == "microphone hw:1,0: the decoder fell 30 s behind; audio is thrown away until it catches up (answers said meanwhile are not heard)"
        )
    }

    /// A capture device that delivers audio faster than real time (`Chunk.fasterThanRealTime`:
    /// ALSA's `null`, a file) is said once, naming it; it stays what it is, so it never ends.
    @Test func aDeviceFasterThanRealTimeIsSaidOnce() throws {
        var health = MicrophoneHealth()
        let room = try voiceInARoom()
        #expect(health.feed(Array(room.prefix(1_600))).isEmpty)
        var said: [MicrophoneHealth.Change] = []
        for _ in 0..<200 { said += health.feed(Array(room.prefix(1_600)), fasterThanRealTime: true) }
        #expect(said == [.began(.fasterThanRealTime)])
        #expect(health.faults == [.fasterThanRealTime])
        #expect(
            MicrophoneHealth.Change.began(.fasterThanRealTime).message(device: "null")
                == "microphone null: the capture device delivers audio faster than real time: not a microphone?"
        )
    }

    /// ALSA's `null` capture device (zeros as fast as it is read: what a wrong `micDevice`
    /// gives), captured open-ended as the daemon captures: its chunks say it is faster than real
    /// time, and it is read at real time — three seconds of its audio take at least two of the
    /// clock (the pace's lead is one), where an unpaced read took a few milliseconds (before:
    /// as much as a core could read, ~50 000 s of audio a second on this machine). Counted by
    /// the audio, not the clock: on a loaded machine the test's task may wait seconds for its
    /// first chunk (before, two seconds of the clock then held one chunk, and it failed so; CI
    /// then saw a minute pass before the second chunk was taken, so no clock ends it: the time
    /// limit guards a device never read).
    @Test(.timeLimit(.minutes(3))) func alsasNullIsReadAtRealTime() async throws {
        let began = ContinuousClock.now
        var audio = 0
        var named = false
        for try await chunk in try Microphone.capture(device: "null") {
            audio += chunk.samples.count + chunk.skippedBefore
            named = named || chunk.fasterThanRealTime
            if audio >= 3 * 16_000 { break }
        }
        let elapsed = ContinuousClock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        #expect(named)
        #expect(Double(audio) / 16_000 >= 3, "\(Double(audio) / 16_000) s of audio in \(seconds) s")
        #expect(
            Double(audio) / 16_000 <= seconds + 1.0 + 0.2,
            "\(Double(audio) / 16_000) s of audio in \(seconds) s")
    }
}
