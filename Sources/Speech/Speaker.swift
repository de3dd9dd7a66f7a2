import Arrival
import CEspeakNG
import Foundation

/// Speaks Korean with espeak-ng: into a sample buffer, a WAV file, or the sound device.
///
/// Every espeak-ng call runs on one dedicated thread (`SpeechThread.espeak`): the library's
/// state is process-global. Digits are rewritten to Hangul first
/// (`KoreanNumbers.spokenForm(of:)`), since espeak-ng's Korean voice reads Arabic numerals
/// wrongly for metres, floors and clock directions.
public final class Speaker: Sendable {
    /// espeak-ng voice name ("ko", "ko+m3", "ko+f2").
    public let voice: String
    /// Speaking rate in words per minute (espeak-ng's `espeakRATE`, 80…450).
    public let wordsPerMinute: Int

    /// - Throws: `SpeechError.synthesizer` when espeak-ng cannot start or has no such voice.
    public init(voice: String = "ko", wordsPerMinute: Int = 160) throws(SpeechError) {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        if let problem = SpeechThread.espeak.sync({ Engine.start() }) { throw .synthesizer(problem) }
    }

    /// The samples of `text` spoken (mono, espeak-ng's rate, 22 050 Hz).
    /// - Throws: `SpeechError.synthesizer` with espeak-ng's message.
    public func synthesize(_ text: String) throws(SpeechError) -> Audio {
        let spoken = KoreanNumbers.spokenForm(of: text)
        let (voice, rate) = (voice, wordsPerMinute)
        let result = SpeechThread.espeak.sync { Engine.synthesize(spoken, voice: voice, rate: rate) }
        switch result {
        case .success(let audio): return audio
        case .failure(let error): throw error
        }
    }

    /// Writes `text` spoken as a mono PCM 16-bit WAV file at `path`.
    public func writeWAV(_ text: String, to path: String) throws(SpeechError) {
        try WAV.write(synthesize(text), to: path)
    }

    /// Speaks `text` on the ALSA `device` and returns when it has been heard. While it plays,
    /// `gate` (if any) is closed so the microphone's audio is not decoded (half-duplex).
    /// - Throws: `SpeechError.audioDevice` when the device fails or stalls (``Playback``).
    public func play(
        _ text: String, device: String = "default", gate: HalfDuplexGate? = nil
    ) throws(SpeechError) {
        try play(try synthesize(text), device: device, gate: gate)
    }

    /// Plays `audio` (made by ``synthesize(_:)``) as ``play(_:device:gate:)`` plays text. The
    /// gate is closed once the device is open, for the sound's duration and a margin at most; a
    /// device that does not open within 5 s, or does not play the sound within its duration and
    /// 3 s, is an error ("stalled"), and so is its next sound while ALSA still holds the first.
    public func play(
        _ audio: Audio, device: String = "default", gate: HalfDuplexGate? = nil
    ) throws(SpeechError) {
        try Playback.run(device: device, sampleRate: audio.sampleRate, samples: audio.samples, gate: gate)
    }

    /// Opens `device` for playback at espeak-ng's rate and closes it again: a session checks
    /// its loudspeaker before it makes anything or asks anyone to speak.
    /// - Throws: `SpeechError.audioDevice` when the device cannot be opened, or has not opened
    ///   within 5 s ("stalled").
    public func check(device: String) throws(SpeechError) {
        let rate = SpeechThread.espeak.sync { Int(espeak_ng_GetSampleRate()) }
        try Playback.run(device: device, sampleRate: rate, samples: [], gate: nil)
    }

    /// Whether `audio` holds any speech: espeak-ng makes a few milliseconds of silence of text it
    /// has no sounds for (emoji, punctuation alone).
    public static func isSpeech(_ audio: Audio) -> Bool {
        audio.samples.contains { abs(Int($0)) > 256 }
    }
}

/// espeak-ng's global state. Only ever called on `SpeechThread.espeak`.
private enum Engine {
    nonisolated(unsafe) static var started = false  // only touched on SpeechThread.espeak
    nonisolated(unsafe) static var collected: [Int16] = []  // only touched on SpeechThread.espeak

    static func start() -> String? {
        if started { return nil }
        espeak_ng_InitializePath(nil)
        var context: espeak_ng_ERROR_CONTEXT?
        var status = espeak_ng_Initialize(&context)
        if status != ENS_OK {
            espeak_ng_ClearErrorContext(&context)
            return "cannot start (\(message(status))); apt-get install espeak-ng-data"
        }
        status = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
        if status != ENS_OK { return "cannot set synchronous output (\(message(status)))" }
        espeak_SetSynthCallback { samples, count, _ in
            if let samples, count > 0 {
                Engine.collected.append(contentsOf: UnsafeBufferPointer(start: samples, count: Int(count)))
            }
            return 0
        }
        started = true
        return nil
    }

    static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func synthesize(_ text: String, voice: String, rate: Int) -> Result<Audio, SpeechError> {
        var status = espeak_ng_SetVoiceByName(voice)
        guard status == ENS_OK else {
            return .failure(.noVoice(name: voice, reason: message(status)))
        }
        status = espeak_ng_SetParameter(espeakRATE, Int32(rate), 0)
        guard status == ENS_OK else { return .failure(.synthesizer("rate \(rate): \(message(status))")) }
        collected = []
        let bytes = Array(text.utf8CString)
        status = espeak_ng_Synthesize(
            bytes, bytes.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        guard status == ENS_OK else {
            return .failure(.synthesizer("cannot speak \"\(text)\": \(message(status))"))
        }
        let audio = Audio(samples: collected, sampleRate: Int(espeak_ng_GetSampleRate()))
        collected = []
        return .success(audio)
    }
}
