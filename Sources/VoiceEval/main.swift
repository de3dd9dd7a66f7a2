import Arrival
// voice-eval: the recognition benchmark of the Korean phrase model (see docs/speech.md).
// Synthesises a split (development or test: other voices, sentences, babble talkers) with
// espeak-ng, mixes each condition's noise at a fixed SNR, decodes it as one long microphone
// recording through the product's Listener and its operating point (models/
// operating-point.json, chosen on the development split), and prints recall, confusions,
// false actions, false actions per hour of chatter, RTF and peak RSS, for the stock and the
// adapted acoustic model. Run it with Scripts/voice-eval.
import Diagnostics
import Foundation
import Geo
import Speech
import SystemCalls

struct Options {
    var seed: UInt64 = 1
    var models: String?
    var english = "/usr/share/pocketsphinx/test/data"
    var split = Split.test
    var conditions = Condition.all
    var acoustic = ["adapted"]
    var policy = Listener.Policy.standard
    /// `--real DIR` (repeatable): folders of recordings made with `pathfinder record`, all used.
    var real: [String] = []
    var exportAdaptation: String?
    /// `--channel-copies N`, `--adapt-noises LIST` (with `--export-adaptation`): `nil` when not
    /// given, `AdaptationExport`'s defaults then.
    var channelCopies: Int?
    var adaptNoises: [NoiseKind]?
    /// `--adapt-voices LIST` (with `--export-adaptation`): espeak-ng voices only adaptation
    /// hears (``Corpus/adaptationVoices(_:)``); none when not given.
    var adaptVoices: [String] = []
    /// `--babble-recordings DIR`: the babble's recordings from `DIR/dev` and `DIR/test`.
    var babbleRecordings = NoiseBank.defaultDirectory
    var hours = 0.25
    var verbose = false
    var tune: String?
    var bothTurns = false
    var point: String?
    var save: String?
    var rescore: String?
    /// `--guard-run RUN.json` (with `--rescore --tune`, repeatable): saved dev runs the chosen
    /// point must meet the budgets on too, e.g. one long session beside the walker's sessions.
    var guardRuns: [String] = []
    /// `--cross-validate halves|sentences` (with `--rescore`): folds of the development split,
    /// each tuned on one part and scored on the rest (``CrossValidation``).
    var crossValidate: CrossValidation.Mode?
    var budgets = Tuning.Budgets()
    var confidence: ConfidenceEvidence.Feature?
    /// `--babble-shift`: the allowance `perFrameInBabble` recomputes confidences with.
    var babble: BabbleShift?
    /// `--agreement W,FLOOR` (with `--rescore`): the hearings that agree combine (measured,
    /// not in the product).
    var agreement: Agreement?
    /// `--preprocess COMMAND`: a filter every recording goes through before the Listener.
    var preprocess: String?
    var describe = false
    /// Development near-misses the grammar does not spell, added to the dev split for tuning
    /// (`--unknown-near-misses`); none by default.
    var unknownNearMisses: [String] = []
    var confidenceOf: [String] = []
    /// `--check-model DIR`: the product's fixtures on the acoustic model in DIR (`ModelCheck`).
    var checkModel: String?
    var demo: String?
    /// `--held-out DIR` (with `--check-model`, repeatable): recordings of people no model was
    /// adapted on.
    var heldOut: [String] = []
    /// `--session-per-channel`, `--sessions-of N`, `--cepstral-mean`: how the recordings are cut
    /// into listening sessions (``Sessions``).
    var sessions = Sessions()
    /// `--decoder-setting "-flag value"` (repeatable): PocketSphinx settings over the models
    /// directory's `pathfinder.args` (measured, not the product's).
    var decoderSettings: [(String, String)] = []

    static let usage = """
        usage: VoiceEval [--split dev|test] [--conditions clean,white10,pink10,babble15,babble10,babble5,street10]
                         [--acoustic stock,adapted] [--hours H] [--seed N] [--models DIR] [--english DIR]
                         [--real DIR]… [--export-adaptation DIR [--channel-copies N] [--adapt-noises room,white,…] [--adapt-voices ko+m2,…] [--preprocess "COMMAND"]] [--babble-recordings DIR] [--max-seconds S] [--max-fillers-not-here N]
                         [--max-fillers-this-is-it N] [--verbose] [--tune OUT.json] [--both-turns] [--point FILE] [--save RUN.json] [--rescore RUN.json]
                         [--guard-run RUN.json]  (with --rescore --tune, repeatable: the budgets hold on this saved run too)
                         [--cross-validate halves|sentences]  (with --rescore: tune on half the dev voices and near-miss sentences and score the other half, both ways; or leave one near-miss sentence out at a time)
                         [--near-miss-budget F] [--first-turn-near-miss-budget F] [--unrelated-budget F] [--confusion-budget N] [--budgets pooled|per-answer]
                         [--repeat-below C] [--no-ask-band] [--max-act C|notHere:C,thisIsIt:C] [--max-ask C|…] [--min-act C|…]
                         [--phone-loop] [--neighbour-margin [--neighbour-rule firstOnset|everyOnset]] [--speeds A,B…|none]  (decoders of the audio sped up so beside the plain one; default: the model's)
                         [--rehear A,B…|none]  (decoders that hear again, sped up so, a short utterance the others did not act on at once; default: the model's)
                         [--rehear-own-mean]  (those decoders normalise an utterance by its own cepstral mean, fed whole; measured, not the product's)
                         [--sessions-of N]  (a fresh Listener every N items, as the daemon opens one each last stretch; with --session-per-channel, within each channel)
                         [--cepstral-mean]  (each recording's live cepstral mean at its end, to standard error)
                         [--session-mean-frames N]  (each session's first mean, the model's -cmninit, counts as N frames, not 500, and is updated every block until its window first shifts; measured, not the product's)
                         [--session-lead S]  (with --sessions-of: S seconds of the noise alone before each session's first item, default 5; measured, not the issue's case)
                         [--carry-mean]  (with --sessions-of or --session-per-channel: each session starts from the mean its channel's previous session ended at; measured, not the product's)
                         [--session-per-channel]  (each perturbation's items, or each real speaker's on one device, one recording and one Listener, as a walker keeps one microphone; default: one recording, the channel changing every item)
                         [--high-pass HZ|none]  (the audio high-passed first; default: the model's)
                         [--noise-suppression LEVEL,SPREAD|none]  (WebRTC's noise suppression at LEVEL 0-3 in front of the decoders while the background's spread is below SPREAD dB; default: the model's)
                         [--search-lead S|none]  (search only near the foreground, from S seconds before it; default: the model's)
                         [--fillers speech|utterance]  (the filler rule counts within the walker's speech, or the decoder's whole utterance; default: the model's)
                         [--confidence perFrame|phraseRatio|utteranceRatio|perFrameInBabble|neighbourMargin|perFramePlusMargin|perFrameInBabblePlusMargin]  (with --rescore: recompute the confidence)
                         [--babble-shift FROM,TO,PER_DB]  (with --rescore: perFrameInBabble with this allowance for a fluctuating background)
                         [--preprocess "COMMAND"]  (every recording through COMMAND, raw 16 kHz mono 16-bit PCM stdin → stdout, before the Listener)
                         [--agreement W,FLOOR]  (with --rescore: an answer's confidence from every decoder that heard it, measured, not the product's)
                         [--decoder-setting "-flag value"]…  (a PocketSphinx setting over the models directory's pathfinder.args, e.g. "-wip 0.2"; measured, not the product's)
                         [--describe]  (print each split's voice settings and perturbations, and which dev voices adaptation uses; with --real, the words
                                        each recorded sentence is adapted as; synthesise nothing)
                         [--unknown-near-misses "S1,S2,…"]  (dev only: near-misses no decoy spells, every dev voice, unperturbed)
                         [--confidence-of WAV]…  (each phrase heard in WAV with its full-precision confidence)
                         [--check-model DIR|stock [--demo WAV] [--held-out DIR]…]  (the product's fixtures on the acoustic model in DIR,
                                                   and the held-out speakers' recordings against the installed model: exit 0 all pass, 1 one fails)
        --real DIR and --held-out DIR: folders of `pathfinder record`, one per person or several people in one; give as many as you have.
        Exit status: 0 done (or every check passed), 1 a run or a check failed, 2 a usage error or input it cannot use (a flag, a folder,
        a manifest line, a held-out speaker a model was adapted on), named on standard error.
        """

