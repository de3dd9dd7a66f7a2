/// Tells a capture device that delivers audio faster than real time — ALSA's `null` (zeros at
/// once), a file plugin, anything that is not a microphone — from one that is, by the audio
/// it delivered against the clock, and says how long to wait to read it at real time.
/// Without it an open-ended capture on such a device spun a core and flooded the consumer
/// (docs/daemon.md). The clock is passed in.
package struct CapturePace: Sendable {
    /// Audio a device may deliver ahead of the clock (seconds) before it is taken for one
    /// faster than real time: a microphone's first read holds at most its buffer (0.1 s,
    /// ``PCMDevice``).
    package static let leadSeconds = 1.0
    /// And this fraction of the time elapsed more: a sound card's clock is its own, not the
    /// system's (a crystal is within 0.01 % of it; this allows a hundred times that).
    static let drift = 0.01

    private let sampleRate: Int
    private var captured = 0
    /// The device delivered audio faster than real time (for good, once seen).
    package private(set) var fasterThanRealTime = false

    package init(sampleRate: Int = Listener.sampleRate) { self.sampleRate = sampleRate }

    /// The device delivered `count` more samples, `elapsed` seconds after the capture began:
    /// how long to wait (seconds) before reading on at real time; 0 for a microphone.
    package mutating func delivered(_ count: Int, after elapsed: Double) -> Double {
        captured += count
        let ahead = Double(captured) / Double(sampleRate) - elapsed
        if ahead > Self.leadSeconds + Self.drift * elapsed { fasterThanRealTime = true }
        return fasterThanRealTime ? max(0, ahead - Self.leadSeconds) : 0
    }

    /// The device overran (``CaptureRead/overran``) `elapsed` seconds after the capture began:
    /// the samples it lost — the clock's audio since the capture began less all it delivered
    /// or lost before — counted from now on as delivered: the gap to within the device's buffer
    /// (100 ms, ``PCMDevice``) and its clock's drift from the system's since the capture began
    /// (a crystal within 50–100 ppm: 30–60 ms over the ten minutes of a last stretch, the
    /// daemon's capture; 0.2–0.4 s over an hour).
    package mutating func overran(after elapsed: Double) -> Int {
        let lost = max(0, Int((elapsed * Double(sampleRate)).rounded()) - captured)
        captured += lost
        return lost
    }
}
