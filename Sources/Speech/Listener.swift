import Arrival
import Foundation

/// Hears the walker's answers: one long-lived PocketSphinx decoder fed 16 kHz mono audio in
/// chunks of any size, cut into utterances by the decoder's voice activity detector (speech,
/// then silence, ends one; `maxUtteranceSeconds` caps one), each mapped to its meaning.
///
/// Not thread-safe: own it on one thread or task (the microphone loop or a file decode).
/// Half-duplex: audio marked `muted` (captured while the speaker talks) or before
/// `discardAudio(until:)` is never decoded, and an utterance it interrupts is dropped.
public final class Listener {
    /// How utterances are accepted; see models/README.md for how these were chosen.
    public struct Policy: Sendable, Hashable {
        /// An utterance longer than this (seconds) is cut, so a noisy room cannot feed the
        /// filler loop forever.
        public var maxUtteranceSeconds: Double
        /// At most this many filler syllables may surround a refusal.
        public var maxFillersNotHere: Int
        /// At most this many filler syllables may surround a confirmation: stricter, since a
        /// false "여기가 입구야" writes a wrong door into memory at the highest rank.
        public var maxFillersThisIsIt: Int

        public init(maxUtteranceSeconds: Double = 5, maxFillersNotHere: Int = 2, maxFillersThisIsIt: Int = 1)
        {
            self.maxUtteranceSeconds = maxUtteranceSeconds
            self.maxFillersNotHere = maxFillersNotHere
            self.maxFillersThisIsIt = maxFillersThisIsIt
        }

        /// The policy the product uses.
        public static let standard = Policy()
    }

    /// Samples per second the decoder takes.
    public static let sampleRate = 16_000
    /// Audio is fed in blocks this long (samples) so start/end times do not depend on the
    /// caller's chunk size: 20 ms.
    static let blockSamples = 320

    public let policy: Policy
    private let decoder: Decoder
    private let prespeechSamples: Int
    private var fed = 0
    private var speechStart: Int?
    private var muteUntilSample = 0
    /// Samples waiting for a whole block, so blocks fall on the same 20 ms grid whatever
    /// the caller's chunk size.
    private var pending: [Int16] = []
    private var pendingMuted = false
    private var foreground = ForegroundDetector()
    /// Consecutive blocks below the foreground level.
    private var quietBlocks = 0
    /// Samples fed since the decoder's utterance began (to drop background it collected).
    private var decoderFed = 0
    /// A foreground pause this long ends an utterance (blocks of 20 ms): 0.4 s.
    static let pauseBlocks = 20

    /// A listener on `model` (see `PhraseModel.locate`).
    /// - Throws: `SpeechError.model` when PocketSphinx refuses the model.
    public init(model: PhraseModel, policy: Policy = .standard) throws(SpeechError) {
        self.policy = policy
        decoder = try Decoder(model: model)
        // The VAD reports speech only after `-vad_prespeech` frames (10 ms each) of it: the
        // start is moved back by as much.
        prespeechSamples = decoder.integer("-vad_prespeech") * Self.sampleRate / 100
        try decoder.startUtterance()
        try warmUp()
    }

