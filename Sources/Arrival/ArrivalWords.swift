/// The walker's two spoken answers during the last stretch.
public enum ArrivalWords: String, Sendable, Hashable, Codable, CaseIterable {
    /// "여기 아니야" — this is not the door.
    case notHere
    /// "여기가 입구야" — this is the entrance.
    case thisIsIt

    /// Refusals. Checked first: a sentence holding both kinds is a refusal, because taking a
    /// wrong "yes" writes a wrong door into memory at the highest rank.
    public static let refusals = [
        "여기아니야", "여기아냐", "여기가아니야", "여기가아냐", "여기아닌데",
        "입구아니야", "입구가아니야", "이입구아니야",
    ]
    /// Confirmations.
    public static let confirmations = ["여기가입구야", "여기입구야", "여기맞아", "입구찾았어", "여기가맞아"]

    /// What a heard sentence means, or `nil` when it is neither answer.
    ///
    /// Spaces (any whitespace) are removed before matching, so "여기 아니야" and "여기아니야"
    /// are one answer.
    public static func meaning(of text: String) -> ArrivalWords? {
        let squeezed = String(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        if refusals.contains(where: squeezed.contains) { return .notHere }
        if confirmations.contains(where: squeezed.contains) { return .thisIsIt }
        return nil
    }
}
