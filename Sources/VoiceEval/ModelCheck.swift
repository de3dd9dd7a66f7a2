import Arrival
import Foundation
import Speech

/// `--check-model DIR`: the product's own fixtures, heard through the product's Listener with
/// the acoustic model in DIR and the committed grammar and operating point. A model that fails
/// one of them would break what the walker and the tests rely on, however it scores on the
/// benchmark: `Scripts/adapt-model` runs this before it installs a model (docs/speech.md,
/// "The adaptation's own settings": a re-adapted model can hear the lowered voices worse).
/// The same fixtures as `ListenerTests` and `DemoTests`, for any acoustic model.
enum ModelCheck {
    struct Result {
        var name: String
        var passed: Bool
        var detail: String
    }

    /// Of the 13 answers spoken through a longer vocal tract, at least this many must be heard
    /// (`ListenerTests.aSpedUpDecoderHearsALowerVoice`).
    static let loweredNeeded = 11
    /// Korean that is no answer (`ListenerTests.negativeMeansNothing`).
    static let unrelated = ["다른 입구로 안내할게", "오늘 날씨가 정말 좋네요", "커피 한 잔 주세요", "엘리베이터를 타고 올라가세요"]

    /// Runs every fixture on `acousticModel` (a directory with `mdef`, or "stock"), printing
    /// one line each; true when all pass.
    static func run(
        acousticModel: String, model located: PhraseModel, demo: String, heldOut: [String] = []
    )
        throws -> Bool
    {
        var model = located
        model.acousticModel = acousticModel == "stock" ? PhraseModel.defaultAcousticModel : acousticModel
        guard FileManager.default.fileExists(atPath: model.acousticModel + "/mdef") else {
            throw BadInput("--check-model \(acousticModel): no acoustic model there (no mdef)")
        }
        guard FileManager.default.fileExists(atPath: demo) else {
            throw BadInput(
                "--demo \(demo): no such file (the demo's recorded answers, artifacts/demo/answers.wav)")
        }
        // Read, and refused if unusable, before a fixture is heard: a missing folder or a
        // speaker a model was adapted on is found in a second, not after the fixtures.
        let heldOutItems =
            heldOut.isEmpty ? nil : try heldOutRecordings(heldOut, candidate: model, installed: located)
        let point = model.operatingPoint
        print("## model check: \(model.acousticModel)")
        print(
            "Grammar \(model.grammar), operating point: notHere act ≥ \(point.notHere.act), thisIsIt act ≥ \(point.thisIsIt.act); decoders: \(point.decoderSummary)"
        )
        print("")
        // The 13 answers at 160 wpm, synthesised once for the two fixtures that use them.
        let spokenAt160 = try Corpus.phrases.map {
            try Corpus.synthesize($0, VoiceSetting(voice: "ko", speed: 160, pitch: 50))
        }
        var results = [
            try demoAnswers(demo, model: model),
            try answers(model: model),
            try lowered(spokenAt160, model: model),
            try negatives(model: model),
            try inNoise(spokenAt160, model: model),
        ]
        var comparison: [String] = []
        if let heldOutItems {
            let (result, lines) = try heldOutSpeakers(
                heldOutItems, folders: heldOut, candidate: model, installed: located)
            results.append(result)
            comparison = lines
        }
        for result in results {
            print("\(result.passed ? "pass" : "FAIL")  \(result.name): \(result.detail)")
        }
        if !comparison.isEmpty {
            print("")
            comparison.forEach { print($0) }
        }
        let failed = results.filter { !$0.passed }
        print(
            failed.isEmpty
                ? "\nmodel check: passed (\(results.count) of \(results.count))"
                : "\nmodel check: FAILED: " + failed.map(\.name).joined(separator: "; "))
        return failed.isEmpty
    }

    /// The demo's recorded answers must both act at once: the demo is the first thing a user
    /// runs.
    static func demoAnswers(_ path: String, model: PhraseModel) throws -> Result {
        let heard = try Listener.decode(wav: path, model: model).filter { $0.meaning != nil }
        let detail = heard.map(describe).joined(separator: ", ")
        let passed = heard.map(\.meaning) == [.notHere, .thisIsIt] && heard.allSatisfy(\.sure)
        return Result(
            name: "the demo's answers act at once (\(path))", passed: passed,
            detail: heard.isEmpty ? "no answer heard" : detail)
    }

