import Foundation
import Testing

@testable import Speech

/// ``SpeedShift``: audio played faster or slower at the same sample rate.
struct SpeedShiftTests {
    /// A 1 kHz tone played 1.25 times faster is a 1.25 kHz tone a fifth shorter (0.82: 820 Hz,
    /// longer), fed in blocks of any size; its level is kept.
    @Test(arguments: [1.25, 0.82])
    func aToneMovesAndKeepsItsLevel(speed: Double) {
        let tone = (0..<32_000).map { Int16(10_000 * sin(2 * .pi * 1_000 * Double($0) / 16_000)) }
        var shift = SpeedShift(speed: speed)
        var out: [Int16] = []
        var at = 0
        for size in [1, 320, 77, 4_000] + Array(repeating: 1_000, count: 40) where at < tone.count {
            let block = Array(tone[at..<min(tone.count, at + size)])
            out += block.withUnsafeBufferPointer { shift.process($0) }
            at += block.count
        }
        #expect(abs(Double(out.count) - 32_000 / speed) < 40, "\(out.count) samples")
        // Away from the edges: the frequency from the rising zero crossings, the peak level.
        let middle = Array(out[2_000..<(out.count - 2_000)])
        let crossings = zip(middle, middle.dropFirst()).filter { $0.0 < 0 && $0.1 >= 0 }.count
        let hertz = Double(crossings) * 16_000 / Double(middle.count)
        #expect(abs(hertz - 1_000 * speed) < 15, "\(hertz) Hz")
        #expect(abs(Double(middle.map { abs(Int($0)) }.max() ?? 0) - 10_000) < 300)
    }
}