    init(_ argv: [String]) throws(UsageError) {
        var rest = argv[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst(), !next.hasPrefix("--") else {
                throw UsageError("\(flag) needs a value")
            }
            return next
        }
        /// A whole number (Swift's own reading: an optional sign and digits, nothing else).
        func number<T: FixedWidthInteger>(_ flag: String, _: T.Type) throws(UsageError) -> T {
            let text = try value(flag)
            guard let parsed = T(text) else { throw UsageError("\(flag): \"\(text)\" is not a valid number") }
            return parsed
        }
        /// A decimal, as `pathfinder`'s flags read one (``DecimalText/decimal(_:)``: not "0x10",
        /// "1e2", "inf", "nan", which `Double` reads; before, they passed here).
        func decimal(_ flag: String) throws(UsageError) -> Double {
            let text = try value(flag)
            guard let parsed = DecimalText.decimal(text) else {
                throw UsageError("\(flag): \"\(text)\" is not a decimal number (digits, at most one point)")
            }
            return parsed
        }
        /// Speed factors, comma-separated, or "none".
        /// `flag`'s value: a number in `range` (`what` says which), or "none", read as 0.
        func noneOr(
            _ flag: String, in range: ClosedRange<Double>, _ what: String
        ) throws(UsageError) -> Double {
            let text = try value(flag)
            if text == "none" { return 0 }
            guard let number = DecimalText.decimal(text), range.contains(number) else {
                throw UsageError("\(flag) \(text): \(what), or none")
            }
            return number
        }
        func speedList(_ flag: String, _ text: String) throws(UsageError) -> [Double] {
            if text == "none" { return [] }
            let speeds = text.split(separator: ",").map {
                DecimalText.decimal($0.trimmingCharacters(in: .whitespaces))
            }
            let range = OperatingPoint.speedRange
            guard !speeds.isEmpty, speeds.allSatisfy({ $0.map(range.contains) ?? false }) else {
                throw UsageError(
                    "\(flag) \(text): factors between \(range.lowerBound) and \(range.upperBound), comma-separated, or none"
                )
            }
            return speeds.compactMap { $0 }
        }
        func fraction(_ flag: String) throws(UsageError) -> Double {
            let parsed = try decimal(flag)
            guard parsed >= 0, parsed <= 1 else {
                throw UsageError("\(flag): \(parsed) is not between 0 and 1")
            }
            return parsed
        }
        /// "C" (both answers) or "notHere:C,thisIsIt:C" (either may be left out).
        func caps(_ flag: String) throws(UsageError) -> [ArrivalWords: Double] {
            let text = try value(flag)
            if let both = DecimalText.decimal(text) {
                guard both >= 0, both <= 1 else {
                    throw UsageError("\(flag): \(both) is not between 0 and 1")
                }
                return [.notHere: both, .thisIsIt: both]
            }
            var caps: [ArrivalWords: Double] = [.notHere: 1.000001, .thisIsIt: 1.000001]
            for part in text.split(separator: ",") {
                let pair = part.split(separator: ":")
                guard pair.count == 2, let answer = ArrivalWords(rawValue: String(pair[0])),
                    let cap = DecimalText.decimal(pair[1]), cap >= 0, cap <= 1
                else {
                    throw UsageError(
                        "\(flag): \"\(part)\" is not ANSWER:C (notHere or thisIsIt, C between 0 and 1)")
                }
                caps[answer] = cap
            }
            return caps
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--seed": seed = try number(flag, UInt64.self)
            case "--models": models = try value(flag)
            case "--english": english = try value(flag)
            case "--real": real.append(try value(flag))
            case "--export-adaptation": exportAdaptation = try value(flag)
            case "--babble-recordings":
                let folder = try value(flag)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory),
                    isDirectory.boolValue
                else { throw UsageError("--babble-recordings: \(folder) is not a folder") }
                babbleRecordings = folder
            case "--channel-copies":
                let copies = try number(flag, Int.self)
                guard copies >= 0 else { throw UsageError("--channel-copies: \(copies) is below 0") }
                channelCopies = copies
            case "--adapt-noises": adaptNoises = try AdaptationExport.parseNoises(try value(flag))
            case "--adapt-voices": adaptVoices = try Corpus.adaptationVoices(try value(flag))
            case "--split":
                let text = try value(flag)
                guard let parsed = Split(rawValue: text) else {
                    throw UsageError("--split: \"\(text)\" is not dev or test")
                }
                split = parsed
            case "--conditions":
                conditions = []
                for name in try value(flag).split(separator: ",").map(String.init) {
                    guard let condition = Condition(name: name), Condition.all.contains(condition) else {
                        throw UsageError(
                            "--conditions: unknown condition \"\(name)\" (known: \(Condition.all.map(\.name).joined(separator: ",")))"
                        )
                    }
                    conditions.append(condition)
                }
            case "--acoustic":
                acoustic = try value(flag).split(separator: ",").map(String.init)
                for name in acoustic where name != "stock" && name != "adapted" {
                    throw UsageError("--acoustic: unknown model \"\(name)\" (stock, adapted)")
                }
            case "--hours":
                hours = try decimal(flag)
                guard hours >= 0 else { throw UsageError("--hours: \(hours) is negative") }
            case "--phone-loop": policy.phoneLoop = true
            case "--neighbour-margin": policy.neighbourMargin = true
            case "--neighbour-rule":
                let text = try value(flag)
                guard let rule = Listener.Policy.NeighbourRule(rawValue: text) else {
                    throw UsageError("--neighbour-rule: unknown rule \"\(text)\" (firstOnset, everyOnset)")
                }
                policy.neighbourRule = rule
            case "--speeds": policy.speeds = try speedList(flag, try value(flag))
            case "--rehear": policy.rehear = try speedList(flag, try value(flag))
            case "--rehear-own-mean": policy.rehearOwnMean = true
            case "--noise-suppression":
                let text = try value(flag)
                let parts = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                if text == "none" {
                    policy.noiseSuppression = NoiseSuppression(level: 1, belowSpread: 0)
                } else if parts.count == 2, let level = Int(parts[0]),
                    let spread = DecimalText.decimal(parts[1])
                {
                    if let problem = NoiseSuppression.problem(level: level, belowSpread: spread) {
                        throw UsageError("--noise-suppression \(text): \(problem)")
                    }
                    policy.noiseSuppression = NoiseSuppression(level: level, belowSpread: spread)
                } else {
                    throw UsageError(
                        "--noise-suppression \(text): none, or LEVEL,SPREAD (a WebRTC level from 0 to 3; suppressed while the background's spread is below SPREAD dB, 0 to 20)"
                    )
                }
            case "--session-mean-frames":
                let frames = try number(flag, Int.self)
                guard (1...500).contains(frames) else {
                    throw UsageError("--session-mean-frames: \(frames) is not from 1 to 500 frames")
                }
                policy.sessionMeanFrames = frames
            case "--session-per-channel": sessions.perChannel = true
            case "--cepstral-mean": sessions.printsMean = true
            case "--carry-mean": sessions.carried = CarriedMeans()
            case "--session-lead":
                sessions.leadSeconds = try decimal(flag)
                guard (Sessions.lead...600).contains(sessions.leadSeconds) else {
                    throw UsageError(
                        "--session-lead: \(sessions.leadSeconds) is not from \(Sessions.lead) to 600 seconds")
                }
            case "--sessions-of":
                sessions.items = try number(flag, Int.self)
                guard sessions.items > 0 else {
                    throw UsageError("--sessions-of: \(sessions.items) is not 1 or more")
                }
            case "--high-pass":
                policy.highPass = try noneOr(
                    flag, in: HighPass.cutoffRange,
                    "a cutoff in Hz from \(Int(HighPass.cutoffRange.lowerBound)) to \(Int(HighPass.cutoffRange.upperBound))"
                )
            case "--search-lead":
                policy.searchLead = try noneOr(
                    flag, in: OperatingPoint.searchLeadRange,
                    "seconds from \(OperatingPoint.searchLeadRange.lowerBound) to \(OperatingPoint.searchLeadRange.upperBound)"
                )
            case "--fillers":
                let span = try value(flag)
                guard let fillers = FillerSpan(rawValue: span) else {
                    throw UsageError("--fillers \(span): speech or utterance")
                }
                policy.fillers = fillers
            case "--max-seconds": policy.maxUtteranceSeconds = try decimal(flag)
            case "--max-fillers-not-here": policy.maxFillersNotHere = try number(flag, Int.self)
            case "--max-fillers-this-is-it": policy.maxFillersThisIsIt = try number(flag, Int.self)
            case "--verbose": verbose = true
            case "--both-turns": bothTurns = true
            case "--save": save = try value(flag)
            case "--rescore": rescore = try value(flag)
            case "--guard-run": guardRuns.append(try value(flag))
            case "--cross-validate":
                let text = try value(flag)
                guard let mode = CrossValidation.Mode(rawValue: text) else {
                    throw UsageError("--cross-validate: \"\(text)\" is not halves or sentences")
                }
                crossValidate = mode
            case "--confidence":
                let text = try value(flag)
                guard let parsed = ConfidenceEvidence.Feature(rawValue: text) else {
                    throw UsageError(
                        "--confidence: \"\(text)\" is not one of \(ConfidenceEvidence.Feature.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                confidence = parsed
            case "--babble-shift":
                let text = try value(flag)
                let parts = text.split(separator: ",").map {
                    DecimalText.decimal($0.trimmingCharacters(in: .whitespaces))
                }
                guard parts.count == 3, let from = parts[0], let to = parts[1], let perDecibel = parts[2],
                    from.isFinite, to.isFinite, perDecibel.isFinite, from <= to
                else {
                    throw UsageError(
                        "--babble-shift \(text): FROM,TO,PER_DB (spread in dB, FROM ≤ TO; search units a frame per dB)"
                    )
                }
                babble = BabbleShift(from: from, to: to, perDecibel: perDecibel)
            case "--preprocess": preprocess = try value(flag)
            case "--agreement":
                let text = try value(flag)
                let parts = text.split(separator: ",").map {
                    DecimalText.decimal($0.trimmingCharacters(in: .whitespaces))
                }
                guard parts.count == 2, let weight = parts[0], let floor = parts[1], weight >= 0,
                    weight.isFinite,
                    floor.isFinite
                else {
                    throw UsageError(
                        "--agreement \(text): W,FLOOR (W ≥ 0: the weight of the next surest hearing's log-odds; FLOOR: its least)"
                    )
                }
                agreement = Agreement(weight: weight, floor: floor)
            case "--point":
                point = try value(flag)
                bothTurns = true
            case "--tune":
                tune = try value(flag)
                split = .dev
            case "--near-miss-budget":
                budgets.nearMiss = try fraction(flag)
            case "--first-turn-near-miss-budget":
                budgets.nearMissFirstTurn = try fraction(flag)
            case "--unrelated-budget":
                budgets.unrelated = try fraction(flag)
            case "--confusion-budget":
                budgets.confusions = try number(flag, Int.self)
                guard budgets.confusions >= 0 else {
                    throw UsageError("--confusion-budget: \(budgets.confusions) is negative")
                }
            case "--budgets":
                let text = try value(flag)
                guard text == "pooled" || text == "per-answer" else {
                    throw UsageError("--budgets: \"\(text)\" is not pooled or per-answer")
                }
                budgets.pooled = text == "pooled"
            case "--repeat-below":
                budgets.repeatBelow = try fraction(flag)
            case "--no-ask-band": budgets.askBand = false
            case "--max-act": budgets.maxAct = try caps(flag)
            case "--max-ask": budgets.maxAsk = try caps(flag)
            case "--min-act":
                var floors = try caps(flag)
                // caps() leaves an answer not named at 1.000001 (no cap): no floor for it.
                for (answer, value) in floors where value > 1 { floors[answer] = 0 }
                budgets.minAct = floors
            case "--decoder-setting":
                let text = try value(flag)
                guard let setting = PhraseModel.setting(from: text), setting.flag != "-" else {
                    throw UsageError(
                        "--decoder-setting \"\(text)\": expected \"-flag value\", e.g. \"-wip 0.2\"")
                }
                guard !Self.modelFlags.contains(setting.flag) else {
                    throw UsageError(
                        "--decoder-setting \"\(text)\": \(setting.flag) is the models directory's own (--models)"
                    )
                }
                decoderSettings.append(setting)
            case "--describe": describe = true
            case "--unknown-near-misses":
                unknownNearMisses = try value(flag).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }.filter { !$0.isEmpty }
            case "--confidence-of": confidenceOf.append(try value(flag))
            case "--check-model": checkModel = try value(flag)
            case "--demo": demo = try value(flag)
            case "--held-out": heldOut.append(try value(flag))
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default: throw UsageError("unknown option \(flag)")
            }
        }
        if sessions.leadSeconds != Sessions.lead, sessions.items == 0 {
            throw UsageError("--session-lead belongs to --sessions-of")
        }
        if sessions.carried != nil, sessions.items == 0, !sessions.perChannel {
            throw UsageError("--carry-mean belongs to --sessions-of or --session-per-channel")
        }
        if demo != nil, checkModel == nil { throw UsageError("--demo belongs to --check-model") }
        if channelCopies != nil, exportAdaptation == nil {
            throw UsageError("--channel-copies belongs to --export-adaptation")
        }
        if !adaptVoices.isEmpty, exportAdaptation == nil {
            throw UsageError("--adapt-voices belongs to --export-adaptation")
        }
        if adaptNoises != nil, exportAdaptation == nil {
            throw UsageError("--adapt-noises belongs to --export-adaptation")
        }
        if !heldOut.isEmpty, checkModel == nil { throw UsageError("--held-out belongs to --check-model") }
        if agreement != nil, rescore == nil { throw UsageError("--agreement belongs to --rescore") }
        if crossValidate != nil, rescore == nil { throw UsageError("--cross-validate belongs to --rescore") }
        if crossValidate != nil, tune != nil {
            throw UsageError("--cross-validate chooses no point: drop --tune")
        }
        if !guardRuns.isEmpty, rescore == nil || (tune == nil && crossValidate == nil) {
            throw UsageError("--guard-run belongs to --rescore with --tune or --cross-validate")
        }
    }
}