    /// Each of the 13 answers, spoken by espeak-ng's Korean voice, is heard with its meaning
    /// (acted on or asked about) and nothing else.
    static func answers(model: PhraseModel) throws -> Result {
        var missed: [String] = []
        for phrase in Corpus.phrases {
            let audio = try Corpus.synthesize(phrase, VoiceSetting(voice: "ko", speed: 175, pitch: 50))
            let heard = try Listener.decode(samples: silence(0.3) + audio + silence(1), model: model)
            if heard.compactMap(\.meaning) != [ArrivalWords.meaning(of: phrase)].compactMap({ $0 }) {
                missed.append(
                    "\(phrase) → "
                        + (heard.isEmpty ? "nothing" : heard.map(describe).joined(separator: " | ")))
            }
        }
        return Result(
            name: "the 13 answers, espeak-ng ko", passed: missed.isEmpty,
            detail:
                "\(Corpus.phrases.count - missed.count) of \(Corpus.phrases.count) heard with their meaning"
                + (missed.isEmpty ? "" : "; missed: " + missed.joined(separator: ", ")))
    }

    /// The 13 answers through a longer vocal tract (sox `pitch -500`: every frequency × 0.75):
    /// most heard, none as the other answer. `spoken`: the 13 in `Corpus.phrases`' order.
    static func lowered(_ spoken: [[Int16]], model: PhraseModel) throws -> Result {
        var right = 0
        var wrong: [String] = []
        for (phrase, audio) in zip(Corpus.phrases, spoken) {
            let meaning = ArrivalWords.meaning(of: phrase)
            let low = try Sox.apply(["pitch", "-500"], to: silence(0.3) + audio + silence(1))
            let heard = try Listener.decode(samples: low, model: model).compactMap(\.meaning)
            right += heard == [meaning].compactMap({ $0 }) ? 1 : 0
            if heard.contains(where: { $0 != meaning }) { wrong.append(phrase) }
        }
        return Result(
            name: "the 13 answers a longer vocal tract (pitch −500 cents)",
            passed: right >= loweredNeeded && wrong.isEmpty,
            detail: "\(right) of \(Corpus.phrases.count) heard (needs ≥ \(loweredNeeded))"
                + (wrong.isEmpty ? ", none as the other answer" : "; heard as the other answer: \(wrong)"))
    }

    /// Of the 13 answers in white noise and in the development split's babble 10 dB below,
    /// at least this many of the 26 must be heard.
    static let inNoiseNeeded = 20

    /// The 13 answers in one recording with white noise, and in another with real talkers (the
    /// development split's babble), 10 dB below and running through the pauses: a model adapted
    /// on quiet speech alone collapses here (docs/speech.md), whatever it does in the quiet
    /// fixtures. Not the benchmark's `decodeRecording`: that starts the noise 1 s before the
    /// first answer and pauses 0.8–1.2 s, so the talkers' window of the foreground detector is
    /// not yet full for the first answers (through it the committed model hears 20 of 26, on
    /// the threshold, against 24 here); a fixture must not sit on its own edge.
    static func inNoise(_ spoken: [[Int16]], model: PhraseModel) throws -> Result {
        let bank = try NoiseBank(directory: NoiseBank.defaultDirectory, split: .dev)
        var random = benchmarkRandom(1)
        let answers = zip(Corpus.phrases, spoken).map {
            (meaning: ArrivalWords.meaning(of: $0), audio: Corpus.normalised($1))
        }
        var heard: [NoiseKind: Int] = [:]
        var wrong: [String] = []
        for kind in [NoiseKind.white, .babble] {
            // 4 s of noise first (the foreground detector's window), 1.2 s between answers.
            var speech = silence(4)
            var spans: [(start: Double, end: Double)] = []
            for answer in answers {
                spans.append(
                    (Double(speech.count) / 16_000, Double(speech.count + answer.audio.count) / 16_000))
                speech += answer.audio + silence(1.2)
            }
            let recording = mix(speech, noise: bank.noise(kind, count: speech.count, using: &random), snr: 10)
            let utterances = try Listener.decode(samples: recording, model: model)
            for (answer, (span, phrase)) in zip(answers, zip(spans, Corpus.phrases)) {
                let meanings = utterances.filter { $0.end > span.start && $0.start < span.end }.compactMap(
                    \.meaning)
                heard[kind, default: 0] += meanings.contains { $0 == answer.meaning } ? 1 : 0
                if meanings.contains(where: { $0 != answer.meaning }) {
                    wrong.append("\(phrase) (\(kind.rawValue))")
                }
            }
        }
        let total = heard.values.reduce(0, +)
        return Result(
            name: "the 13 answers with white noise and with talkers 10 dB below",
            passed: total >= inNoiseNeeded && wrong.isEmpty,
            detail:
                "\(total) of \(2 * Corpus.phrases.count) heard (white \(heard[.white] ?? 0), talkers \(heard[.babble] ?? 0); needs ≥ \(inNoiseNeeded))"
                + (wrong.isEmpty ? ", none as the other answer" : "; heard as the other answer: \(wrong)"))
    }

