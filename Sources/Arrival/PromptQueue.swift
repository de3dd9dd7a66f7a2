/// Prompts waiting to be spoken, for the shell that speaks them one at a time.
///
/// Guidance is never queued stale: a newer callout replaces an unspoken older one, because
/// "삼십 미터" said after the walker has gone ten more metres is wrong. Other prompts (arrival,
/// answers, GPS trouble) are kept in order.
public struct PromptQueue: Sendable, Hashable {
    public private(set) var waiting: [FinalApproach.Prompt] = []

    public init() {}

    /// Adds `prompt`; a callout first drops any unspoken callout.
    public mutating func enqueue(_ prompt: FinalApproach.Prompt) {
        if prompt.isCallout { waiting.removeAll(where: \.isCallout) }
        waiting.append(prompt)
    }

    /// The next prompt to speak, removed from the queue.
    public mutating func next() -> FinalApproach.Prompt? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }
}
