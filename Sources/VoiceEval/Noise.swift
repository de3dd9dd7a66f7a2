import Foundation
import Geo

/// The benchmark's random source for `seed`: offset by SplitMix64's increment, so the
/// streams (and the published tables) stay those of the seeds as first measured.
func benchmarkRandom(_ seed: UInt64) -> SeededRandom {
    SeededRandom(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
}

/// The kinds of noise.
enum NoiseKind: String, CaseIterable {
    /// Pink noise 35 dB below the speech: a quiet room's floor, not digital silence.
    case room
    case white, pink
    /// Six overlapping real English talkers (Benchmarks/voice-data/babble), silences removed.
    case babble
    /// Low-frequency traffic rumble with passing vehicles (sox: brown noise under 300 Hz +
    /// pink noise under 2 kHz swelling every ~8 s).
    case street
}

/// One acoustic condition: a noise at a fixed SNR (dB, noise RMS against active speech).
struct Condition: Hashable, CustomStringConvertible {
    var kind: NoiseKind
    var snr: Double

    var description: String { kind == .room ? "clean" : "\(kind.rawValue) \(Int(snr)) dB" }

    /// The benchmark's conditions, in table order.
    static let all: [Condition] = [
        Condition(kind: .room, snr: 35), Condition(kind: .white, snr: 10), Condition(kind: .pink, snr: 10),
        Condition(kind: .babble, snr: 15), Condition(kind: .babble, snr: 10),
        Condition(kind: .babble, snr: 5),
        Condition(kind: .street, snr: 10),
    ]

    /// Parses "clean", "white10", "babble5", "street10" … (a name from `all`).
    init?(name: String) {
        if name == "clean" {
            self.init(kind: .room, snr: 35)
            return
        }
        guard let kind = NoiseKind.allCases.first(where: { name.hasPrefix($0.rawValue) }), kind != .room,
            let snr = Double(name.dropFirst(kind.rawValue.count))
        else { return nil }
        self.init(kind: kind, snr: snr)
    }

    init(kind: NoiseKind, snr: Double) {
        self.kind = kind
        self.snr = snr
    }

    var name: String { kind == .room ? "clean" : "\(kind.rawValue)\(Int(snr))" }
}

/// Noise sources of one split: the babble talkers and a street recording of that split.
struct NoiseBank {
    /// Real talkers' recordings, silences removed, at unit level.
    var talkers: [[Int16]]
    /// Two minutes of street noise.
    var street: [Double]

    /// The split's babble recordings under `directory/<split>/` and its street noise.
    init(directory: String, split: Split) throws {
        let folder = directory + "/" + split.rawValue
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".flac") || $0.hasSuffix(".wav")
        }.sorted()
        guard files.count >= 6 else {
            throw EvalError(
                "\(folder): \(files.count) babble recordings, need at least 6 (Benchmarks/voice-data)")
        }
        talkers = try files.map { Corpus.normalised(try Sox.read(folder + "/" + $0)) }
        // The two splits get different stretches of sox's repeatable noise.
        let seconds = 120, offset = split == .dev ? 0 : seconds
        let output = Sox.temporaryPath("raw")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let layer = { (synth: String) in "|sox -R -n -r 16000 -c 1 -b 16 -p synth \(2 * seconds) \(synth)" }
        try Sox.run(
            "/usr/bin/sox",
            [
                "-V1", "-R", "-m", layer("brownnoise lowpass 300"),
                layer("pinknoise lowpass 2000 tremolo 0.12 90"),
            ]
                + Sox.raw + [output, "trim", "\(offset)", "\(seconds)"])
        street = Sox.samples(of: try Data(contentsOf: URL(fileURLWithPath: output))).map(Double.init)
    }

    /// `count` samples of `kind` at unit RMS.
    func noise(_ kind: NoiseKind, count: Int, using random: inout SeededRandom) -> [Double] {
        var out = [Double](repeating: 0, count: count)
        switch kind {
        case .white:
            for i in 0..<count { out[i] = random.gaussian() }
        case .room, .pink:
            // Paul Kellet's economy pink filter over white noise.
            var (b0, b1, b2) = (0.0, 0.0, 0.0)
            for i in 0..<count {
                let white = random.gaussian()
                b0 = 0.99765 * b0 + white * 0.0990460
                b1 = 0.96300 * b1 + white * 0.2965164
                b2 = 0.57000 * b2 + white * 1.0526913
                out[i] = b0 + b1 + b2 + white * 0.1848
            }
        case .babble:
            // Six talkers, each running random recordings back to back with short gaps.
            for _ in 0..<6 {
                var position = -Int.random(in: 0..<32_000, using: &random)
                while position < count {
                    let talker = talkers[Int.random(in: 0..<talkers.count, using: &random)]
                    for (offset, sample) in talker.enumerated()
                    where position + offset >= 0 && position + offset < count {
                        out[position + offset] += Double(sample)
                    }
                    position += talker.count + Int.random(in: 0...3_200, using: &random)
                }
            }
        case .street:
            var position = Int.random(in: 0..<street.count, using: &random)
            for i in 0..<count {
                out[i] = street[position]
                position = (position + 1) % street.count
            }
        }
        let rms = (out.reduce(0) { $0 + $1 * $1 } / Double(max(1, count))).squareRoot()
        return rms > 0 ? out.map { $0 / rms } : out
    }
}

/// `speech` (at `Corpus.speechRMS` over active speech) over `noise` (unit RMS) `snr` dB below it.
func mix(_ speech: [Int16], noise: [Double], snr: Double) -> [Int16] {
    let scale = Corpus.speechRMS / pow(10, snr / 20)
    var out = [Int16](repeating: 0, count: noise.count)
    for (i, value) in noise.enumerated() {
        let sample = i < speech.count ? Double(speech[i]) : 0
        out[i] = Int16(clamping: Int((sample + value * scale).rounded()))
    }
    return out
}

extension NoiseBank {
    /// The repository's babble recordings (Benchmarks/voice-data/babble), found from the
    /// executable's directory upwards (`.build/release/VoiceEval` → the repository).
    static var defaultDirectory: String {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        while url.path != "/" {
            let candidate = url.appendingPathComponent("Benchmarks/voice-data/babble").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            url.deleteLastPathComponent()
        }
        return "Benchmarks/voice-data/babble"
    }
}

/// `--preprocess COMMAND`: every recording goes through `command` (run by `/bin/sh`, 16 kHz
/// mono 16-bit raw PCM on its standard input, the same on its standard output) before the
/// Listener hears it — a filter in front of the microphone, measured here before any goes
/// into the product (e.g. `Benchmarks/webrtc-filter --hpf --agc`); `nil`: the recording as it is.
func preprocessed(_ recording: [Int16], through command: String?) throws -> [Int16] {
    guard let command else { return recording }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "voice-eval-preprocess-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("in.raw"),
        output = directory.appendingPathComponent("out.raw")
    try recording.withUnsafeBytes { Data($0) }.write(to: input)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "\(command) < '\(input.path)' > '\(output.path)'"]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw EvalError("--preprocess \(command): exited with status \(process.terminationStatus)")
    }
    let data = try Data(contentsOf: output)
    guard data.count == recording.count * 2 else {
        throw EvalError(
            "--preprocess \(command): wrote \(data.count / 2) samples for \(recording.count) (it must keep every sample)"
        )
    }
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}
