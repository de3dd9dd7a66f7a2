import Arrival
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Speech

/// A capture device that overruns — the capture thread not scheduled within its 100 ms buffer,
/// so ALSA throws the audio away — loses audio, and the chunks say how much
/// (`Chunk.lostBefore`), so the Listener hears a gap of that length as the daemon feeds it
/// (`Listener.skip`). Before, the read recovered and went on: the audio either side of the
/// gap came out joined, and every later time was early by the gap.
struct OverrunTests {
    /// A sound card on its own clock playing `audio`: read in whole requests, except that the
    /// read reaching `overrunAt` (samples into `audio`) returns what it read up to there, and
    /// the next `gap` samples are lost, their time gone by (the clock is the audio's, lost or
    /// not). Past the end it gives zeros.
    final class OverrunningDevice: Sendable {
        let audio: [Int16]
        let overrunAt: Int
        let gap: Int
        /// Samples of the card's clock gone by (read or lost), and whether it overran yet.
        let state = Mutex((position: 0, overran: false))

        init(audio: [Int16], overrunAt: Int, gap: Int) {
            self.audio = audio
            self.overrunAt = overrunAt
            self.gap = gap
        }

        func read(_ count: Int) -> CaptureRead {
            state.withLock { state in
                let start = state.position
                var end = start + count
                var overran = false
                if !state.overran, end > overrunAt {
                    end = overrunAt
                    overran = true
                    state.overran = true
                }
                let samples = (start..<end).map { $0 < audio.count ? audio[$0] : 0 }
                state.position = overran ? end + gap : end
                return CaptureRead(samples: samples, overran: overran)
            }
        }

        /// Seconds of the card's clock since the capture began.
        var seconds: Double { Double(state.withLock { $0.position }) / 16_000 }
    }

    /// The utterances a Listener hears from `device`, fed as the daemon feeds it (the gap
    /// counted) or, `joined`, as before (the gap ignored), and the chunks' lost samples.
    func heard(
        from device: OverrunningDevice, seconds: Double, joined: Bool
    ) async throws -> (
        [Utterance], lost: [Int]
    ) {
        let listener = try Listener(model: try phraseModel())
        var out: [Utterance] = []
        var lost: [Int] = []
        for try await chunk in Microphone.capture(
            reading: { device.read($0) }, clock: { device.seconds }, seconds: seconds)
        {
            if chunk.lostBefore > 0 { lost.append(chunk.lostBefore) }
            out += try listener.skip(samples: chunk.skippedBefore + (joined ? 0 : chunk.lostBefore))
            out += try listener.process(samples: chunk.samples, muted: chunk.muted)
        }
        return (out + (try listener.finish()), lost)
    }

    /// An overrun of 0.7 s before the answer: the chunk after it says 0.7 s were lost, and the
    /// answer is heard at the time it was said; joined, it came 0.7 s early.
    @Test func anOverrunIsAGapOfItsLengthAndLaterAnswersKeepTheirTime() async throws {
        let answer = try spoken("여기 아니야")
        let audio = silence(2.0) + answer + silence(1.0)
        let gap = 11_200
        let (counted, lost) = try await heard(
            from: OverrunningDevice(audio: audio, overrunAt: 12_345, gap: gap),
            seconds: Double(audio.count - gap) / 16_000, joined: false)
        #expect(lost == [gap])
        let said = try #require(counted.first { $0.meaning == .notHere }, "\(counted)")
        #expect(abs(said.start - 2.0) < 0.3, "\(said)")
        let (joined, _) = try await heard(
            from: OverrunningDevice(audio: audio, overrunAt: 12_345, gap: gap),
            seconds: Double(audio.count - gap) / 16_000, joined: true)
        let early = try #require(joined.first { $0.meaning == .notHere }, "\(joined)")
        #expect(abs(early.start - (2.0 - 0.7)) < 0.3, "\(early)")
    }

    /// An overrun within the answer: what is left of it is not heard as the answer (as audio
    /// thrown away, docs/daemon.md) — half a sentence is not taken for a whole one.
    @Test func anAnswerAnOverrunCutIsNotHeard() async throws {
        let answer = try spoken("여기 아니야")
        let audio = silence(1.0) + answer + silence(1.0)
        let gap = 4_000
        let (counted, lost) = try await heard(
            from: OverrunningDevice(audio: audio, overrunAt: 16_000 + answer.count / 2, gap: gap),
            seconds: Double(audio.count - gap) / 16_000, joined: false)
        #expect(lost == [gap])
        #expect(counted.allSatisfy { $0.meaning == nil }, "\(counted)")
    }

    /// An overrun in the read that ends a capture of given seconds: its loss still comes, in a
    /// last chunk of no samples (before, it was dropped with the capture's end, and `record`
    /// kept such a take unmarked).
    @Test func anOverrunInTheLastReadIsStillSaid() async throws {
        let device = OverrunningDevice(audio: silence(2.0), overrunAt: 17_000, gap: 4_000)
        var lost = 0, samples = 0
        for try await chunk in Microphone.capture(
            reading: { device.read($0) }, clock: { device.seconds }, seconds: 1.05)
        {
            lost += chunk.lostBefore
            samples += chunk.samples.count
        }
        #expect(samples == 17_000)
        #expect(lost == 4_000)
    }

    /// A device that never overruns loses nothing, whatever its clock says.
    @Test func noOverrunLosesNothing() async throws {
        let device = OverrunningDevice(audio: silence(2.0), overrunAt: .max, gap: 0)
        var lost = 0
        for try await chunk in Microphone.capture(reading: { device.read($0) }, clock: { 0 }, seconds: 2.0) {
            lost += chunk.lostBefore
        }
        #expect(lost == 0)
    }

    /// The daemon's log (and `listen --mic`'s standard error) says it once, and that it ended
    /// after 10 s of audio with none lost.
    @Test func healthSaysAudioWasLost() throws {
        var health = MicrophoneHealth()
        let chunk = [Int16](repeating: 300, count: 1_600).enumerated().map {
            $0.offset % 2 == 0 ? $0.element : -$0.element
        }
        #expect(health.feed(chunk).isEmpty)
        #expect(health.feed(chunk, lostBefore: 4_000) == [.began(.overran)])
        #expect(health.feed(chunk, lostBefore: 1_600).isEmpty)
        var ended: [Int] = []
        for k in 1...120 where !health.feed(chunk).isEmpty { ended.append(k) }
        #expect(ended == [100], "\(ended)")
        #expect(
            MicrophoneHealth.Change.began(.overran).message(device: "hw:1,0")
                == "microphone hw:1,0: audio lost: the capture device was not read within its 100 ms buffer (the system too busy?); an answer said then is not heard"
        )
    }

    /// `pathfinder record` takes a take the device lost audio in again, whatever is left of it.
    @Test func aTakeWithAGapIsTakenAgain() throws {
        let take = silence(0.5) + (try spoken("여기 아니야")) + silence(0.5)
        #expect(TakeCheck.problem(in: take) == nil)
        #expect(TakeCheck.problem(in: take, lostSamples: 1) == .gap)
    }
}
