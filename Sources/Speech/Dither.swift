/// PocketSphinx's input dither, kept per decoder.
///
/// sphinxbase adds 1 to a quarter of the samples (`-dither`), drawing from one Mersenne
/// Twister that is global to the process and reseeded by every decoder created: two
/// decoders in one process took each other's numbers, and the same file decoded differently
/// beside another decode (issue #14: the demo's "여기가 입구야" became "[여기가] [입구야]").
/// The decoder now runs with `-dither no` and this copy of the rule — the same generator
/// (MT19937, `init_genrand`), the same seed, the same draw per sample — dithers each
/// decoder's input from its own state.
struct Dither {
    private var state = [UInt32](repeating: 0, count: 624)
    private var index = 624

    init(seed: UInt32) {
        state[0] = seed
        for i in 1..<624 {
            state[i] = 1_812_433_253 &* (state[i - 1] ^ (state[i - 1] >> 30)) &+ UInt32(i)
        }
    }

    /// The next 32 bits (`genrand_int32`).
    mutating func next() -> UInt32 {
        if index >= 624 {
            for k in 0..<624 {
                let y = (state[k] & 0x8000_0000) | (state[(k + 1) % 624] & 0x7fff_ffff)
                state[k] = state[(k + 397) % 624] ^ (y >> 1) ^ (y & 1 == 0 ? 0 : 0x9908_b0df)
            }
            index = 0
        }
        var y = state[index]
        index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9d2c_5680
        y ^= (y << 15) & 0xefc6_0000
        y ^= y >> 18
        return y
    }

    /// Adds 1 to each sample with probability ¼, as `fe_read_frame` does
    /// (`!(genrand_int31() % 4)`) — but a sample at full scale stays there: sphinxbase wraps it
    /// to −32 768, a click wherever clipped speech happens to draw a 1, which made a loud
    /// answer's decode depend on the draw.
    mutating func apply(to samples: inout [Int16]) {
        for i in samples.indices where (next() >> 1) % 4 == 0 {
            samples[i] = samples[i] == .max ? .max : samples[i] + 1
        }
    }
}
