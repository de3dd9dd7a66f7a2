/// The level of speech as the voice benchmark measures it (`VoiceEval`'s `Corpus.activeRMS`,
/// less a last partial frame): the RMS over the louder half of its 20 ms frames (16 kHz), so
/// pauses do not count.
/// Shared by the speech and command-line tests that put noise a number of dB below speech.
package func speechLevel(_ speech: [Int16]) -> Double {
    let frames = stride(from: 0, to: speech.count - 320, by: 320).map { start in
        speech[start..<start + 320].reduce(0.0) { $0 + Double($1) * Double($1) } / 320
    }.sorted()
    return (frames[(frames.count / 2)...].reduce(0, +) / Double(frames.count - frames.count / 2))
        .squareRoot()
}

/// The voice benchmark's speech level (`VoiceEval`'s `Corpus.speechRMS`): every answer is
/// scaled to it before noise goes in.
package let benchmarkSpeechLevel = 3_277.0

/// `clip` scaled so that its ``speechLevel(_:)`` is the benchmark's.
package func atBenchmarkLevel(_ clip: [Int16]) -> [Double] {
    let gain = benchmarkSpeechLevel / speechLevel(clip)
    return clip.map { Double($0) * gain }
}
