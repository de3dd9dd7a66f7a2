import Foundation
import Synchronization

/// Half-duplex between the speaker and the microphone: closed while a prompt plays (and for
/// `echoSeconds` after), so audio captured then is never decoded — a prompt such as
/// "…여기가 입구야라고 말해줘" holds a trigger phrase.
///
/// Every closing is bounded: it ends when the speaker opens it, or by itself when its time is
/// up. A device that stalls mid-sound therefore mutes the microphone for the sound's length
/// and a margin, not for the rest of the daemon's life (before, the gate was counted shut until
/// `play` returned, which a stalled device never did).
public final class HalfDuplexGate: Sendable {
    /// How long after playback the gate stays closed: room echo and the device's buffer (s).
    public let echoSeconds: Double
    private let state = Mutex<State>(State())

    private struct State {
        /// Each closing under way and when it ends by itself.
        var closings: [Int: ContinuousClock.Instant] = [:]
        var next = 0
        var openAt = ContinuousClock.now
    }

    /// One closing of the gate, given back to ``open(_:)``.
    public struct Closing: Sendable, Hashable {
        fileprivate let id: Int
    }

    public init(echoSeconds: Double = 0.3) { self.echoSeconds = echoSeconds }

    /// The speaker starts talking, for at most `seconds`: the gate opens by itself after them
    /// if ``open(_:)`` has not come by then.
    public func close(for seconds: Double) -> Closing {
        state.withLock {
            // Closings a stalled sound never gave back, once their time is up.
            let now = ContinuousClock.now
            $0.closings = $0.closings.filter { now < $0.value }
            $0.next += 1
            $0.closings[$0.next] = .now + .milliseconds(Int(max(0, seconds) * 1000))
            return Closing(id: $0.next)
        }
    }

    /// The speaker has finished; the gate opens after `echoSeconds`. A closing whose time was
    /// already up (its sound gave up on a stalled device) leaves the gate as it is.
    public func open(_ closing: Closing) {
        state.withLock {
            guard let until = $0.closings.removeValue(forKey: closing.id), ContinuousClock.now < until else {
                return
            }
            $0.openAt = max($0.openAt, .now + .milliseconds(Int(echoSeconds * 1000)))
        }
    }

    /// Whether audio captured now must be dropped.
    public var isClosed: Bool {
        state.withLock {
            let now = ContinuousClock.now
            return $0.closings.values.contains { now < $0 } || now < $0.openAt
        }
    }
}
