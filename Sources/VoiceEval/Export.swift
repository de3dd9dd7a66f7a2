import Foundation
import Geo
import Speech

/// Writes the adaptation data of `Scripts/adapt-model`: the development split only (never a
/// test voice, sentence or babble recording) — its nine own-pitch settings and its varied
/// voices (`Corpus.devVariedVoices`: other pitches and speeds, perturbed in turn by
/// `Corpus.devPerturbations`, none of the test's values; not `Corpus.tuningOnlyVoices`, which only
/// tune) — each utterance clean and in white, pink, babble (twice: the hardest) and street noise
/// at 5–15 dB — multi-condition, since adapting on clean speech alone collapses in noise — plus
/// real recordings (`--real`). With `--preprocess COMMAND` each utterance, noise and all, goes
/// through the filter the decoder would hear it through (``preprocessed(_:through:)``).
/// Output: `DIR/wav/*.wav`, `DIR/adapt.fileids`, `DIR/adapt.transcription` (dictionary
/// words between `<s>` and `</s>`), `DIR/speakers.txt` (the real speakers used).
enum AdaptationExport {
    static let noises: [NoiseKind] = [.room, .white, .pink, .babble, .babble, .street]
    /// `--adapt-noises`: the conditions each item is copied into instead of `noises`, in turn
    /// (e.g. six times `babble`: a model adapted on babble alone; measured, not the committed
    /// model's: docs/speech.md, "A model for babble alone").
    static func parseNoises(_ text: String) throws(UsageError) -> [NoiseKind] {
        var kinds: [NoiseKind] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard let kind = NoiseKind(rawValue: name) else {
                throw UsageError(
                    "--adapt-noises: \"\(name)\" is not a noise (\(NoiseKind.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            kinds.append(kind)
        }
        return kinds
    }
    /// The channels each item is also heard through, `channelCopies` times in turn, each copy
    /// in the next of `noises` at 5–15 dB: the dev split's own reverb and bands
    /// (`Corpus.devPerturbations`, none of the test's values), where the dev split heard the
    /// fewest answers (docs/speech.md, "Channels to learn from").
    static let channels = Corpus.devPerturbations.filter {
        ["hall reverb", "band 200-3000 Hz", "band 450-4000 Hz"].contains($0.name)
    }
    /// Copies of each item through `channels` (`--channel-copies`).
    static let channelCopies = 0

    /// The dictionary words of `text`: a phrase token ("여기_아니야"), a pair decoy
    /// ("d_여기_앉아"), or for each word its decoy, or else its syllables as the grammar's
    /// fillers spell them ("여기 가자" → "d_여기 f_ga f_ja"): the benchmark's test near-misses
    /// are never decoys (they measure what the decoys do not know), so a family's recordings of
    /// them (`pathfinder record` asks for 입구 앞이야, 여기 가자, 이 길 아니야) are spelled as
    /// the decoder hears a sentence it has no word for; `nil` when neither spells it.
    static func transcript(_ text: String, words: Set<String>) -> String? {
        let parts = text.split(separator: " ").map(String.init)
        let joined = parts.joined(separator: "_")
        if words.contains(joined) { return joined }
        if words.contains("d_" + joined) { return "d_" + joined }
        var spelled: [String] = []
        for part in parts {
            if words.contains("d_" + part) {
                spelled.append("d_" + part)
            } else if let fillers = fillers(part), fillers.allSatisfy(words.contains) {
                spelled += fillers
            } else {
                return nil
            }
        }
        return spelled.isEmpty ? nil : spelled.joined(separator: " ")
    }

    /// The grammar's syllable fillers for a Korean word (models/generate.py's `fillers()`:
    /// "f_" + onset + nucleus + coda, 14 onsets, 12 nuclei, codas n, l, k), a final consonant
    /// before a syllable that starts with a vowel carried over, as it is spoken ("앞이야" →
    /// f_a f_pi f_ya);
    /// `nil` for a syllable the fillers cannot spell (another vowel or final consonant).
    static func fillers(_ word: String) -> [String]? {
        // Hangul syllables: 19 initials × 21 vowels × 28 finals from U+AC00.
        let onsets = [
            "g", "k", "n", "d", "t", "r", "m", "b", "p", "s", "s", "", "j", "j", "ch", "k", "t", "p", "h",
        ]
        let nuclei: [String?] = [
            "a", "e", "ya", nil, "eo", "e", "yeo", nil, "o", "wa", nil, nil, "yo", "u", nil, nil, nil, "yu",
            "eu", nil, "i",
        ]
        // The simple finals: the onset a final becomes before a syllable that starts with a
        // vowel (nil: it is not carried, as ㅇ), and its coda otherwise (nil: no filler has it).
        // Double finals (ㄳ, ㄺ …) are spelled by none.
        let finals: [Int: (carried: String?, coda: String?)] = [
            0: (nil, ""), 1: ("g", "k"), 2: ("k", "k"), 4: ("n", "n"), 7: ("d", nil), 8: ("r", "l"),
            16: ("m", nil), 17: ("b", nil), 19: ("s", nil), 20: ("s", nil), 21: (nil, nil), 22: ("j", nil),
            23: ("ch", nil), 24: ("k", "k"), 25: ("t", nil), 26: ("p", nil), 27: ("", nil),
        ]
        var syllables: [(onset: String, nucleus: String, final: (carried: String?, coda: String?))] = []
        for scalar in word.unicodeScalars {
            guard (0xAC00...0xD7A3).contains(scalar.value) else { return nil }
            let code = Int(scalar.value - 0xAC00)
            guard let nucleus = nuclei[(code % 588) / 28], let final = finals[code % 28] else { return nil }
            syllables.append((onsets[code / 588], nucleus, final))
        }
        var out: [String] = []
        var onset = syllables.first?.onset ?? ""
        for (i, syllable) in syllables.enumerated() {
            let next = i + 1 < syllables.count ? syllables[i + 1].onset : nil
            var coda = syllable.final.coda
            var nextOnset = next ?? ""
            if next == "", let carried = syllable.final.carried {
                coda = ""
                nextOnset = carried
            }
            guard let coda else { return nil }
            out.append("f_" + onset + syllable.nucleus + coda)
            onset = nextOnset
        }
        return out.isEmpty ? nil : out
    }

    /// Whether adaptation data is made from speech synthesised with `setting`: every dev
    /// setting but the voices that only tune (`Corpus.tuningOnlyVoices`). A recording's items
    /// (no setting) are chosen by speaker instead (`--real`, `--held-out`).
    static func adaptsOn(_ setting: VoiceSetting?) -> Bool {
        guard let setting else { return false }
        return !Corpus.tuningOnlyVoices.contains(setting.voice)
    }

    static func write(
        to directory: String, dictionary: String, english: String, real: [String], seed: UInt64,
        channelCopies: Int, babble: String, preprocess: String?, noises: [NoiseKind], voices: [String] = []
    ) throws {
        let words = try Corpus.dictionaryWords(dictionary)
        var items = try Corpus.make(split: .dev, englishDirectory: english, adaptationVoices: voices).filter {
            ($0.kind == .phrase || $0.kind == .nearMiss)
                && adaptsOn($0.setting)
        }
        var speakers: [String] = []
        if !real.isEmpty {
            let recorded = try RealRecordings.load(real)
            speakers = RealRecordings.speakers(recorded)
            items += recorded.filter { $0.kind == .phrase || $0.kind == .nearMiss }
        }
        let bank = try NoiseBank(directory: babble, split: .dev)
        let wavs = directory + "/wav"
        try FileManager.default.createDirectory(atPath: wavs, withIntermediateDirectories: true)
        var random = benchmarkRandom(seed &* 977)
        var fileids: [String] = []
        var transcription: [String] = []
        var skipped = Set<String>()
        var copies = 0
        for item in items {
            guard let words = transcript(item.text, words: words) else {
                skipped.insert(item.text)
                continue
            }
            var versions = noises.map { (kind: $0, speech: item.audio) }
            for _ in 0..<channelCopies {
                let channel = channels[copies % channels.count]
                let kind = noises[(copies + 1) % noises.count]
                copies += 1
                versions.append((kind, Corpus.normalised(try Sox.apply(channel.effects, to: item.audio))))
            }
            for (kind, speech) in versions {
                let snr = kind == .room ? 35 : Double.random(in: 5...15, using: &random)
                let lead = 4_800, count = lead + speech.count + 8_000
                let noise = bank.noise(kind, count: count, using: &random)
                let audio = try preprocessed(
                    mix([Int16](repeating: 0, count: lead) + speech, noise: noise, snr: snr),
                    through: preprocess)
                let id = String(format: "a%05d", fileids.count)
                try WAV.write(Audio(samples: audio, sampleRate: 16_000), to: "\(wavs)/\(id).wav")
                fileids.append(id)
                transcription.append("<s> \(words) </s> (\(id))")
            }
        }
        try (fileids.joined(separator: "\n") + "\n").write(
            toFile: directory + "/adapt.fileids", atomically: true, encoding: .utf8)
        try (transcription.joined(separator: "\n") + "\n").write(
            toFile: directory + "/adapt.transcription", atomically: true, encoding: .utf8)
        try (speakers.joined(separator: "\n") + (speakers.isEmpty ? "" : "\n")).write(
            toFile: directory + "/speakers.txt", atomically: true, encoding: .utf8)
        print(
            "adaptation data: \(fileids.count) utterances from \(items.count - skipped.count) dev items × \(noises.count) conditions + \(channelCopies) through a channel, \(speakers.count) real speaker\(speakers.count == 1 ? "" : "s")"
                + (voices.isEmpty ? "" : ", adaptation-only voices \(voices.joined(separator: ","))")
                + (preprocess.map { ", each through \($0)" } ?? ""))
        if !skipped.isEmpty {
            FileHandle.standardError.write(
                Data(
                    "adaptation data: not adapted on (neither a word of the grammar nor its syllable fillers spell it): \(skipped.sorted().joined(separator: ", "))\n"
                        .utf8))
        }
    }
}
