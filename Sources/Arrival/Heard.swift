/// One answer as the last stretch receives it.
///
/// Every answer reaches ``FinalApproach`` as one of these, whatever it came from: the
/// Listener's decision for speech (its meaning and confidence, already judged by its
/// policy), the ``ArrivalWords`` rules for typed text, the key's meaning for a button. The
/// approach never derives a meaning again from `text`, which is for the log only.
public struct Heard: Sendable, Hashable {
    /// Where an answer came from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The microphone, through the Listener.
        case voice
        /// A hardware key.
        case button
        /// Typed text: the control socket's `heard` request, or a replay's `--heard` file.
        case socket
    }

    /// Display text ("여기 아니야", "[거기] 아니야 …", or "KEY_N").
    public var text: String
    /// The decision (the Listener's for voice; ArrivalWords rules for typed text; the key's
    /// for a button), or `nil` for neither answer.
    public var meaning: ArrivalWords?
    /// Voice only: the Listener's measured confidence, 0…1, higher is more confident (see
    /// `Listener` for its scale); `nil` when not measured.
    public var confidence: Double?
    public var source: Source
    /// `true`: act at once (buttons and socket text always; voice at or above the operating
    /// point's `act`). `false`: a middling answer that acts only when confirmed by a repeat
    /// inside the answer window.
    public var sure: Bool

    public init(
        text: String, meaning: ArrivalWords?, confidence: Double? = nil, source: Source, sure: Bool = true
    ) {
        self.text = text
        self.meaning = meaning
        self.confidence = confidence
        self.source = source
        self.sure = sure
    }

    /// Typed text (socket `heard` request, `replay --heard` TSV): ArrivalWords rules, sure.
    public static func typed(_ text: String, source: Source = .socket) -> Heard {
        Heard(text: text, meaning: ArrivalWords.meaning(of: text), source: source)
    }

    /// A button press: its meaning, sure.
    public static func button(_ meaning: ArrivalWords, key: String) -> Heard {
        Heard(text: key, meaning: meaning, source: .button)
    }
}