    /// Korean that is no answer, Pathfinder's own prompt among it, means nothing.
    static func negatives(model: PhraseModel) throws -> Result {
        var taken: [String] = []
        for sentence in unrelated {
            let audio = try Corpus.synthesize(sentence, VoiceSetting(voice: "ko", speed: 160, pitch: 50))
            let heard = try Listener.decode(samples: silence(0.3) + audio + silence(1), model: model)
            if let answer = heard.first(where: { $0.meaning != nil }) {
                taken.append("\(sentence) → \(answer.heard)")
            }
        }
        return Result(
            name: "\(unrelated.count) unrelated sentences mean nothing", passed: taken.isEmpty,
            detail: taken.isEmpty
                ? "none heard as an answer" : "heard as an answer: " + taken.joined(separator: ", "))
    }

    /// The recordings of `folders` (`pathfinder record`) a held-out check can use: the people
    /// neither model was adapted on. A speaker in the candidate's `speakers.txt` was heard in
    /// its adaptation; one in the installed model's (adapted on them earlier) is heard better by
    /// the installed model than a stranger would be, so a comparison on them favours the
    /// installed model and says nothing honest about the candidate. Both are left out, named on
    /// standard error; when no one is left, it is bad input naming who was heard by which model.
    static func heldOutRecordings(
        _ folders: [String], candidate: PhraseModel, installed: PhraseModel
    ) throws -> [Item] {
        let all = try RealRecordings.load(folders)
        let byCandidate = RealRecordings.adaptedSpeakers(of: candidate.acousticModel)
        let byInstalled = RealRecordings.adaptedSpeakers(of: installed.acousticModel)
        let speakers = RealRecordings.speakers(all)
        var reasons: [String] = []
        let heardByCandidate = speakers.filter { byCandidate.contains($0) }
        if !heardByCandidate.isEmpty {
            reasons.append(
                "\(heardByCandidate.joined(separator: ", ")) adapted on by the model checked (\(candidate.acousticModel)/speakers.txt)"
            )
        }
        let heardByInstalled = speakers.filter { byInstalled.contains($0) && !byCandidate.contains($0) }
        if !heardByInstalled.isEmpty && installed.acousticModel != candidate.acousticModel {
            reasons.append(
                "\(heardByInstalled.joined(separator: ", ")) adapted on by the installed model (\(installed.acousticModel)/speakers.txt), which would hear them better than a stranger: no honest comparison"
            )
        }
        let items = all.filter { !byCandidate.contains($0.voice) && !byInstalled.contains($0.voice) }
        let folderList = folders.joined(separator: ", ")
        guard !items.isEmpty else {
            throw BadInput(
                "--held-out \(folderList): no one in it can be held out: \(reasons.joined(separator: "; ")). Keep out someone no model was adapted on (record them in another folder), or start again from the shipped model (git checkout models/)"
            )
        }
        if !reasons.isEmpty {
            FileHandle.standardError.write(
                Data("--held-out \(folderList): left out \(reasons.joined(separator: "; "))\n".utf8))
        }
        return items
    }