    /// The detector's noise estimate starts empty and takes the first frames of a file that
    /// begins in digital silence for speech; 0.5 s of a faint room floor (±4 of 32 767, not
    /// counted in the times) settles it before real audio arrives. The cepstral mean is put
    /// back afterwards: normalising speech by the floor's spectrum loses words.
    private func warmUp() throws(SpeechError) {
        var random = UInt32(12_345)
        let floor = (0..<8_000).map { _ -> Int16 in
            random = random &* 1_664_525 &+ 1_013_904_223
            return Int16(Int(random >> 29) - 4)
        }
        // The foreground detector learns the same quiet floor, so audio that starts with
        // speech counts as foreground from its first block.
        floor.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: Self.blockSamples) {
                _ = foreground.isForeground(
                    UnsafeBufferPointer(rebasing: buffer[start..<start + Self.blockSamples]))
            }
        }
        try decoder.preservingCepstralMean { () throws(SpeechError) in
            _ = try floor.withUnsafeBufferPointer { buffer throws(SpeechError) in try decoder.process(buffer)
            }
            _ = try decoder.endUtterance()
        }
        try decoder.startUtterance()
    }

    /// Seconds of audio fed so far (muted audio included).
    public var position: Double { Double(fed) / Double(Self.sampleRate) }

    /// Drops all audio up to `seconds` from the start of the audio (half-duplex: the time
    /// the speaker's prompt ends, plus its echo).
    public func discardAudio(until seconds: Double) {
        muteUntilSample = max(muteUntilSample, Int(seconds * Double(Self.sampleRate)))
    }

    /// Feeds the next 16 kHz mono samples; returns the utterances they completed.
    /// - Parameter muted: the samples were captured while the speaker was talking: they
    ///   advance the clock but are never decoded.
    public func process(samples: [Int16], muted: Bool = false) throws(SpeechError) -> [Utterance] {
        var out: [Utterance] = []
        var input = samples
        if !pending.isEmpty {
            if pendingMuted != muted {
                out += try feed(pending, muted: pendingMuted)
            } else {
                input = pending + samples
            }
            pending = []
        }
        let whole = input.count / Self.blockSamples * Self.blockSamples
        out += try feed(Array(input[..<whole]), muted: muted)
        pending = Array(input[whole...])
        pendingMuted = muted
        return out
    }

    private func feed(_ samples: [Int16], muted: Bool) throws(SpeechError) -> [Utterance] {
        var out: [Utterance] = []
        var index = 0
        while index < samples.count {
            let count = min(Self.blockSamples, samples.count - index)
            if muted || fed + count <= muteUntilSample {
                try abandonUtterance()
                fed += count
            } else {
                if !decoder.inUtterance {
                    try decoder.startUtterance()
                    decoderFed = 0
                }
                let (inSpeech, loud) = try samples.withUnsafeBufferPointer { buffer throws(SpeechError) in
                    let block = UnsafeBufferPointer(rebasing: buffer[index..<index + count])
                    return (try decoder.process(block), foreground.isForeground(block))
                }
                fed += count
                decoderFed += count
                quietBlocks = loud ? 0 : quietBlocks + 1
                // Foreground heard within the detector's pre-speech window.
                let recentlyLoud = quietBlocks * Self.blockSamples < prespeechSamples
                if inSpeech, speechStart == nil, recentlyLoud {
                    speechStart = max(0, fed - prespeechSamples - count)
                } else if let start = speechStart, !inSpeech || quietBlocks >= Self.pauseBlocks {
                    // The speech ended where the foreground level last fell (PocketSphinx's
                    // flag drops only after its -vad_postspeech hangover).
                    let end = fed - max(quietBlocks, 1) * Self.blockSamples
                    if let utterance = try closeUtterance(start: start, end: max(start, end)) {
                        out.append(utterance)
                    }
                } else if speechStart == nil, quietBlocks >= Self.pauseBlocks, decoderFed > Self.sampleRate {
                    // Background only for a while: start afresh so the next utterance does
                    // not begin with seconds of it.
                    _ = try decoder.endUtterance()
                }
                if let start = speechStart,
                    Double(fed - start) / Double(Self.sampleRate) >= policy.maxUtteranceSeconds
                {
                    if let utterance = try closeUtterance(start: start, end: fed) { out.append(utterance) }
                }
            }
            index += count
        }
        return out
    }

    /// Ends the audio: returns the utterance still open, if any. The listener can go on
    /// afterwards (times continue).
    public func finish() throws(SpeechError) -> [Utterance] {
        var out = try feed(pending, muted: pendingMuted)
        pending = []
        guard let start = speechStart else {
            try abandonUtterance()
            return out
        }
        out += try closeUtterance(start: start, end: fed).map { [$0] } ?? []
        return out
    }

    private func abandonUtterance() throws(SpeechError) {
        speechStart = nil
        if decoder.inUtterance { _ = try decoder.endUtterance() }
    }

    private func closeUtterance(start: Int, end: Int) throws(SpeechError) -> Utterance? {
        speechStart = nil
        let hypothesis = try decoder.endUtterance()
        try decoder.startUtterance()
        decoderFed = 0
        let rate = Double(Self.sampleRate)
        return Self.utterance(
            from: hypothesis.text, start: Double(start) / rate, end: Double(end) / rate, policy: policy)
    }

    /// The utterance a hypothesis means: phrase tokens ("여기_아니야") are phrases, `f_…`
    /// tokens are filler syllables (other speech) and become "…" — a separator, so two
    /// halves of a phrase around other speech never join into one — and `d_…` tokens are
    /// decoy words (near-misses such as 거기, 앉아), shown as "[거기]".
    /// - Returns: `nil` when nothing at all was recognised.
    static func utterance(from hypothesis: String, start: Double, end: Double, policy: Policy) -> Utterance? {
        var parts: [String] = []
        var phrases: [String] = []
        var fillers = 0
        for token in hypothesis.split(separator: " ") {
            if token.hasPrefix("f_") {
                fillers += 1
                if parts.last != "…" { parts.append("…") }
            } else if token.hasPrefix("d_") {
                // A decoy word: heard, but no phrase; brackets keep it from joining a
                // neighbour into a phrase when the text is matched again downstream.
                fillers += 1
                parts.append("[\(token.dropFirst(2))]")
            } else if !token.hasPrefix("<"), !token.hasPrefix("[") {
                let phrase = token.replacingOccurrences(of: "_", with: " ")
                parts.append(phrase)
                phrases.append(phrase)
            }
        }
        guard !parts.isEmpty else { return nil }
        let meanings = phrases.compactMap(ArrivalWords.meaning(of:))
        var meaning: ArrivalWords? = meanings.contains(.notHere) ? .notHere : meanings.first
        switch meaning {
        case .notHere where fillers > policy.maxFillersNotHere: meaning = nil
        case .thisIsIt where fillers > policy.maxFillersThisIsIt: meaning = nil
        default: break
        }
        return Utterance(start: start, end: end, heard: parts.joined(separator: " "), meaning: meaning)
    }

    /// Decodes a whole WAV file (PCM 16-bit, any rate and channels) in one pass.
    /// - Throws: `SpeechError.badAudio`/`.io` naming the file; decoder errors.
    public static func decode(
        wav path: String, model: PhraseModel, policy: Policy = .standard
    ) throws(SpeechError)
        -> [Utterance]
    {
        let audio = try WAV.read16kMono(path: path)
        let listener = try Listener(model: model, policy: policy)
        return try listener.process(samples: audio.samples) + listener.finish()
    }
}
