public import Arrival

/// One stretch of speech the listener heard, in the CONTRACT's Utterance JSON:
/// `{"start": 1.92, "end": 3.10, "heard": "여기 아니야", "meaning": "notHere"|"thisIsIt"|null}`.
public struct Utterance: Sendable, Hashable, Codable {
    /// Seconds from the start of the audio where the speech began.
    public var start: Double
    /// Seconds from the start of the audio where the speech ended.
    public var end: Double
    /// The phrases recognised, in Hangul; "…" stands for speech that was no phrase.
    public var heard: String
    /// What the walker meant, or `nil` for neither answer.
    public var meaning: ArrivalWords?

    public init(start: Double, end: Double, heard: String, meaning: ArrivalWords?) {
        self.start = start
        self.end = end
        self.heard = heard
        self.meaning = meaning
    }

    enum CodingKeys: String, CodingKey { case start, end, heard, meaning }

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
    }
}

extension Utterance {
    /// The answer the last stretch acts on: the Listener's decision, not the text again.
    public var answer: Heard {
        Heard(text: heard, meaning: meaning, source: .voice)
    }
}
