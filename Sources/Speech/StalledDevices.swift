import Synchronization

/// Devices whose ALSA call — an open, a read, a write or a drain — is still blocked on a
/// thread its caller gave up on (``Playback``, ``Microphone``). ALSA has no deadline of its own
/// for these, so the thread is left blocked; while it is, the device is not opened again: its
/// next use fails at once ("still stalled"), and a device that stays stalled holds one thread,
/// not one per try. Once ALSA lets the thread go (the device woke), it clears the device.
final class StalledDevices: Sendable {
    /// Loudspeakers (``Playback``).
    static let playback = StalledDevices(what: "an earlier sound")
    /// Microphones (``Microphone``).
    static let capture = StalledDevices(what: "an earlier capture")

    /// The devices: true when given up on, false while still opening (``opening(_:)``).
    private let devices = Mutex<[String: Bool]>([:])
    /// What is still blocked, for the message.
    private let what: String

    private init(what: String) { self.what = what }

    /// - Throws: `SpeechError.audioDevice` ("still stalled") while `device` is, or ("still
    ///   opening") while an earlier open of it has not come back (``opening(_:)``).
    func check(_ device: String) throws(SpeechError) {
        if let stalled = devices.withLock({ $0[device] }) { throw refusal(device, stalled: stalled) }
    }

    /// `device` is being opened: until ``remove(_:)`` (it came back) or ``insert(_:)`` (given
    /// up on), it is not opened again; a second open fails at once rather than block a second
    /// thread on it (before, each open started within the first's 5 s blocked one more).
    /// - Throws: as ``check(_:)``.
    func opening(_ device: String) throws(SpeechError) {
        let earlier = devices.withLock { devices -> Bool? in
            if let stalled = devices[device] { return stalled }
            devices[device] = false
            return nil
        }
        if let earlier { throw refusal(device, stalled: earlier) }
    }

    private func refusal(_ device: String, stalled: Bool) -> SpeechError {
        .audioDevice(
            device: device,
            reason: stalled
                ? "still stalled: \(what) has not come back from ALSA"
                : "still opening: \(what) has not come back from ALSA yet")
    }

    /// `device`'s call was given up on, blocked.
    func insert(_ device: String) { devices.withLock { $0[device] = true } }

    /// `device`'s blocked call, or its open (``opening(_:)``), has come back.
    func remove(_ device: String) { _ = devices.withLock { $0.removeValue(forKey: device) } }
}
