/// Prompts waiting to be spoken, for the shell that speaks them one at a time.
///
/// The queue never jams and never lies:
/// - it is bounded (``capacity``): a flood of requests cannot queue minutes of speech;
/// - a prompt identical to one already waiting is not queued twice (300 `repeat`s wait as one);
/// - a newer callout replaces an unspoken older one (its words the same or not: the newer is
///   queued now, so it ages from now), and a callout waiting longer than
///   ``calloutMaxAgeSeconds`` is dropped, because "삼십 미터" said after the walker has gone
///   ten more metres is wrong; a prompt that is no callout (a `repeat`) with the words of a
///   waiting callout makes it one that never ages out, since the walker asked for it;
/// - ``interrupt(with:at:)`` (`stop`) drops everything waiting and puts its own prompt next.
///
/// Times are seconds on any monotonic clock the shell chooses; the queue reads no clock.
public struct PromptQueue: Sendable, Hashable {
    /// The most prompts waiting at once: more than any walk produces between two prompts
    /// (an arrival, a level check and an answer), far less than a flood.
    public static let capacity = 8
    /// A distance callout older than this is stale: the walker has moved on (seconds).
    public static let calloutMaxAgeSeconds = 10.0

    /// One waiting prompt and when it was queued (seconds, the shell's monotonic clock).
    public struct Entry: Sendable, Hashable {
        public var prompt: FinalApproach.Prompt
        public var queuedAt: Double
    }

    /// What was dropped instead of spoken, for the log.
    public enum Dropped: Sendable, Hashable {
        /// The same text was already waiting.
        case duplicate(FinalApproach.Prompt)
        /// A newer callout replaced it.
        case replaced(FinalApproach.Prompt)
        /// The queue was full: the oldest waiting prompt went.
        case overflow(FinalApproach.Prompt)
        /// A callout that waited too long.
        case stale(FinalApproach.Prompt)
        /// `stop` cleared it.
        case interrupted(FinalApproach.Prompt)
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    /// The waiting prompts, oldest first.
    public var waiting: [FinalApproach.Prompt] { entries.map(\.prompt) }

    /// Adds `prompt`, queued at `now` (seconds).
    /// - Returns: what was dropped to make it fit (empty when nothing was).
    @discardableResult
    public mutating func enqueue(_ prompt: FinalApproach.Prompt, at now: Double) -> [Dropped] {
        var dropped: [Dropped] = []
        // A callout replaces the one waiting before the duplicate rule, even with the same words:
        // queued now, it ages from now (before: the fresh one was dropped as a duplicate, and the
        // one kept was then dropped as stale, so no guidance was said at all).
        if prompt.isCallout {
            dropped += entries.filter(\.prompt.isCallout).map { .replaced($0.prompt) }
            entries.removeAll(where: \.prompt.isCallout)
        }
        if let twin = entries.firstIndex(where: { $0.prompt.text == prompt.text }) {
            // A repeat (no callout) of a waiting callout: the walker asked for these words, so
            // the one waiting no longer ages out (before, the repeat was dropped as its
            // duplicate, then it went stale, and nothing was said).
            if !prompt.isCallout { entries[twin].prompt.isCallout = false }
            return dropped + [.duplicate(prompt)]
        }
        if entries.count >= Self.capacity {
            // Callouts are the cheapest to lose; otherwise the oldest prompt goes.
            let victim = entries.firstIndex(where: \.prompt.isCallout) ?? entries.startIndex
            dropped.append(.overflow(entries.remove(at: victim).prompt))
        }
        entries.append(Entry(prompt: prompt, queuedAt: now))
        return dropped
    }

    /// The next prompt to speak at `now` (seconds), removed from the queue; stale callouts
    /// before it are dropped (reported through `dropped`).
    public mutating func next(at now: Double, dropped: inout [Dropped]) -> FinalApproach.Prompt? {
        while !entries.isEmpty {
            let entry = entries.removeFirst()
            if entry.prompt.isCallout, now - entry.queuedAt > Self.calloutMaxAgeSeconds {
                dropped.append(.stale(entry.prompt))
                continue
            }
            return entry.prompt
        }
        return nil
    }

    /// The next prompt to speak at `now`, dropping stale callouts silently.
    public mutating func next(at now: Double) -> FinalApproach.Prompt? {
        var ignored: [Dropped] = []
        return next(at: now, dropped: &ignored)
    }

    /// `stop`: everything waiting is dropped; `prompt` (if any) is spoken next.
    /// - Returns: the dropped prompts.
    @discardableResult
    public mutating func interrupt(with prompt: FinalApproach.Prompt?, at now: Double) -> [Dropped] {
        let dropped = entries.map { Dropped.interrupted($0.prompt) }
        entries = prompt.map { [Entry(prompt: $0, queuedAt: now)] } ?? []
        return dropped
    }
}
