public import Arrival

/// One stretch of speech the listener heard, in the CONTRACT's Utterance JSON:
/// `{"start": 1.92, "end": 3.10, "heard": "여기 아니야", "meaning": "notHere"|"thisIsIt"|null}`,
/// plus `"confidence"` and `"sure"` when a phrase was recognised.
public struct Utterance: Sendable, Hashable, Codable {
    /// Seconds from the start of the audio where the speech began.
    public var start: Double
    /// Seconds from the start of the audio where the speech ended.
    public var end: Double
    /// The phrases recognised, in Hangul; "…" stands for speech that was no phrase.
    public var heard: String
    /// What the walker meant, as the Listener's policy decided (filler rule and operating
    /// point applied), or `nil` for neither answer.
    public var meaning: ArrivalWords?
    /// How well the recognised phrase fits the audio, 0…1, higher is more confident (see
    /// ``Listener/confidence(of:feature:)`` for the scale); `nil` when no phrase was recognised. Set
    /// even when the policy rejected the phrase, so the operating point can be tuned.
    public var confidence: Double?
    /// Whether `meaning` acts at once (confidence at or above the operating point's `act`);
    /// `false`: middling, the last stretch asks to hear it again.
    public var sure: Bool
    /// Seconds from the start of the audio at which the Listener decided: the end plus the
    /// pause that ends an utterance — the earliest the answer can act. `nil` when not known.
    public var decided: Double?
    /// The scores the confidence was made from (for the benchmark); not encoded, and not part
    /// of the value (equality and hashing leave it out).
    package var evidence: ConfidenceEvidence?
    /// The answer the filler rule let through, before the operating point's thresholds (so
    /// whether a decoder heard an answer does not depend on the point); not encoded, and not
    /// part of the value.
    package var candidate: ArrivalWords?
    /// Every decoder's hearing the Listener chose this one from — the plain decoder's, each
    /// sped-up one's and a re-hearing that counted, this one among them — when more than one
    /// heard the utterance; else empty. The benchmark decides from them at another point as the
    /// Listener would there (the surest hearing with a meaning). Not encoded, and not part of
    /// the value.
    package var hearings: [Utterance] = []
    /// Seconds (wall clock) the Listener spent hearing it again (``Listener/rehear``) after
    /// the pause that ended it, before deciding: added to the wait for the action; `nil` when
    /// it was not heard again. Not encoded, and not part of the value.
    package var rehearing: Double?
    /// Whether this is a re-hearing (``Listener/rehear``), not a hearing of the stream's
    /// decoders: the benchmark counts it only where the stream's hearings act on nothing at
    /// once, as the Listener hears an utterance again only then. Not encoded, and not part of
    /// the value.
    package var reheard = false

    public init(
        start: Double, end: Double, heard: String, meaning: ArrivalWords?, confidence: Double? = nil,
        sure: Bool = true, decided: Double? = nil
    ) {
        self.start = start
        self.end = end
        self.heard = heard
        self.meaning = meaning
        self.confidence = confidence
        self.sure = sure
        self.decided = decided
    }

    public static func == (a: Utterance, b: Utterance) -> Bool {
        (a.start, a.end, a.heard, a.meaning) == (b.start, b.end, b.heard, b.meaning)
            && (a.confidence, a.sure, a.decided) == (b.confidence, b.sure, b.decided)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(start)
        hasher.combine(end)
        hasher.combine(heard)
        hasher.combine(meaning)
        hasher.combine(confidence)
        hasher.combine(sure)
        hasher.combine(decided)
    }

    enum CodingKeys: String, CodingKey { case start, end, heard, meaning, confidence, sure, decided }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = try container.decode(Double.self, forKey: .start)
        end = try container.decode(Double.self, forKey: .end)
        heard = try container.decode(String.self, forKey: .heard)
        meaning = try container.decodeIfPresent(ArrivalWords.self, forKey: .meaning)
        confidence = try container.decodeIfPresent(Double.self, forKey: .confidence)
        sure = try container.decodeIfPresent(Bool.self, forKey: .sure) ?? true
        decided = try container.decodeIfPresent(Double.self, forKey: .decided)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(heard, forKey: .heard)
        // The contract writes `null`, not an absent key, for "neither".
        if let meaning {
            try container.encode(meaning, forKey: .meaning)
        } else {
            try container.encodeNil(forKey: .meaning)
        }
        if let confidence {
            // Three decimals: enough against the operating point, stable in golden files.
            try container.encode((confidence * 1000).rounded() / 1000, forKey: .confidence)
            try container.encode(sure, forKey: .sure)
        }
        if let decided { try container.encode(decided, forKey: .decided) }
    }
}

extension Utterance {
    /// The hearings the Listener chose among (``hearings``), or this one alone.
    package var everyHearing: [Utterance] { hearings.isEmpty ? [self] : hearings }

    /// This hearing judged at `point`, as the Listener judges every hearing: the answer the
    /// filler rule let through (``candidate``) is its meaning at or above that answer's `ask`,
    /// and sure at or above its `act` (a hearing without a confidence is sure).
    package func judged(at point: OperatingPoint) -> Utterance {
        var judged = self
        let judgement = judgement(at: point)
        judged.meaning = judgement?.meaning
        judged.sure = judgement?.sure ?? false
        return judged
    }

    /// `judged(at:)`'s meaning and `sure`, without copying the utterance (the tuner asks it of
    /// every hearing at every point it tries); `nil` for no meaning at `point`.
    package func judgement(at point: OperatingPoint) -> (meaning: ArrivalWords, sure: Bool)? {
        guard let candidate else { return nil }
        let thresholds = point.thresholds(for: candidate)
        if let confidence, confidence < thresholds.ask { return nil }
        return (candidate, confidence.map { $0 >= thresholds.act } ?? true)
    }

    /// The answer the last stretch acts on: the Listener's decision, not the text again.
    public var answer: Heard {
        Heard(text: heard, meaning: meaning, confidence: confidence, source: .voice, sure: sure)
    }
}
