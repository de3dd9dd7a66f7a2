import Foundation
import Synchronization

/// Half-duplex between the speaker and the microphone: closed while a prompt plays (and for
/// `echoSeconds` after), so audio captured then is never decoded — a prompt such as
/// "…여기가 입구야라고 말해줘" holds a trigger phrase.
public final class HalfDuplexGate: Sendable {
    /// How long after playback the gate stays closed: room echo and the device's buffer (s).
    public let echoSeconds: Double
    private let state = Mutex<(speaking: Int, openAt: ContinuousClock.Instant)>((0, .now))

    public init(echoSeconds: Double = 0.3) { self.echoSeconds = echoSeconds }

    /// The speaker starts talking.
    public func close() { state.withLock { $0.speaking += 1 } }

    /// The speaker has finished; the gate opens after `echoSeconds`.
    public func open() {
        state.withLock {
            $0.speaking = max(0, $0.speaking - 1)
            $0.openAt = .now + .milliseconds(Int(echoSeconds * 1000))
        }
    }

    /// Whether audio captured now must be dropped.
    public var isClosed: Bool { state.withLock { $0.speaking > 0 || ContinuousClock.now < $0.openAt } }
}
