import Foundation
import Speech

extension Commands {
    static let say = Command(
        name: "say",
        summary: "speak Korean text (sound device, or into a WAV file)",
        help: """
            Usage: pathfinder say TEXT… [--wav FILE] [--voice V] [--rate WPM] [--device NAME]

            Speaks TEXT with espeak-ng's Korean voice. Numbers are read as Korean speech
            expects ("30 미터" → 삼십 미터, "2시 방향" → 두 시 방향, "-1층" → 지하 일 층).
              --wav FILE     write a mono PCM 16-bit WAV file instead of playing
              --voice V      espeak-ng voice (default ko; also ko+m3, ko+f2, …)
              --rate WPM     words per minute, 80…450 (default 160)
              --device NAME  ALSA playback device (default "default"); one that does not
                             open within 5 s, or does not play the sound within its length
                             and 3 s, is an error naming it ("stalled", exit 1)
            """
    ) { arguments, console in
        var arguments = arguments
        let wav = try arguments.option("--wav")
        let voice = try arguments.option("--voice") ?? "ko"
        let rate =
            try arguments.option("--rate", expected: "words per minute, 80…450") {
                Int($0).flatMap { (80...450).contains($0) ? $0 : nil }
            }
            ?? 160
        let device = try arguments.option("--device")
        let words = arguments.positionals()
        try arguments.finish()
        let text = words.joined(separator: " ")
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CLIError.usage("pathfinder say: expected TEXT")
        }
        if wav != nil, device != nil {
            throw CLIError.usage("pathfinder say: --device plays; --wav writes a file: give one")
        }
        do {
            let speaker = try Speaker(voice: voice, wordsPerMinute: rate)
            let audio = try speaker.synthesize(text)
            guard Speaker.isSpeech(audio) else {
                throw CLIError.usage("pathfinder say: nothing in \"\(text)\" that espeak-ng can speak")
            }
            if let wav {
                try WAV.write(audio, to: wav)
            } else {
                try speaker.play(audio, device: device ?? "default")
            }
        } catch let error as CLIError {
            throw error
        } catch SpeechError.noVoice(let name, let reason) {
            throw CLIError.usage("pathfinder say: \(SpeechError.noVoice(name: name, reason: reason))")
        } catch let error as SpeechError {
            switch error {
            case .io: throw CLIError.usage("pathfinder say: \(error)")
            default: throw CLIError.runtime("pathfinder say: \(error)")
            }
        } catch {
            throw CLIError.runtime("pathfinder say: \(error)")
        }
        return 0
    }
}
