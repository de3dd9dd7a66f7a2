import Foundation
import Speech
import TestSupport
import Testing

/// The repository's phrase model (tests run from the source tree; the product finds it
/// next to the executable or through PATHFINDER_MODELS).
let modelsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("models").path

func phraseModel() throws -> PhraseModel { try PhraseModel.load(directory: modelsDirectory) }

/// The phrase model without the `-cmninit` of `models/pathfinder.args`: every session starts from
/// the acoustic model's own mean (Debian's 41.00,…), as when the alternatives measured and not
/// shipped (the phone loop, the neighbour margin) were measured, before stop 33 (docs/speech.md,
/// "A session's first mean, shipped").
func phraseModelBeforeTheSessionsMean() throws -> PhraseModel {
    var model = try phraseModel()
    try #require(model.settings.contains { $0.0 == "-cmninit" }, "models/pathfinder.args has no -cmninit")
    model.settings.removeAll { $0.0 == "-cmninit" }
    return model
}

/// `recording` decoded by one listener with the product's decoders and every candidate kept
/// (thresholds 0): the hearings with a meaning, whatever their confidence.
func candidates(in recording: [Int16]) throws -> [Utterance] {
    let model = try phraseModel()
    let open = OperatingPoint.Thresholds(act: 0, ask: 0)
    let listener = try Listener(
        model: model, policy: .init(operatingPoint: OperatingPoint(notHere: open, thisIsIt: open)))
    let utterances = try listener.process(samples: recording) + listener.finish()
    #expect(listener.speeds == model.operatingPoint.speeds)
    return utterances.filter { $0.meaning != nil }
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "pathfinder-speech-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// `seconds` of silence at 16 kHz.
func silence(_ seconds: Double) -> [Int16] { [Int16](repeating: 0, count: Int(seconds * 16_000)) }

/// `text` spoken by the `espeak-ng` program (a Korean `voice`, `speed` words a minute) at 16 kHz.
/// A fresh process each time: espeak-ng's wave generator carries noise state from one
/// sentence to the next inside a process, and tests want the same audio every run.
func spoken(_ text: String, voice: String = "ko", speed: Int = 160) throws -> [Int16] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/spoken.wav"
    guard try run("espeak-ng", ["-v", voice, "-s", "\(speed)", "-w", path, text], install: "espeak-ng") == 0
    else {
        throw ToolMissing(message: "espeak-ng failed on \(text)")
    }
    return try WAV.read16kMono(path: path).samples
}

/// 16 kHz `samples` through sox's `effects` at `rate` Hz, then brought back to 16 kHz by sox's
/// rate converter (as ALSA's plug device brings a 48 kHz USB microphone's audio); `-R`: the
/// same every run.
func soxed(_ samples: [Int16], _ effects: [String], at rate: Int) throws -> [Int16] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let input = directory + "/in.wav", middle = directory + "/middle.wav", output = directory + "/out.wav"
    try WAV.write(Audio(samples: samples, sampleRate: 16_000), to: input)
    guard try run("sox", ["-D", "-R", input, "-r", "\(rate)", middle] + effects, install: "sox") == 0,
        try run("sox", ["-R", middle, "-r", "16000", output], install: "sox") == 0
    else { throw ToolMissing(message: "sox failed on \(effects) at \(rate) Hz") }
    return try WAV.read16kMono(path: output).samples
}

/// `seconds` of sox's `kind` of noise ("whitenoise", "pinknoise" …) at `volume` of full scale,
/// 16 kHz (`-R`: the same every run).
func soxNoise(_ kind: String, seconds: Double, volume: Double) throws -> [Int16] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/\(kind).wav"
    guard
        try run(
            "sox",
            [
                "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "synth", "\(seconds)", kind, "vol",
                "\(volume)",
            ],
            install: "sox") == 0
    else { throw ToolMissing(message: "sox failed making \(seconds) s of \(kind)") }
    return try WAV.read16kMono(path: path).samples
}