extension Options {
    /// The flags `--models` decides, never a `--decoder-setting`.
    static let modelFlags: Set<String> = ["-hmm", "-dict", "-fsg", "-samprate"]

    /// `model` with `decoderSettings` over its own (``PhraseModel/set(_:to:)``).
    func applyingDecoderSettings(to model: PhraseModel) -> PhraseModel {
        var model = model
        for (flag, value) in decoderSettings { model.set(flag, to: value) }
        return model
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the product does with one utterance at the operating point.
enum Decision: Equatable {
    case act(ArrivalWords), ask(ArrivalWords), ignore

    var meaning: ArrivalWords? {
        switch self {
        case .act(let m), .ask(let m): m
        case .ignore: nil
        }
    }
}

/// The product's decision for `utterance`, as the Listener made it at the model's operating
/// point: no meaning (below `ask`, or too many fillers) is ignored; `sure` (at or above `act`)
/// acts at once; otherwise the last stretch asks to hear it again.
func productDecision(_ utterance: Utterance) -> Decision {
    guard let meaning = utterance.meaning else { return .ignore }
    return utterance.sure ? .act(meaning) : .ask(meaning)
}

/// The same decision at another operating point, from an utterance decoded with the
/// permissive one (ask = act = 0: meaning and confidence kept): what tuning sweeps. Equal to
/// `productDecision` of a Listener run at `point` (the Listener applies the same rule).
func decide(_ utterance: Utterance, point: OperatingPoint) -> Decision {
    // Every decoder's hearing judged at `point` as the Listener judges it, and of those with a
    // meaning there the surest, the first of equals, as `Listener.better` keeps it. First the
    // stream's hearings alone: when the one kept acts at once, the Listener hears nothing
    // again, so a re-hearing saved by the permissive decode does not count.
    func kept(_ hearings: [Utterance]) -> (meaning: ArrivalWords, sure: Bool)? {
        var kept: (meaning: ArrivalWords, sure: Bool, confidence: Double)?
        for hearing in hearings {
            guard let judgement = hearing.judgement(at: point) else { continue }
            let confidence = hearing.confidence ?? 1
            if confidence > kept?.confidence ?? -1 { kept = (judgement.meaning, judgement.sure, confidence) }
        }
        return kept.map { ($0.meaning, $0.sure) }
    }
    let stream = kept(utterance.everyHearing.filter { !$0.reheard })
    guard let decision = stream?.sure == true ? stream : kept(utterance.everyHearing) else { return .ignore }
    return decision.sure ? .act(decision.meaning) : .ask(decision.meaning)
}

/// A Listener for the benchmark: decoding at the permissive point (to be judged at another
/// point later) it hears every answer-length answer again, sure ones too, so the saved run
/// holds what any point would have heard.
func benchmarkListener(model: PhraseModel, policy: Listener.Policy) throws -> Listener {
    let listener = try Listener(model: model, policy: policy)
    listener.rehearsSureAnswers = policy.operatingPoint == permissive
    return listener
}

/// Keeps every phrase the filler rule lets through, with its confidence.
let permissive = OperatingPoint(
    notHere: .init(act: 0, ask: 0), thisIsIt: .init(act: 0, ask: 0))

/// The walker's answer after "다시 한 번 말해줘": acted on when the repeat is heard with the
/// same meaning (acting or asking again) within the answer window.
func agrees(_ first: ArrivalWords, _ second: Decision) -> Bool { second.meaning == first }

/// Tallies of one model × condition.
struct Tally {
    var firstTurn = 0, twoTurns = 0, positives = 0, confusions = 0
    var acted: [Item.Kind: Int] = [:]
    var negatives: [Item.Kind: Int] = [:]
    var actedTexts: [String: Int] = [:]
    var byPerturbation: [String: (hits: Int, total: Int)] = [:]
    var spurious = 0
    var audioSeconds = 0.0, cpuSeconds = 0.0
    /// Seconds of audio the stream's decoders searched (``Listener/searched``); 0 in a saved run.
    var searchedSeconds = 0.0
    /// Seconds of audio the decoders heard noise-suppressed (``Listener/suppressed``); 0 in a
    /// saved run.
    var suppressedSeconds = 0.0
    /// Wall seconds each utterance heard again took after its pause (``Utterance/rehearing``).
    var rehearings: [Double] = []
    /// By speaker (``Item/voice``; `--real` prints them, one line a person).
    var bySpeaker: [String: SpeakerTally] = [:]

    /// One person's counts: answers acted on within two turns of how many; near-misses, and
    /// "여기 안이야" apart from them as the totals keep it, acted on of how many.
    struct SpeakerTally {
        var answers = 0, of = 0, nearMisses = 0, nearMissesOf = 0, anIya = 0, anIyaOf = 0

        static func + (a: Self, b: Self) -> Self {
            Self(
                answers: a.answers + b.answers, of: a.of + b.of, nearMisses: a.nearMisses + b.nearMisses,
                nearMissesOf: a.nearMissesOf + b.nearMissesOf, anIya: a.anIya + b.anIya,
                anIyaOf: a.anIyaOf + b.anIyaOf)
        }
    }

    /// Counts one item: what was acted on in the first turn, and within both turns.
    mutating func count(_ item: Item, actedFirst: Set<ArrivalWords>, actions: Set<ArrivalWords>) {
        var speaker = bySpeaker[item.voice] ?? SpeakerTally()
        if let expected = item.expected {
            speaker.answers += actions.contains(expected) ? 1 : 0
            speaker.of += 1
        } else if item.kind == .nearMiss {
            speaker.nearMisses += actions.isEmpty ? 0 : 1
            speaker.nearMissesOf += 1
        } else if item.kind == .anIya {
            speaker.anIya += actions.isEmpty ? 0 : 1
            speaker.anIyaOf += 1
        }
        bySpeaker[item.voice] = speaker
        if let expected = item.expected {
            positives += 1
            if actedFirst.contains(expected) { firstTurn += 1 }
            if actions.contains(expected) { twoTurns += 1 }
            if actions.contains(where: { $0 != expected }) { confusions += 1 }
            let key = item.perturbation.isEmpty ? "none" : item.perturbation
            let old = byPerturbation[key] ?? (0, 0)
            byPerturbation[key] = (old.hits + (actions.contains(expected) ? 1 : 0), old.total + 1)
        } else {
            negatives[item.kind, default: 0] += 1
            if !actions.isEmpty {
                acted[item.kind, default: 0] += 1
                actedTexts[item.text, default: 0] += 1
            }
        }
    }
}

/// How a condition's recording is cut into listening sessions, each heard by a Listener of its
/// own; by default one session, the channel changing with every item.
struct Sessions {
    /// `--session-per-channel`: each channel's items (``Item/channel``: one perturbation, or one
    /// real speaker on one device) a session of their own, as a walker keeps one microphone.
    var perChannel = false
    /// `--sessions-of N`: a fresh Listener every N items (of a channel, with `perChannel`), as
    /// the daemon opens one for each last stretch, where a walker says only a few answers;
    /// 0: no such cut.
    var items = 0
    /// `--cepstral-mean`: each session's live cepstral mean at its end (the plain decoder's), to
    /// standard error.
    var printsMean = false
    /// `--carry-mean`: each session of a channel starts from the cepstral mean its channel's
    /// previous session ended at (conditions and turns in the order decoded), as a daemon that
    /// kept its microphone's mean from one last stretch to the next would; the first from the
    /// models directory's `-cmninit`. Measured, not the product's.
    var carried: CarriedMeans?
    /// The channel a single session's end mean is kept for (with `carried`).
    var channel = ""
    /// Seconds of the condition's noise alone before a short session's first item: more than
    /// the foreground detector's 4 s window, as the last stretch's microphone has heard the
    /// street before the walker's first answer.
    static let lead = 5.0
    /// `--session-lead S`: the noise alone before each short session's first item, ``lead``
    /// unless given (a longer one: a walker who has been in that noise since the last
    /// stretch began; measured, not the walker's case the issue's figures report).
    var leadSeconds = Sessions.lead
}

/// The cepstral mean each channel's last session ended at (``Sessions/carried``).
final class CarriedMeans {
    var byChannel: [String: [Double]] = [:]

    /// `model` with the channel's carried mean as its `-cmninit`; `model` itself before any.
    func model(_ model: PhraseModel, channel: String) -> PhraseModel {
        // A mean of the wrong length is the Decoder's to refuse, naming the model.
        guard let mean = byChannel[channel], !mean.isEmpty else { return model }
        var carried = model
        carried.set("-cmninit", to: mean.map { String(format: "%.4f", $0) }.joined(separator: ","))
        return carried
    }
}

/// Decodes `order` as one microphone recording (pauses of 0.8–1.2 s, the noise running on
/// through them, 100 ms chunks: the path of `pathfinder listen --mic`); returns each item's
/// decisions (utterances aligned back to the script by time) and the decisions heard in pauses.
/// `sessions` may cut it: each channel's items (the same perturbation, or the same speaker and
/// device) a recording of their own, in `order`'s order, channels in the order they first occur,
/// and every `sessions.items` of them, each after ``Sessions/leadSeconds`` of the noise alone; each is
/// heard by a Listener of its own, and the decisions come back in `order`'s order. One
/// recording begins after `leadSeconds` of the noise.
func decodeRecording(
    _ order: [Item], condition: Condition, model: PhraseModel, policy: Listener.Policy, bank: NoiseBank,
    preprocess: String?, sessions: Sessions = Sessions(), leadSeconds: Double = 1, random: inout SeededRandom,
    tally: inout Tally
) throws -> (perItem: [[Utterance]], spurious: [Utterance]) {
    if sessions.perChannel || sessions.items > 0 {
        var channels: [String] = []
        var members: [String: [Int]] = [:]
        for (i, item) in order.enumerated() {
            let channel = sessions.perChannel ? item.channel : ""
            if members[channel] == nil { channels.append(channel) }
            members[channel, default: []].append(i)
        }
        var perItem = [[Utterance]](repeating: [], count: order.count)
        var spurious: [Utterance] = []
        for channel in channels {
            let all = members[channel] ?? []
            let size = sessions.items > 0 ? sessions.items : all.count
            for first in stride(from: 0, to: all.count, by: size) {
                let indices = Array(all[first..<min(first + size, all.count)])
                let session = try decodeRecording(
                    indices.map { order[$0] }, condition: condition,
                    model: sessions.carried?.model(model, channel: channel) ?? model, policy: policy,
                    bank: bank,
                    preprocess: preprocess,
                    sessions: Sessions(
                        printsMean: sessions.printsMean, carried: sessions.carried, channel: channel),
                    leadSeconds: sessions.items > 0 ? sessions.leadSeconds : 1, random: &random, tally: &tally
                )
                for (k, i) in indices.enumerated() { perItem[i] = session.perItem[k] }
                spurious += session.spurious
            }
        }
        return (perItem, spurious)
    }
    var speech: [Int16] = Array(repeating: 0, count: Int(leadSeconds * 16_000))
    var spans: [(start: Double, end: Double)] = []
    for item in order {
        let start = speech.count
        speech += item.audio
        spans.append((Double(start) / 16_000, Double(speech.count) / 16_000))
        speech += [Int16](repeating: 0, count: Int.random(in: 12_800...19_200, using: &random))
    }
    let noise = bank.noise(condition.kind, count: speech.count, using: &random)
    let mixed = mix(speech, noise: noise, snr: condition.snr)
    let recording = try preprocessed(mixed, through: preprocess)
    let listener = try benchmarkListener(model: model, policy: policy)
    var utterances: [Utterance] = []
    let start = threadCPUSeconds()
    var index = 0
    while index < recording.count {
        let end = min(index + Microphone.chunkSamples, recording.count)
        utterances += try listener.process(samples: Array(recording[index..<end]))
        index = end
    }
    utterances += try listener.finish()
    tally.cpuSeconds += threadCPUSeconds() - start
    sessions.carried?.byChannel[sessions.channel] = listener.cepstralMean
    if sessions.printsMean {
        FileHandle.standardError.write(
            Data(
                "cepstral mean after \(condition) (\(order.count) items, \(order.first?.channel ?? "")): \(listener.cepstralMean.map { String(format: "%.2f", $0) }.joined(separator: ","))\n"
                    .utf8))
    }
    tally.audioSeconds += Double(recording.count) / 16_000
    tally.searchedSeconds += listener.searched
    tally.suppressedSeconds += listener.suppressed
    tally.rehearings += utterances.compactMap(\.rehearing)
    func overlap(_ u: Utterance, _ span: (start: Double, end: Double)) -> Bool {
        min(u.end, span.end) - max(u.start, span.start) > 0.05
    }
    let perItem = spans.map { span in utterances.filter { overlap($0, span) } }
    let spurious = utterances.filter { u in !spans.contains { overlap(u, $0) } }
    return (perItem, spurious)
}

/// One condition through the product path: turn one for every item, then turn two (the
/// same sentence again, new noise) for the items the product asked about.
func run(
    _ items: [Item], condition: Condition, model: PhraseModel, options: Options, bank: NoiseBank,
    label: String
) throws -> Tally {
    var random = benchmarkRandom(options.seed &* 131 &+ UInt64(Condition.all.firstIndex(of: condition) ?? 0))
    var tally = Tally()
    let order = items.shuffled(using: &random)
    let decoded = try decodeRecording(
        order, condition: condition, model: model, policy: options.policy, bank: bank,
        preprocess: options.preprocess, sessions: options.sessions, random: &random, tally: &tally)
    let first = (perItem: decoded.perItem.map { $0.map(productDecision) }, spurious: 0)
    tally.spurious = decoded.spurious.filter { productDecision($0) != .ignore }.count
    // Items whose first turn asked (and acted on nothing): the walker repeats.
    let asked = order.indices.filter { i in
        !first.perItem[i].contains { if case .act = $0 { true } else { false } }
            && first.perItem[i].contains { if case .ask = $0 { true } else { false } }
    }
    var second: [Int: [Decision]] = [:]
    if !asked.isEmpty {
        let repeats = try decodeRecording(
            asked.map { order[$0] }, condition: condition, model: model, policy: options.policy, bank: bank,
            preprocess: options.preprocess, sessions: options.sessions, random: &random,
            tally: &tally)
        for (k, i) in asked.enumerated() { second[i] = repeats.perItem[k].map(productDecision) }
    }
    for (i, item) in order.enumerated() {
        let turnOne = first.perItem[i]
        let actedFirst = turnOne.compactMap { if case .act(let m) = $0 { m } else { nil } }
        let askedMeanings = turnOne.compactMap { if case .ask(let m) = $0 { m } else { nil } }
        let actedSecond: [ArrivalWords] =
            actedFirst.isEmpty
            ? askedMeanings.filter { m in (second[i] ?? []).contains { agrees(m, $0) } } : []
        tally.count(item, actedFirst: Set(actedFirst), actions: Set(actedFirst + actedSecond))
        if options.verbose {
            print(
                "\(label) \(condition) \(item.voice) \(item.perturbation) \(item.text) → \(turnOne) \(second[i] ?? [])"
            )
        }
    }
    return tally
}

/// False actions per hour: babble (the split's real talkers, at the speech level) with
/// unrelated Korean sentences spoken into it every 1.5–5 s, no answer in it, decoded in
/// one-minute recordings through the same path. An ask followed within 8 s by an agreeing
/// decision counts as an action, as the dialogue would act on it.
func falseActionsPerHour(
    chatter: [Item], model: PhraseModel, options: Options, bank: NoiseBank,
    judgeLater: (() throws -> (Utterance) -> Decision)? = nil
) throws -> (actions: Int, hours: Double, rtf: Double, searched: Double, heard: [String: Int]) {
    var random = benchmarkRandom(options.seed &* 7_919)
    let minutes = Int((options.hours * 60).rounded())
    var actions = 0, audio = 0.0, cpu = 0.0
    var heard: [String: Int] = [:]
    var policy = options.policy
    // Judged later (at a point read after decoding): decode with the permissive point.
    if judgeLater != nil { policy.operatingPoint = permissive }
    let listener = try benchmarkListener(model: model, policy: policy)
    var all: [Utterance] = []
    for _ in 0..<minutes {
        let count = 60 * 16_000
        var speech = [Double](repeating: 0, count: count)
        var position = Int.random(in: 0..<32_000, using: &random)
        while position < count {
            let sentence = chatter[Int.random(in: 0..<chatter.count, using: &random)].audio
            for (k, s) in sentence.enumerated() where position + k < count {
                speech[position + k] += Double(s)
            }
            position += sentence.count + Int.random(in: 24_000...80_000, using: &random)
        }
        let babble = bank.noise(.babble, count: count, using: &random)
        let mixed = (0..<count).map {
            Int16(clamping: Int((speech[$0] + babble[$0] * Corpus.speechRMS).rounded()))
        }
        let recording = try preprocessed(mixed, through: options.preprocess)
        let start = threadCPUSeconds()
        var index = 0
        var utterances: [Utterance] = []
        while index < count {
            let end = min(index + Microphone.chunkSamples, count)
            utterances += try listener.process(samples: Array(recording[index..<end]))
            index = end
        }
        cpu += threadCPUSeconds() - start
        audio += 60
        all += utterances
    }
    if options.verbose {
        // Every candidate with its confidence (decoded at the permissive point when judged
        // later), so a floor for `act` can be read off the chatter without decoding it again.
        // Every decoder's hearing of it: the one kept at one point need not be the one at another.
        for u in all.flatMap(\.everyHearing) where u.meaning != nil {
            print(
                String(
                    format: "chatter\t%.2f\t%.2f\t%@\t%@\t%.6f", u.start, u.end, u.meaning?.rawValue ?? "",
                    u.heard, u.confidence ?? 1))
        }
    }
    let judge = try judgeLater?() ?? productDecision
    var pendingAsk: (meaning: ArrivalWords, at: Double)?
    do {
        for u in all {
            switch judge(u) {
            case .act:
                actions += 1
                heard[u.heard, default: 0] += 1
                pendingAsk = nil
            case .ask(let meaning):
                if let pending = pendingAsk, pending.meaning == meaning, u.start - pending.at <= 8 {
                    actions += 1
                    heard[u.heard, default: 0] += 1
                    pendingAsk = nil
                } else {
                    pendingAsk = (meaning, u.end)
                }
            case .ignore: break
            }
        }
    }
    return (actions, audio / 3600, cpu / max(audio, 1e-9), listener.searched / max(audio, 1e-9), heard)
}

func percent(_ n: Int, _ d: Int) -> String {
    d == 0 ? "–" : String(format: "%.0f %%", 100 * Double(n) / Double(d))
}

/// The Wilson score interval of `n` successes in `d` trials at 95 %: how far a rate measured on
/// this few items may lie from the true one (52 answers a condition: ±10–13 points).
func wilson(_ n: Int, _ d: Int) -> (low: Double, high: Double) {
    guard d > 0 else { return (0, 1) }
    let z = 1.959964, p = Double(n) / Double(d), trials = Double(d)
    let centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    let half = z * (p * (1 - p) / trials + z * z / (4 * trials * trials)).squareRoot() / (1 + z * z / trials)
    return (max(0, centre - half), min(1, centre + half))
}

/// "234/364 (64.3 %; 95 % interval 59.2–69.0 %)".
func rate(_ n: Int, _ d: Int) -> String {
    guard d > 0 else { return "0/0" }
    let interval = wilson(n, d)
    return String(
        format: "%d/%d (%.1f %%; 95 %% interval %.1f–%.1f %%)", n, d, 100 * Double(n) / Double(d),
        100 * interval.low, 100 * interval.high)
}

/// One line a person (`--real`), pooled over the conditions: how many of their answers were
/// acted on within two turns, and how many of their near-misses and of their "여기 안이야"
/// (apart, as the totals count it) were acted on.
func reportSpeakers(_ tallies: [(Condition, Tally)]) {
    var pooled: [String: Tally.SpeakerTally] = [:]
    for (_, tally) in tallies {
        for (speaker, counts) in tally.bySpeaker {
            pooled[speaker] = (pooled[speaker] ?? Tally.SpeakerTally()) + counts
        }
    }
    print("\nBy speaker, over \(tallies.count) condition\(tallies.count == 1 ? "" : "s"):")
    for (speaker, counts) in pooled.sorted(by: { $0.key < $1.key }) {
        print(
            "- \(speaker): answers acted on \(counts.answers) of \(counts.of) (\(percent(counts.answers, counts.of))), near-misses acted on \(counts.nearMisses) of \(counts.nearMissesOf) (\(percent(counts.nearMisses, counts.nearMissesOf))), \(Item.Kind.anIya.rawValue) acted on \(counts.anIya) of \(counts.anIyaOf) (\(percent(counts.anIya, counts.anIyaOf)))"
        )
    }
}

func report(label: String, tallies: [(Condition, Tally)]) {
    print("\n### \(label)\n")
    print("| | " + tallies.map { $0.0.description }.joined(separator: " | ") + " |")
    print("|---|" + String(repeating: "---|", count: tallies.count))
    func row(_ name: String, _ cell: (Tally) -> String) {
        print("| \(name) | " + tallies.map { cell($0.1) }.joined(separator: " | ") + " |")
    }
    row("**answers acted on within two turns**") {
        "**\(percent($0.twoTurns, $0.positives))** (\($0.twoTurns)/\($0.positives))"
    }
    row("95 % interval of it (Wilson)") {
        let interval = wilson($0.twoTurns, $0.positives)
        return $0.positives == 0
            ? "–" : String(format: "%.0f–%.0f %%", 100 * interval.low, 100 * interval.high)
    }
    row("first-turn recall") { percent($0.firstTurn, $0.positives) }
    row("confusions (wrong answer acted on)") { "\($0.confusions)" }
    for kind in [Item.Kind.nearMiss, .anIya, .unrelated, .english] {
        row("acted on: \(kind.rawValue)") {
            "\(percent($0.acted[kind] ?? 0, $0.negatives[kind] ?? 0)) (\($0.acted[kind] ?? 0)/\($0.negatives[kind] ?? 0))"
        }
    }
    row("answers acted on in pauses") { "\($0.spurious)" }
    row("RTF (CPU s / audio s)") { String(format: "%.3f", $0.cpuSeconds / max($0.audioSeconds, 1e-9)) }
    if tallies.contains(where: { $0.1.searchedSeconds > 0 }) {
        row("audio searched (the search gate)") {
            percent(Int($0.searchedSeconds.rounded()), Int($0.audioSeconds.rounded()))
        }
    }
    if tallies.contains(where: { $0.1.suppressedSeconds > 0 }) {
        row("audio heard noise-suppressed (the spread gate)") {
            percent(Int($0.suppressedSeconds.rounded()), Int($0.audioSeconds.rounded()))
        }
    }
    if tallies.contains(where: { !$0.1.rehearings.isEmpty }) {
        row("heard again: utterances; wait after the pause p50 / p95 (ms)") { tally in
            let sorted = tally.rehearings.sorted()
            guard !sorted.isEmpty else { return "0" }
            func at(_ q: Double) -> Int { Int((sorted.quantile(q) * 1000).rounded()) }
            return "\(sorted.count); \(at(0.5)) / \(at(0.95))"
        }
    }
    let keys = Set(tallies.flatMap { $0.1.byPerturbation.keys }).sorted()
    if keys.count > 1 {
        for key in keys {
            row("two-turn recall, perturbation \(key)") {
                let value = $0.byPerturbation[key] ?? (0, 0)
                return percent(value.hits, value.total)
            }
        }
    }
    // Pooled over the conditions, with the interval a sample this size allows.
    let pooled = tallies.map(\.1)
    func sum(_ value: (Tally) -> Int) -> Int { pooled.reduce(0) { $0 + value($1) } }
    print(
        "\nPooled over \(tallies.count) condition\(tallies.count == 1 ? "" : "s"): answers acted on within two turns "
            + rate(sum(\.twoTurns), sum(\.positives)) + "; near-misses acted on "
            + rate(sum { $0.acted[.nearMiss] ?? 0 }, sum { $0.negatives[.nearMiss] ?? 0 }))
    let acted = tallies.flatMap { $0.1.actedTexts }.reduce(into: [String: Int]()) {
        $0[$1.key, default: 0] += $1.value
    }
    if !acted.isEmpty {
        print(
            "\nNegatives acted on (all conditions): "
                // Ties by text: the same run prints the same line.
                + acted.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) ×\($0.value)" }
                .joined(
                    separator: ", "))
    }
}

func main() throws {
    setenv("OPENBLAS_NUM_THREADS", "1", 1)
    let options: Options
    do { options = try Options(Array(CommandLine.arguments.dropFirst())) } catch {
        FileHandle.standardError.write(Data("voice-eval: \(error)\n\(Options.usage)\n".utf8))
        exit(2)
    }
    if options.describe {
        // One line each, "split kind name: value": what tests check the splits apart by.
        for split in Split.allCases {
            for setting in Corpus.setting(for: split) {
                print(
                    "\(split.rawValue) voice \(setting.tag): \(setting.voice) \(setting.speed) \(setting.pitch)"
                )
                if split == .dev {
                    print("dev adapted \(setting.tag): \(AdaptationExport.adaptsOn(setting) ? "yes" : "no")")
                }
            }
            let perturbations = split == .dev ? Corpus.devPerturbations : Corpus.perturbations
            for perturbation in perturbations where perturbation.name != "none" {
                let effects =
                    Corpus.clipLevels[perturbation.name].map { "clip \($0)" }
                    ?? perturbation.effects.joined(separator: " ")
                print("\(split.rawValue) perturbation \(perturbation.name): \(effects)")
            }
        }
        if !options.real.isEmpty {
            // What `--export-adaptation` adapts each recorded sentence as.
            let model = try PhraseModel.locate(explicit: options.models)
            let words = try Corpus.dictionaryWords(model.dictionary)
            var seen = Set<String>()
            for item in try RealRecordings.load(options.real) where seen.insert(item.text).inserted {
                let adapted = item.kind == .phrase || item.kind == .nearMiss
                let transcript = adapted ? AdaptationExport.transcript(item.text, words: words) : nil
                print(
                    "real adapted \(item.text): \(transcript ?? "no (\(adapted ? "not spelled" : item.kind.rawValue))")"
                )
            }
        }
        return
    }
    let model = options.applyingDecoderSettings(to: try PhraseModel.locate(explicit: options.models))
    let modelsDirectory = URL(fileURLWithPath: model.grammar).deletingLastPathComponent().path
    if let acoustic = options.checkModel {
        let demo =
            options.demo
            ?? URL(fileURLWithPath: modelsDirectory).deletingLastPathComponent().path
            + "/artifacts/demo/answers.wav"
        if try !ModelCheck.run(acousticModel: acoustic, model: model, demo: demo, heldOut: options.heldOut) {
            exit(1)
        }
        return
    }
    if !options.confidenceOf.isEmpty {
        // The product's fixtures (the demo's answers, ListenerTests' phrases) at full precision:
        // what `--max-act` / `--max-ask` are derived from for a new acoustic model.
        var policy = options.policy
        policy.operatingPoint = permissive
        for path in options.confidenceOf {
            let utterances: [Utterance]
            do { utterances = try Listener.decode(wav: path, model: model, policy: policy) } catch {
                switch error {
                case .badAudio, .io: throw BadInput("--confidence-of: \(error)")
                default: throw error
                }
            }
            for utterance in utterances where utterance.meaning != nil {
                print(
                    String(
                        format: "%@\t%.2f-%.2f s\t%@\t%@\t%.6f", path, utterance.start, utterance.end,
                        utterance.heard, utterance.meaning?.rawValue ?? "", utterance.confidence ?? 1))
            }
        }
        return
    }
    if let directory = options.exportAdaptation {
        try AdaptationExport.write(
            to: directory, dictionary: model.dictionary, english: options.english, real: options.real,
            seed: options.seed, channelCopies: options.channelCopies ?? AdaptationExport.channelCopies,
            babble: options.babbleRecordings, preprocess: options.preprocess,
            noises: options.adaptNoises ?? AdaptationExport.noises, voices: options.adaptVoices)
        return
    }
    if let path = options.rescore {
        /// A saved run's observations and statistics, with the confidence recomputed and the
        /// hearings combined as the flags ask.
        func restore(
            _ path: String
        ) throws -> (SavedRun, [Tuning.Observation], [Condition: Tuning.ConditionStats]) {
            let run = try SavedRun.read(path)
            var (observations, stats) = try run.restored(
                confidence: options.confidence ?? options.babble.map { _ in .perFrameInBabble },
                babble: options.babble,
                path: path)
            if let agreement = options.agreement {
                observations = observations.map { o in
                    var combined = o
                    combined.first = o.first.map(agreement.applied)
                    combined.second = o.second.map(agreement.applied)
                    return combined
                }
                stats = stats.mapValues { s in
                    var combined = s
                    combined.pauses = s.pauses.map(agreement.applied)
                    return combined
                }
            }
            return (run, observations, stats)
        }
        let (run, observations, stats) = try restore(path)
        // No audio is synthesised: the saved run holds everything scored.
        print("## voice-eval --rescore \(path) (\(run.label), \(observations.count) items × 2 turns)\n")
        if options.tune != nil || options.crossValidate != nil {
            let flag = options.crossValidate != nil ? "--cross-validate" : "--tune"
            guard run.label.hasPrefix("dev ") else {
                throw BadInput("\(path) holds \(run.label): \(flag) chooses on the development split only")
            }
            var guards: [(label: String, observations: [Tuning.Observation])] = []
            for guardPath in options.guardRuns {
                let (guardRun, guardObservations, _) = try restore(guardPath)
                guard guardRun.label.hasPrefix("dev ") else {
                    throw BadInput(
                        "\(guardPath) holds \(guardRun.label): --guard-run takes the development split only")
                }
                guard guardRun.decoders.decoderSummary == run.decoders.decoderSummary else {
                    throw BadInput(
                        "\(guardPath) was decoded with \(guardRun.decoders.decoderSummary), \(path) with \(run.decoders.decoderSummary): a point is chosen for one set of decoders"
                    )
                }
                guards.append(("\(guardPath) (\(guardRun.label))", guardObservations))
            }
            guard let out = options.tune else {
                _ = CrossValidation.run(
                    options.crossValidate ?? .halves, observations, start: model.operatingPoint,
                    budgets: options.budgets, guards: guards)
                return
            }
            let chosen = Tuning.choose(
                observations, start: model.operatingPoint, budgets: options.budgets, guards: guards
            )
            .withDecoders(of: run.decoders)
            let json = Tuning.json(chosen)
            try json.write(toFile: out, atomically: true, encoding: .utf8)
            print("\nOperating point chosen on \(run.label), written to \(out):\n\(json)")
        } else {
            let scoring = try options.point.map { try OperatingPoint.load(path: $0) } ?? model.operatingPoint
            print("Scored at: " + Tuning.json(scoring).replacingOccurrences(of: "\n", with: " "))
            report(label: run.label, tallies: score(observations, point: scoring, stats: stats))
        }
        return
    }
    try Corpus.checkTestNearMisses(dictionary: model.dictionary)
    var items: [Item]
    var source = "espeak-ng, \(options.split.rawValue) split"
    if !options.real.isEmpty {
        // Real recordings: every speaker the adapted model was adapted on is left out.
        let speakersFile = modelsDirectory + "/" + PhraseModel.adaptedAcousticModelName + "/speakers.txt"
        let adaptedOn = RealRecordings.adaptedSpeakers(
            of: modelsDirectory + "/" + PhraseModel.adaptedAcousticModelName)
        let all = try RealRecordings.load(options.real)
        items = all.filter { !adaptedOn.contains($0.voice) }
        let leftOut = RealRecordings.speakers(all.filter { adaptedOn.contains($0.voice) })
        let folders = options.real.joined(separator: ", ")
        let speakers = Set(items.map(\.voice)).count, adapted = all.count - items.count
        source =
            "real recordings in \(folders): \(speakers) speaker\(speakers == 1 ? "" : "s") (\(adapted) item\(adapted == 1 ? "" : "s") of adaptation speakers left out"
            + (leftOut.isEmpty ? "" : ": \(leftOut.joined(separator: ", ")), listed in \(speakersFile)") + ")"
        guard !items.isEmpty else {
            throw EvalError(
                "\(folders): every speaker (\(leftOut.joined(separator: ", "))) was used for adaptation (\(speakersFile)), so the model has heard them all; nothing to test: score the person you kept out, e.g. --real \(options.real[0]) --real ~/pathfinder-voices-kept-out"
            )
        }
    } else {
        if !options.unknownNearMisses.isEmpty {
            // Checked before anything is synthesised.
            guard options.split == .dev else {
                throw BadInput("--unknown-near-misses belongs to the development split (--split dev)")
            }
            try Corpus.checkUnknownNearMisses(options.unknownNearMisses, dictionary: model.dictionary)
        }
        items = try Corpus.make(split: options.split, englishDirectory: options.english)
        items += try Corpus.unknownNearMisses(options.unknownNearMisses)
    }
    let bank = try NoiseBank(directory: options.babbleRecordings, split: options.split)
    let counts = Dictionary(grouping: items, by: \.kind).mapValues(\.count)
    print("## voice-eval (seed \(options.seed), \(source), models \(modelsDirectory))\n")
    print("Items: " + Item.Kind.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))
    if options.real.isEmpty {
        print("Voices: " + Corpus.setting(for: options.split).map(\.tag).joined(separator: ", "))
    }
    // The decoders beside the plain one: a point chosen or a run saved here records them.
    let decoders = options.policy.decoders(over: model.operatingPoint)
    print("Decoders: " + decoders.decoderSummary)
    if let command = options.preprocess { print("Preprocess: every recording through \(command)") }
    let decoderSettings = options.decoderSettings.map { "\($0.0) \($0.1)" }
    if !decoderSettings.isEmpty {
        print("Decoder settings over pathfinder.args: " + decoderSettings.joined(separator: " "))
    }
    // A saved run's label says it too, so a rescore reports what was decoded.
    let labelTail =
        (options.sessions.perChannel ? ", one session per channel" : "")
        + (options.sessions.items > 0 ? ", sessions of \(options.sessions.items) items" : "")
        + (options.sessions.carried != nil ? ", each from its channel's last mean" : "")
        + decoderSettings.map { ", decoder \($0)" }.joined()
    if options.sessions.items > 0 {
        print(
            "Sessions: a fresh Listener every \(options.sessions.items) items"
                + (options.sessions.perChannel ? " of a channel" : "")
                + ", each after \(options.sessions.leadSeconds) s of the condition's noise alone")
    }
    if options.sessions.carried != nil {
        print(
            "Sessions: each starts from the cepstral mean its channel's previous session ended at (the first from the models directory's -cmninit)"
        )
    }
    if options.sessions.perChannel {
        var channels: [String] = []
        for item in items where !channels.contains(item.channel) { channels.append(item.channel) }
        print(
            "Sessions: one per channel, each a recording and a Listener of its own: "
                + channels.map { $0.isEmpty ? "none" : $0 }.joined(separator: ", "))
    }
    if let out = options.tune {
        guard options.split == .dev, options.real.isEmpty else {
            throw EvalError("--tune chooses the operating point on the development split only")
        }
        var stats: [Condition: Tuning.ConditionStats] = [:]
        let observations = try Tuning.observe(
            items, conditions: options.conditions, model: model, options: options, bank: bank, stats: &stats)
        if let save = options.save {
            try SavedRun(
                label: "dev \(model.acousticModel)\(labelTail)", decoders: decoders,
                observations: observations,
                stats: stats
            ).write(to: "\(save)-dev.json")
        }
        let chosen = Tuning.choose(observations, start: model.operatingPoint, budgets: options.budgets)
            .withDecoders(of: decoders)
        let json = Tuning.json(chosen)
        try json.write(toFile: out, atomically: true, encoding: .utf8)
        print(
            "\nOperating point chosen on \(options.split.rawValue) (\(observations.count) items × 2 turns), written to \(out):\n\(json)"
        )
        return
    }
    let point = model.operatingPoint
    print(
        "Operating point (models/operating-point.json): notHere act ≥ \(point.notHere.act), ask ≥ \(point.notHere.ask); thisIsIt act ≥ \(point.thisIsIt.act), ask ≥ \(point.thisIsIt.ask)"
    )
    print(
        "Policy: max \(options.policy.maxUtteranceSeconds) s, fillers ≤ \(options.policy.maxFillersNotHere) (notHere) / ≤ \(options.policy.maxFillersThisIsIt) (thisIsIt)"
            + (decoders.fillers == .speech ? ", counted within the walker's speech" : "")
    )
    for name in options.acoustic {
        var variant = model
        if name == "stock" {
            variant.acousticModel = PhraseModel.defaultAcousticModel
        } else if variant.acousticModel == PhraseModel.defaultAcousticModel {
            print(
                "\n(no adapted model in \(modelsDirectory)/\(PhraseModel.adaptedAcousticModelName): run Scripts/adapt-model)"
            )
            continue
        }
        var tallies: [(Condition, Tally)] = []
        if options.bothTurns {
            // Every item decoded twice (the answer and its repeat) with the permissive point,
            // then scored at the operating point as the Listener applies it; `--point FILE`
            // is read only now, after decoding.
            var stats: [Condition: Tuning.ConditionStats] = [:]
            let observations = try Tuning.observe(
                items, conditions: options.conditions, model: variant, options: options, bank: bank,
                stats: &stats)
            if let save = options.save {
                try SavedRun(
                    label: "\(options.split.rawValue) \(name) (\(variant.acousticModel))\(labelTail)",
                    decoders: decoders, observations: observations,
                    stats: stats
                ).write(to: "\(save)-\(options.split.rawValue)-\(name).json")
            }
            let scoring = try options.point.map { try OperatingPoint.load(path: $0) } ?? model.operatingPoint
            print("\nScored at: " + Tuning.json(scoring).replacingOccurrences(of: "\n", with: " "))
            tallies = score(observations, point: scoring, stats: stats)
        } else {
            for condition in options.conditions {
                tallies.append(
                    (
                        condition,
                        try run(
                            items, condition: condition, model: variant, options: options, bank: bank,
                            label: name
                        )
                    ))
            }
        }
        if !tallies.isEmpty {
            report(label: "acoustic model: \(name) (\(variant.acousticModel))", tallies: tallies)
            if !options.real.isEmpty { reportSpeakers(tallies) }
        }
        if options.hours > 0 {
            let chatter = items.filter { $0.kind == .unrelated }
            if chatter.isEmpty { continue }
            let later: (() throws -> (Utterance) -> Decision)? =
                options.bothTurns
                ? {
                    let point =
                        try options.point.map { try OperatingPoint.load(path: $0) } ?? model.operatingPoint
                    return { decide($0, point: point) }
                } : nil
            let result = try falseActionsPerHour(
                chatter: chatter, model: variant, options: options, bank: bank, judgeLater: later)
            print(
                String(
                    format:
                        "\nFalse actions in babble + unrelated Korean chatter, no answer in it: %d in %.2f h decoded = %.1f per hour (RTF %.3f, %.0f %% of the audio searched)",
                    result.actions, result.hours, Double(result.actions) / max(result.hours, 1e-9),
                    result.rtf,
                    result.searched * 100
                )
                    + (result.heard.isEmpty
                        ? ""
                        : "; heard: " + result.heard.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
            )
        }
    }
    print(String(format: "\nPeak RSS: %.1f MB (whole benchmark process)", peakRSSMegabytes()))
}

do { try main() } catch let error as BadInput {
    FileHandle.standardError.write(Data("voice-eval: \(error)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("voice-eval: \(error)\n".utf8))
    exit(1)
}
