import Foundation
import Testing

@testable import Speech

/// ``HighPass``: what lies below a voice is taken away, the voice is kept.
struct HighPassTests {
    /// The level (RMS) of `samples` after the first half second (the filter settled).
    func level(_ samples: [Int16]) -> Double {
        let settled = samples.dropFirst(8_000)
        return (settled.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(settled.count)).squareRoot()
    }

    func tone(_ hertz: Double, seconds: Double = 2) -> [Int16] {
        (0..<Int(seconds * 16_000)).map { Int16(10_000 * sin(2 * .pi * hertz * Double($0) / 16_000)) }
    }

    /// A second-order Butterworth at 100 Hz: −3 dB at the cutoff, 12 dB an octave below it;
    /// the voice's band (300 Hz and up) passes within a quarter of a decibel.
    @Test(arguments: [
        (30.0, -21.5, 1.5), (50.0, -12.3, 1.0), (100.0, -3.0, 0.3), (300.0, -0.05, 0.2), (1_000.0, 0, 0.1),
    ])
    func theResponseIsAButterworths(hertz: Double, decibels: Double, within: Double) {
        var filter = HighPass(cutoff: 100)
        let input = tone(hertz)
        let gain = 20 * log10(level(filter.process(input)) / level(input))
        #expect(abs(gain - decibels) < within, "\(hertz) Hz: \(gain) dB")
    }

    /// A microphone's DC offset goes; its state carries over from call to call, so blocks of any
    /// size give the same samples as one call.
    @Test func offsetGoesAndBlocksDoNotMatter() {
        let input = tone(440).map { Int16(clamping: Int($0) + 8_000) }
        var whole = HighPass(cutoff: 100)
        let once = whole.process(input)
        var blocks = HighPass(cutoff: 100)
        var pieces: [Int16] = []
        var at = 0
        for size in [1, 77, 320, 4_000] + Array(repeating: 1_600, count: 20) where at < input.count {
            pieces += blocks.process(Array(input[at..<min(input.count, at + size)]))
            at += size
        }
        #expect(pieces == once)
        let mean = once.dropFirst(8_000).reduce(0.0) { $0 + Double($1) } / Double(once.count - 8_000)
        #expect(abs(mean) < 5, "mean \(mean)")
    }

    /// Samples skipped (``HighPass/skip(_:)``, audio thrown away before the listener heard it)
    /// leave the filter as that many zeros fed through it would, without making them: what
    /// follows the gap comes out the same.
    @Test(arguments: [1, 2, 77, 1_600, 16_000, 16_001, 5 * 16_000])
    func aSkipIsAsZerosFedThrough(count: Int) {
        let before = tone(440, seconds: 0.5).map { Int16(clamping: Int($0) + 8_000) }
        let after = tone(300, seconds: 0.2)
        var fed = HighPass(cutoff: 20)
        _ = fed.process(before)
        _ = fed.process([Int16](repeating: 0, count: count))
        var skipped = HighPass(cutoff: 20)
        _ = skipped.process(before)
        skipped.skip(count)
        #expect(skipped.process(after) == fed.process(after))
    }
}
