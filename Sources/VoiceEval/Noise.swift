import Foundation
import Geo

/// The benchmark's random source for `seed`: offset by SplitMix64's increment, so the
/// streams (and the published tables) stay those of the seeds as first measured.
func benchmarkRandom(_ seed: UInt64) -> SeededRandom {
    SeededRandom(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
}

/// The acoustic conditions of the benchmark.
enum Condition: String, CaseIterable {
    /// A quiet room: pink noise 35 dB below the speech (a room's floor, not digital silence).
    case clean
    case white, pink
    /// Other people talking: unrelated Korean sentences from other voices, overlapped.
    case babble

    /// Noise level below the speech, dB: the room floor for `clean`, 8…12 dB otherwise.
    func snr(using random: inout SeededRandom) -> Double {
        self == .clean ? 35 : Double.random(in: 8...12, using: &random)
    }

    /// `count` samples of this noise at unit RMS.
    func noise(count: Int, babbleSource: [[Int16]], using random: inout SeededRandom) -> [Double] {
        var out = [Double](repeating: 0, count: count)
        switch self {
        case .white:
            for i in 0..<count { out[i] = random.gaussian() }
        case .clean, .pink:
            // Paul Kellet's economy pink filter over white noise.
            var (b0, b1, b2) = (0.0, 0.0, 0.0)
            for i in 0..<count {
                let white = random.gaussian()
                b0 = 0.99765 * b0 + white * 0.0990460
                b1 = 0.96300 * b1 + white * 0.2965164
                b2 = 0.57000 * b2 + white * 1.0526913
                out[i] = b0 + b1 + b2 + white * 0.1848
            }
        case .babble:
            // Six talkers, each looping random sentences back to back.
            for _ in 0..<6 {
                var position = Int.random(in: 0..<16_000, using: &random)
                while position < count {
                    let sentence = babbleSource[Int.random(in: 0..<babbleSource.count, using: &random)]
                    for (offset, sample) in sentence.enumerated() where position + offset < count {
                        out[position + offset] += Double(sample)
                    }
                    position += sentence.count + Int.random(in: 800...4_000, using: &random)
                }
            }
        }
        let rms = (out.reduce(0) { $0 + $1 * $1 } / Double(max(1, count))).squareRoot()
        return rms > 0 ? out.map { $0 / rms } : out
    }
}
