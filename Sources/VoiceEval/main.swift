// voice-eval: the recognition benchmark of the Korean phrase model (see docs/speech.md).
// Synthesises the development set with espeak-ng, mixes noise, decodes with the product's
// Listener (a) one file per utterance and (b) as one long microphone recording, and prints
// recall, confusions, false accepts, RTF and peak RSS. Run it with Scripts/voice-eval.
import Arrival
import Foundation
import Speech

struct Options {
    var seed: UInt64 = 1
    var models: String?
    var english = "/usr/share/pocketsphinx/test/data"
    var modes = ["a", "b"]
    var conditions = Condition.allCases
    var policy = Listener.Policy.standard
    var verbose = false

    init(_ argv: [String]) throws {
        var rest = argv[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw EvalError("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--seed": seed = UInt64(try value(flag)) ?? 1
            case "--models": models = try value(flag)
            case "--english": english = try value(flag)
            case "--mode": modes = try value(flag).split(separator: ",").map(String.init)
            case "--conditions":
                conditions = try value(flag).split(separator: ",").compactMap {
                    Condition(rawValue: String($0))
                }
            case "--max-seconds":
                policy.maxUtteranceSeconds = Double(try value(flag)) ?? policy.maxUtteranceSeconds
            case "--max-fillers-not-here": policy.maxFillersNotHere = Int(try value(flag)) ?? .max
            case "--max-fillers-this-is-it": policy.maxFillersThisIsIt = Int(try value(flag)) ?? .max
            case "--verbose": verbose = true
            default:
                throw EvalError(
                    "unknown option \(flag) (--seed N --models DIR --english DIR --mode a,b --conditions clean,white,pink,babble --max-seconds S --max-fillers-not-here N --max-fillers-this-is-it N --verbose)"
                )
            }
        }
    }
}

/// Tallies of one mode × condition.
struct Tally {
    var phraseHits: [String: Int] = [:]
    var phraseTotal: [String: Int] = [:]
    var confusions = 0
    var falseAccepts: [Item.Kind: Int] = [:]
    var negatives: [Item.Kind: Int] = [:]
    var acceptedTexts: [String: Int] = [:]
    var spurious = 0
    var audioSeconds = 0.0
    var cpuSeconds = 0.0

    mutating func score(_ item: Item, heard: Set<ArrivalWords>) {
        if let expected = item.expected {
            phraseTotal[item.text, default: 0] += 1
            if heard.contains(expected) { phraseHits[item.text, default: 0] += 1 }
            if heard.contains(where: { $0 != expected }) { confusions += 1 }
        } else {
            negatives[item.kind, default: 0] += 1
            if !heard.isEmpty {
                falseAccepts[item.kind, default: 0] += 1
                acceptedTexts[item.text, default: 0] += 1
            }
        }
    }

