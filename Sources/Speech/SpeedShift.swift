import Foundation

/// A stream played `speed` times faster, at the same 16 kHz: every frequency × `speed`, every
/// duration ÷ `speed` — a voice whose vocal tract is longer than the model's (its formants
/// lower, `speed` > 1) or shorter (`speed` < 1) brought towards it (``Listener/Policy/speeds``).
///
/// Band-limited interpolation: a Blackman-windowed sinc of ``halfWidth`` input samples each
/// side, its cut-off at the lower of the input's and the output's Nyquist frequency (no
/// aliasing when speeding up). Fed blocks of any size; keeps the few samples the next
/// outputs need.
struct SpeedShift {
    let speed: Double
    /// Input samples each side of an output's position.
    static let halfWidth = 16

    /// Fractional positions the kernel is tabulated at (the nearest is used: 1/1024 of a
    /// sample is far below what a 16 kHz decoder resolves).
    static let phases = 1024

    private var input: [Float] = []
    /// The next output's position in `input` (fractional samples).
    private var position = Double(SpeedShift.halfWidth)
    /// `table[phase * 2 * halfWidth + j]`: the weight of input `centre - halfWidth + 1 + j`.
    private let table: [Float]

    init(speed: Double) {
        self.speed = speed
        let cutoff = min(1, 1 / speed)
        let width = Self.halfWidth
        var table = [Float](repeating: 0, count: (Self.phases + 1) * 2 * width)
        for phase in 0...Self.phases {
            let fraction = Double(phase) / Double(Self.phases)
            for j in 0..<(2 * width) {
                let x = Double(j - width + 1) - fraction
                table[phase * 2 * width + j] = Float(Self.kernel(x, cutoff: cutoff, width: Double(width)))
            }
        }
        self.table = table
        // Silence before the first sample, so the first outputs have their left half.
        input = [Float](repeating: 0, count: width)
    }

    /// The output for `samples` (and what was kept from before).
    mutating func process(_ samples: UnsafeBufferPointer<Int16>) -> [Int16] {
        input.reserveCapacity(input.count + samples.count)
        for s in samples { input.append(Float(s)) }
        var out: [Int16] = []
        out.reserveCapacity(Int(Double(samples.count) / speed) + 2)
        let width = Self.halfWidth
        input.withUnsafeBufferPointer { input in
            table.withUnsafeBufferPointer { table in
                while Int(position) + width < input.count {
                    let centre = Int(position)
                    let phase = Int(((position - Double(centre)) * Double(Self.phases)).rounded())
                    let weights = phase * 2 * width
                    let first = centre - width + 1
                    var sum: Float = 0
                    for j in 0..<(2 * width) { sum += input[first + j] * table[weights + j] }
                    out.append(Int16(max(-32_768, min(32_767, sum.rounded()))))
                    position += speed
                }
            }
        }
        // Forget what no later output reads.
        let drop = max(0, Int(position) - width)
        if drop > 0 {
            input.removeFirst(drop)
            position -= Double(drop)
        }
        return out
    }

    /// The windowed sinc at `x` input samples from the output's position.
    static func kernel(_ x: Double, cutoff: Double, width: Double) -> Double {
        guard abs(x) < width else { return 0 }
        let sinc = x == 0 ? 1 : sin(.pi * cutoff * x) / (.pi * cutoff * x)
        let w = 0.42 + 0.5 * cos(.pi * x / width) + 0.08 * cos(2 * .pi * x / width)
        return cutoff * sinc * w
    }
}
