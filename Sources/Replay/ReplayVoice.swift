public import Arrival
public import Foundation

/// The replay's model of the daemon's voice: prompts said one at a time, through the same
/// ``PromptQueue`` (a repeat of a waiting prompt not queued twice, a newer callout replacing the
/// one waiting, a callout waiting over 10 s dropped), each taking ``seconds(_:)``. It tells the
/// replay when each prompt ends, which the walk hears as ``FinalApproach/Event/spoken(_:)``:
/// the answer window runs from the end of the question, as in the daemon.
///
/// Deterministic: no audio is made or played; a prompt's length is estimated from its words.
public struct ReplayVoice: Sendable {
    /// The prompt being said and when it ends.
    public private(set) var playing: (prompt: FinalApproach.Prompt, ends: Date)?
    private var queue = PromptQueue()
    /// The queue's clock: seconds from this time.
    private let origin: Date

    /// A voice that is silent at `origin` (the replay's start).
    public init(origin: Date) {
        self.origin = origin
    }

    /// How long espeak-ng (Korean voice, 160 words a minute, as `Speaker` speaks) takes to say
    /// `text`, estimated in seconds: 0.2 s a Hangul syllable or digit, 0.08 s a Latin letter,
    /// 0.35 s a pause at "." or ",", and 0.3 s to begin. Within 1 s of the length espeak-ng
    /// gives every prompt of the bundled demo and the others `Prompts` says (the arrival
    /// question with a note: 10.5 s against 11.2 s).
    public static func seconds(_ text: String) -> Double {
        var seconds = 0.3
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0xAC00...0xD7A3, 0x30...0x39: seconds += 0.2
            case 0x41...0x5A, 0x61...0x7A: seconds += 0.08
            case 0x2E, 0x2C: seconds += 0.35
            default: break
            }
        }
        return seconds
    }

    /// Queues `prompt` at `time`; said at once when nothing is being said.
    /// - Returns: the prompts let go unsaid (a callout replaced or the oldest when full), whose
    ///   end is now. A prompt not queued twice is not among them: its twin will end.
    public mutating func say(_ prompt: FinalApproach.Prompt, at time: Date) -> [FinalApproach.Prompt] {
        let dropped = queue.enqueue(prompt, at: time.timeIntervalSince(origin))
        var letGo = dropped.compactMap(Self.letGo)
        if playing == nil { letGo += start(at: time) }
        return letGo
    }

    /// Ends the prompt being said at its end, and starts the next.
    /// - Returns: the prompt that ended, then the callouts that waited too long to be said, all
    ///   ending at that time (`nil` when nothing is being said).
    public mutating func finish() -> (ended: [FinalApproach.Prompt], at: Date)? {
        guard let playing else { return nil }
        self.playing = nil
        return ([playing.prompt] + start(at: playing.ends), playing.ends)
    }

    /// Takes the next prompt from the queue at `time`; the stale callouts skipped are let go.
    private mutating func start(at time: Date) -> [FinalApproach.Prompt] {
        var dropped: [PromptQueue.Dropped] = []
        if let next = queue.next(at: time.timeIntervalSince(origin), dropped: &dropped) {
            playing = (next, time + Self.seconds(next.text))
        }
        return dropped.compactMap(Self.letGo)
    }

    /// The prompt a drop lets go unsaid, if it will not be said by another.
    private static func letGo(_ dropped: PromptQueue.Dropped) -> FinalApproach.Prompt? {
        switch dropped {
        case .duplicate: nil
        case .replaced(let p), .overflow(let p), .stale(let p), .interrupted(let p): p
        }
    }
}