    var recall: (hits: Int, total: Int) { (phraseHits.values.reduce(0, +), phraseTotal.values.reduce(0, +)) }
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// `speech` (already at `DevSet.speechRMS`) over `noise` (unit RMS) `snr` dB below it.
func mix(_ speech: [Int16], noise: ArraySlice<Double>, snr: Double) -> [Int16] {
    let scale = DevSet.speechRMS / pow(10, snr / 20)
    var out = [Int16](repeating: 0, count: noise.count)
    var i = 0
    for value in noise {
        let sample = i < speech.count ? Double(speech[i]) : 0
        out[i] = Int16(clamping: Int((sample + value * scale).rounded()))
        i += 1
    }
    return out
}

func meanings(_ utterances: [Utterance]) -> Set<ArrivalWords> { Set(utterances.compactMap(\.meaning)) }

/// (a) one file per utterance: 0.3 s of the condition's noise, the utterance, 0.5 s more.
func runPerFile(
    _ items: [Item], condition: Condition, model: PhraseModel, options: Options, babble: [[Int16]]
) throws -> Tally {
    var random = benchmarkRandom(options.seed &* 31 &+ UInt64(Condition.allCases.firstIndex(of: condition)!))
    var tally = Tally()
    let listener = try Listener(model: model, policy: options.policy)
    for item in items {
        let lead = 4_800
        let count = lead + item.audio.count + 8_000
        let noise = condition.noise(count: count, babbleSource: babble, using: &random)
        let audio = mix(
            [Int16](repeating: 0, count: lead) + item.audio, noise: noise[...],
            snr: condition.snr(using: &random))
        let start = threadCPUSeconds()
        let utterances = try listener.process(samples: audio) + listener.finish()
        tally.cpuSeconds += threadCPUSeconds() - start
        tally.audioSeconds += Double(audio.count) / 16_000
        tally.score(item, heard: meanings(utterances))
        if options.verbose { print("a \(condition) \(item.voice) \(item.text) → \(utterances.map(\.heard))") }
    }
    return tally
}

/// (b) as a microphone hears it: every item in one recording, shuffled, with pauses of
/// 0.8–1.2 s, the noise running on through the pauses; decoded in one pass in 100 ms chunks
/// (the path of `pathfinder listen --mic`); utterances aligned back to the script by time.
func runRecording(
    _ items: [Item], condition: Condition, model: PhraseModel, options: Options, babble: [[Int16]]
) throws -> Tally {
    var random = benchmarkRandom(options.seed &* 131 &+ UInt64(Condition.allCases.firstIndex(of: condition)!))
    let order = items.shuffled(using: &random)
    var speech: [Int16] = Array(repeating: 0, count: 16_000)
    var spans: [(start: Double, end: Double)] = []
    for item in order {
        let start = speech.count
        speech += item.audio
        spans.append((Double(start) / 16_000, Double(speech.count) / 16_000))
        speech += [Int16](repeating: 0, count: Int.random(in: 12_800...19_200, using: &random))
    }
    let noise = condition.noise(count: speech.count, babbleSource: babble, using: &random)
    let recording = mix(speech, noise: noise[...], snr: condition.snr(using: &random))

    let listener = try Listener(model: model, policy: options.policy)
    var utterances: [Utterance] = []
    let start = threadCPUSeconds()
    var index = 0
    while index < recording.count {
        let end = min(index + Microphone.chunkSamples, recording.count)
        utterances += try listener.process(samples: Array(recording[index..<end]))
        index = end
    }
    utterances += try listener.finish()
    var tally = Tally()
    tally.cpuSeconds = threadCPUSeconds() - start
    tally.audioSeconds = Double(recording.count) / 16_000

    func overlap(_ u: Utterance, _ span: (start: Double, end: Double)) -> Bool {
        min(u.end, span.end) - max(u.start, span.start) > 0.05
    }
    for (item, span) in zip(order, spans) {
        let heard = utterances.filter { overlap($0, span) }
        tally.score(item, heard: meanings(heard))
        if options.verbose {
            print(
                "b \(condition) \(item.voice) \(item.text) → \(heard.map { "\($0.heard)[\($0.meaning?.rawValue ?? "-")]" })"
            )
        }
    }
    tally.spurious = utterances.filter { u in u.meaning != nil && !spans.contains { overlap(u, $0) } }.count
    return tally
}

func percent(_ n: Int, _ d: Int) -> String {
    d == 0 ? "–" : String(format: "%.0f%%", 100 * Double(n) / Double(d))
}

func report(mode: String, tallies: [(Condition, Tally)]) {
    let title =
        mode == "a" ? "(a) one file per utterance" : "(b) one long recording, noise through the pauses"
    print("\n### \(title)\n")
    print("| phrase | " + tallies.map { $0.0.rawValue }.joined(separator: " | ") + " |")
    print("|---|" + String(repeating: "---|", count: tallies.count))
    for phrase in DevSet.phrases {
        print(
            "| \(phrase) | "
                + tallies.map { percent($0.1.phraseHits[phrase] ?? 0, $0.1.phraseTotal[phrase] ?? 0) }.joined(
                    separator: " | ") + " |")
    }
    print(
        "| **recall** | "
            + tallies.map {
                let r = $0.1.recall; return "**\(percent(r.hits, r.total))** (\(r.hits)/\(r.total))"
            }.joined(separator: " | ") + " |")
    print("| confusions | " + tallies.map { "\($0.1.confusions)" }.joined(separator: " | ") + " |")
    for kind in [Item.Kind.nearMiss, .heldOut, .unrelated, .english] {
        print(
            "| false accepts: \(kind.rawValue) | "
                + tallies.map {
                    let n = $0.1.falseAccepts[kind] ?? 0, d = $0.1.negatives[kind] ?? 0
                    return "\(percent(n, d)) (\(n)/\(d))"
                }.joined(separator: " | ") + " |")
    }
    if mode == "b" {
        print(
            "| answers heard in pauses | " + tallies.map { "\($0.1.spurious)" }.joined(separator: " | ")
                + " |")
    }
    print(
        "| RTF (CPU s / audio s) | "
            + tallies.map { String(format: "%.3f", $0.1.cpuSeconds / max($0.1.audioSeconds, 1e-9)) }.joined(
                separator: " | ") + " |")
    let accepted = tallies.flatMap { $0.1.acceptedTexts }.reduce(into: [String: Int]()) {
        $0[$1.key, default: 0] += $1.value
    }
    if !accepted.isEmpty {
        print(
            "\nNegatives accepted (all conditions): "
                + accepted.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(
                    separator: ", "))
    }
}

do {
    setenv("OPENBLAS_NUM_THREADS", "1", 1)
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let model = try PhraseModel.locate(explicit: options.models)
    let items = try DevSet.make(englishDirectory: options.english)
    let babbleSpeaker = try Speaker(voice: "ko+f4", wordsPerMinute: 170)
    let babble = try DevSet.unrelated.map {
        DevSet.normalised(try babbleSpeaker.synthesize($0).resampled(to: 16_000).samples)
    }
    let counts = Dictionary(grouping: items, by: \.kind).mapValues(\.count)
    print("## voice-eval (seed \(options.seed), model \(model.grammar))\n")
    print(
        "Items: " + Item.Kind.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
            + "; voices \(DevSet.voices.joined(separator: ", ")) × speeds \(DevSet.speeds.map(String.init).joined(separator: "/")); SNR 8–12 dB (clean: room floor 35 dB down)"
    )
    print(
        "Policy: max \(options.policy.maxUtteranceSeconds) s, fillers ≤ \(options.policy.maxFillersNotHere) (notHere) / ≤ \(options.policy.maxFillersThisIsIt) (thisIsIt)"
    )
    for mode in options.modes {
        var tallies: [(Condition, Tally)] = []
        for condition in options.conditions {
            let tally =
                mode == "a"
                ? try runPerFile(items, condition: condition, model: model, options: options, babble: babble)
                : try runRecording(
                    items, condition: condition, model: model, options: options, babble: babble)
            tallies.append((condition, tally))
        }
        report(mode: mode, tallies: tallies)
    }
    print(String(format: "\nPeak RSS: %.1f MB (whole benchmark process)", peakRSSMegabytes()))
} catch {
    FileHandle.standardError.write(Data("voice-eval: \(error)\n".utf8))
    exit(1)
}