    /// The family's own recordings of people no model was adapted on (`pathfinder record`,
    /// read by ``heldOutRecordings(_:candidate:installed:)``), as recorded: the candidate must
    /// hear at least as many of each person's answers as the installed model, and take no more
    /// of each person's near-misses for an answer (``heldOutVerdict(installed:candidate:)``).
    /// An answer counts when it is heard with its meaning, acting or asking (the walker's
    /// repeat would be the same recording). Also returns one line a person in plain words, the
    /// installed model's figures beside the candidate's.
    static func heldOutSpeakers(
        _ items: [Item], folders: [String], candidate: PhraseModel, installed: PhraseModel
    ) throws
        -> (Result, [String])
    {
        func count(_ model: PhraseModel) throws -> [String: Heard] {
            var bySpeaker: [String: Heard] = [:]
            for item in items {
                let meanings = try Listener.decode(
                    samples: silence(0.3) + item.audio + silence(1), model: model
                ).compactMap(
                    \.meaning)
                if let expected = item.expected {
                    bySpeaker[item.voice, default: Heard()].answers += meanings.contains(expected) ? 1 : 0
                } else if item.kind == .nearMiss {
                    // "여기 안이야" sounds the same as "여기 아니야": not counted either way.
                    bySpeaker[item.voice, default: Heard()].nearMisses += meanings.isEmpty ? 0 : 1
                }
            }
            return bySpeaker
        }
        let new = try count(candidate), old = try count(installed)
        let verdict = heldOutVerdict(installed: old, candidate: new)
        let newTotal = Heard.total(new), oldTotal = Heard.total(old)
        let answerCount = items.filter { $0.expected != nil }.count
        let nearMissCount = items.filter { $0.kind == .nearMiss }.count
        let speakers = RealRecordings.speakers(items)
        let lines = speakers.map { speaker in
            let mine = items.filter { $0.voice == speaker }
            let answers = mine.filter { $0.expected != nil }.count
            let nearMisses = mine.filter { $0.kind == .nearMiss }.count
            let before = old[speaker] ?? Heard(), after = new[speaker] ?? Heard()
            let heard =
                after.isWorse(than: before)
                ? "heard worse by the new model"
                : after.isBetter(than: before) ? "heard better by the new model" : "heard the same"
            return
                "kept out, \(speaker): answers heard \(before.answers) of \(answers) by the installed model, \(after.answers) by the new one; near-misses taken for an answer \(before.nearMisses) of \(nearMisses) by the installed model, \(after.nearMisses) by the new one: \(heard)"
        }
        let result = Result(
            name:
                "held-out speakers heard no worse than by the installed model (\(folders.joined(separator: ", ")))",
            passed: verdict.passed,
            detail:
                "\(speakers.count) speaker\(speakers.count == 1 ? "" : "s"): answers heard \(newTotal.answers) of \(answerCount) (installed \(oldTotal.answers)), near-misses taken for an answer \(newTotal.nearMisses) of \(nearMissCount) (installed \(oldTotal.nearMisses))"
                + (verdict.heardWorse.isEmpty
                    ? "" : "; heard worse by the new model: \(verdict.heardWorse.joined(separator: ", "))")
        )
        return (result, lines)
    }

    /// What a model heard of a person's recordings: their answers heard with their meaning
    /// (acting or asking), and their near-misses taken for an answer.
    struct Heard: Equatable {
        var answers = 0, nearMisses = 0

        /// Fewer answers heard than `before`, or more near-misses taken for one.
        func isWorse(than before: Heard) -> Bool {
            answers < before.answers || nearMisses > before.nearMisses
        }

        /// More answers heard than `before`, or fewer near-misses taken for one.
        func isBetter(than before: Heard) -> Bool {
            answers > before.answers || nearMisses < before.nearMisses
        }

        /// Everyone's together.
        static func total(_ bySpeaker: [String: Heard]) -> Heard {
            bySpeaker.values.reduce(into: Heard()) {
                $0.answers += $1.answers
                $0.nearMisses += $1.nearMisses
            }
        }
    }

    /// The held-out check's verdict on what the installed model and the candidate heard of
    /// each person kept out: it passes when the candidate hears each of them no worse (and so
    /// all of them together): a person heard worse is not made up for by another heard
    /// better, as the walker who is heard worse is one person. Returns those heard worse.
    static func heldOutVerdict(
        installed: [String: Heard], candidate: [String: Heard]
    ) -> (
        passed: Bool, heardWorse: [String]
    ) {
        let worse = Set(installed.keys).union(candidate.keys).sorted().filter {
            (candidate[$0] ?? Heard()).isWorse(than: installed[$0] ?? Heard())
        }
        return (worse.isEmpty && !Heard.total(candidate).isWorse(than: Heard.total(installed)), worse)
    }

    static func silence(_ seconds: Double) -> [Int16] { [Int16](repeating: 0, count: Int(seconds * 16_000)) }

    /// "여기 아니야 (notHere acts, 0.998474)"; below the gate "여기 아니야 (ignored, 0.334065)".
    static func describe(_ utterance: Utterance) -> String {
        let decision =
            utterance.meaning.map { "\($0.rawValue) \(utterance.sure ? "acts" : "asks again")" } ?? "ignored"
        let confidence = utterance.confidence.map { String(format: ", %.6f", $0) } ?? ""
        return "\(utterance.heard) (\(decision)\(confidence))"
    }
}
