/// What went wrong in the speech edge: bad audio files, a missing model, a C library refusing.
public enum SpeechError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An audio file that cannot be used; `reason` says why ("not PCM (format 3)", "no samples").
    case badAudio(path: String, reason: String)
    /// A file that cannot be read or written at all.
    case io(path: String, reason: String)
    /// The phrase model or acoustic model was not found or not accepted by PocketSphinx.
    case model(String)
    /// PocketSphinx failed while decoding.
    case decoder(String)
    /// espeak-ng failed (status message from the library).
    case synthesizer(String)
    /// espeak-ng has no voice of that name (bad input: `--voice`).
    case noVoice(name: String, reason: String)
    /// WebRTC's noise suppression refused its level or failed on a frame.
    case noiseSuppression(String)
    /// ALSA failed (device name and `snd_strerror` text).
    case audioDevice(device: String, reason: String)

    public var description: String {
        switch self {
        case .badAudio(let path, let reason): "\(path): \(reason)"
        case .io(let path, let reason): "\(path): \(reason)"
        case .model(let message): "phrase model: \(message)"
        case .decoder(let message): "PocketSphinx: \(message)"
        case .synthesizer(let message): "espeak-ng: \(message)"
        case .noVoice(let name, let reason):
            "espeak-ng: no voice \"\(name)\" (\(reason)); espeak-ng --voices=ko lists them"
        case .noiseSuppression(let message): "WebRTC noise suppression: \(message)"
        case .audioDevice(let device, let reason): "sound device \(device): \(reason)"
        }
    }
}
