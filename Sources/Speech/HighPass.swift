import Foundation

/// A second-order Butterworth high-pass filter (the biquad of Robert Bristow-Johnson's "Audio
/// EQ Cookbook", Q = 1/√2) over 16-bit samples, its state carried from call to call. In front
/// of the Listener it takes away what lies below a voice — traffic's rumble, wind and handling
/// noise, a microphone's DC offset — which fills the broadband level the foreground detector
/// compares and the decoders' noise estimate, though no word is in it (``Listener/Policy/highPass``).
package struct HighPass: Sendable {
    /// The −3 dB frequency, Hz.
    package let cutoff: Double
    private let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    /// The cutoffs a filter may have at 16 kHz: above 1 kHz it would take the voice itself.
    package static let cutoffRange = 20.0...1_000.0

    package init(cutoff: Double, sampleRate: Double = 16_000) {
        self.cutoff = cutoff
        let w0 = 2 * Double.pi * cutoff / sampleRate
        let alpha = sin(w0) / (2 * (1 / 2.0.squareRoot()))
        let a0 = 1 + alpha
        b0 = (1 + cos(w0)) / 2 / a0
        b1 = -(1 + cos(w0)) / a0
        b2 = b0
        a1 = -2 * cos(w0) / a0
        a2 = (1 - alpha) / a0
    }

    /// Zeros after which no state is left to carry (samples): a second. The slowest filter
    /// (20 Hz) decays by e^−89 in it, so its output rounds as a filter at rest gives.
    static let settleSamples = 16_000

    /// The next samples, filtered (rounded, and clamped to 16 bits).
    package mutating func process(_ samples: [Int16]) -> [Int16] {
        var out = [Int16](repeating: 0, count: samples.count)
        for (i, sample) in samples.enumerated() {
            out[i] = Int16(clamping: Int(step(Double(sample)).rounded()))
        }
        return out
    }

    /// `count` samples went by unheard (audio thrown away before the Listener): the state is
    /// as after as many zeros, fed through for at most ``settleSamples`` and at rest after
    /// them, so a gap of any length costs neither memory nor time in proportion to it.
    package mutating func skip(_ count: Int) {
        for _ in 0..<min(max(count, 0), Self.settleSamples) { _ = step(0) }
        if count > Self.settleSamples { (x1, x2, y1, y2) = (0, 0, 0, 0) }
    }

    private mutating func step(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        (x2, x1, y2, y1) = (x1, x, y1, y)
        return y
    }
}
