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

    private let devices = Mutex<Set<String>>([])
    /// What is still blocked, for the message.
    private let what: String

    private init(what: String) { self.what = what }

    /// - Throws: `SpeechError.audioDevice` ("still stalled") while `device` is.
    func check(_ device: String) throws(SpeechError) {
        guard !devices.withLock({ $0.contains(device) }) else {
            throw .audioDevice(device: device, reason: "still stalled: \(what) has not come back from ALSA")
        }
    }

    /// `device`'s call was given up on, blocked.
    func insert(_ device: String) { _ = devices.withLock { $0.insert(device) } }

    /// `device`'s blocked call has come back.
    func remove(_ device: String) { _ = devices.withLock { $0.remove(device) } }
}
