import Foundation
import Speech

extension Commands {
    static let listen = Command(
        name: "listen",
        summary: "hear the walker's answers from a WAV file or the microphone",
        help: """
            Usage: pathfinder listen (--wav FILE | --mic [--device NAME]) [--seconds S] [--models DIR]

            Prints one Utterance a line:
              {"start": 1.92, "end": 3.10, "heard": "여기 아니야", "meaning": "notHere",
               "confidence": 0.88, "sure": true, "decided": 3.42}
            meaning is notHere, thisIsIt or null, as the listener's policy decided (the
            operating point in the models' operating-point.json); confidence (0…1, higher is
            surer) and sure come with a recognised phrase; start/end/decided are seconds
            from the start of the audio; "…" in heard stands for speech that was no phrase.
              --wav FILE     a PCM 16-bit WAV file, any rate and channels
              --mic          the ALSA capture device (--device, default "default")
              --seconds S    stop after S seconds (with --mic; default: until interrupted)
              --models DIR   the phrase model (default: $PATHFINDER_MODELS, else
                             $PATHFINDER_DATA/models, else ../share/pathfinder/models
                             beside the executable, else the models/ directory above it)
            """
    ) { arguments, console in
        var arguments = arguments
        let wav = try arguments.option("--wav")
        let mic = try arguments.flag("--mic")
        let device = try arguments.option("--device")
        let seconds = try arguments.option("--seconds", expected: "a positive number of seconds") { text in
            Arguments.decimal(text).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        }
        let models = try arguments.option("--models")
        try arguments.finish()
        guard (wav != nil) != mic else {
            throw CLIError.usage("pathfinder listen: give exactly one of --wav FILE or --mic")
        }
        if wav != nil, device != nil || seconds != nil {
            throw CLIError.usage("pathfinder listen: --device and --seconds go with --mic, not --wav")
        }
        let model: PhraseModel
        do { model = try PhraseModel.locate(explicit: models) } catch {
            // A --models folder without a model is bad input; no model where it is installed
            // is the machine's problem.
            throw models != nil
                ? CLIError.usage("pathfinder listen: --models \(models!): \(error)")
                : CLIError.runtime("pathfinder listen: \(error)")
        }
        if let warning = model.stockModelWarning { console.error("pathfinder listen: warning: \(warning)") }
        func emit(_ utterances: [Utterance]) throws {
            for utterance in utterances { console.line(try JSONIO.line(utterance)) }
        }
        if let wav {
            do {
                try emit(try Listener.decode(wav: wav, model: model))
            } catch let error as SpeechError {
                switch error {
                case .badAudio, .io: throw CLIError.usage("pathfinder listen: \(error)")
                default: throw CLIError.runtime("pathfinder listen: \(error)")
                }
            }
            return 0
        }
        do {
            let listener = try Listener(model: model)
            let stream = try Microphone.capture(device: device ?? "default", seconds: seconds)
            var health = MicrophoneHealth()
            for try await chunk in stream {
                for change in health.feed(
                    chunk.samples, skippedBefore: chunk.skippedBefore,
                    fasterThanRealTime: chunk.fasterThanRealTime, lostBefore: chunk.lostBefore)
                {
                    console.error("pathfinder listen: " + change.message(device: device ?? "default"))
                }
                try emit(try listener.skip(samples: chunk.skippedBefore + chunk.lostBefore))
                try emit(try listener.process(samples: chunk.samples, muted: chunk.muted))
            }
            try emit(try listener.finish())
        } catch let error as SpeechError {
            throw CLIError.runtime("pathfinder listen: \(error)")
        }
        return 0
    }
}
