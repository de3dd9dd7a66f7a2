import CPocketSphinx
import Foundation

/// The second pass of ``Listener/Policy/neighbourMargin``: a PocketSphinx decoder on the same
/// acoustic model that decodes an utterance the grammar took for an answer again, twice from
/// the same state — once with the answer's phrase token, once with the phrase's one-onset
/// neighbours in its place (filler syllables allowed around either, as in the grammar) — so
/// the two best paths differ only where the phrase is. The grammar's own pass cannot make
/// that comparison fairly: a near-miss there is two decoys or a pair decoy whose prior is not
/// the phrase's.
///
/// The neighbours are made by a fixed rule (``Listener/Policy/NeighbourRule``) from the
/// phrase's own pronunciations, never from a list of near-miss sentences. `firstOnset`: a first
/// syllable 여 ("Y AH …") gets each of `onsets` in place of its glide (거, 커, 저, 처, 더, 버 …),
/// a first syllable 이/입 ("IY …") gets each onset in front (기, 지 …). `everyOnset`: any one
/// consonant or glide of the phrase becomes another of the grammar's syllable onsets
/// (`syllableOnsets`, models/generate.py's), or one is put in front of a syllable that starts
/// with a vowel (아니야 → 아디야, 아기야, 마니야 …; 아닌데 → 아닌게 …).
///
/// Owned and freed by ``Decoder``; not thread-safe (driven from the decoder's thread).
final class Rescorer {
    let config: OpaquePointer
    let decoder: OpaquePointer
    /// Phrase token (its dictionary base word) → its neighbours' words added to the rescorer.
    private let neighbours: [String: [String]]
    /// The grammar's filler syllables (`f_…`), allowed around the phrase in both passes.
    private let fillers: [String]
    /// Phrase tokens whose two searches exist (built on first use: most are never needed).
    private var built: Set<String> = []

    /// Which of the two passes.
    enum Pass: String { case answer = "answer", neighbours = "neighbours" }

    /// The onsets of the rule: ㄱ, ㅋ/ㄲ, ㅈ, ㅊ, ㄷ, ㅂ in the en-us phones of models/generate.py.
    static let onsets = ["G", "K", "JH", "CH", "D", "B"]
    /// The grammar's 13 syllable onsets (models/generate.py's `ONSETS`, the fillers' own).
    static let syllableOnsets = ["G", "K", "N", "D", "T", "R", "M", "B", "P", "S", "JH", "CH", "HH"]
    /// The consonants and glides `everyOnset` may swap.
    static let consonants = Set(syllableOnsets + ["Y", "W", "L", "NG"])
    /// The fillers' probability per pass, as in the grammar (models/generate.py).
    static let fillerProbability = 2e-3
    /// Every frame is decoded: the rescorer sees only audio the grammar's pass already took for
    /// speech, and its voice activity detector starts afresh each pass, so it must not drop any.
    static let settings = ["-remove_silence", "no"]

    /// The neighbours of a pronunciation (en-us phones separated by spaces) by `rule` (above);
    /// by `firstOnset` empty when its first syllable is neither 여 nor 이.
    static func neighbours(
        of pronunciation: String, rule: Listener.Policy.NeighbourRule = .firstOnset
    ) -> [String] {
        let phones = pronunciation.split(separator: " ").map(String.init)
        guard let first = phones.first else { return [] }
        switch rule {
        case .firstOnset:
            switch first {
            case "Y": return onsets.map { ([$0] + phones.dropFirst()).joined(separator: " ") }
            case "IY", "IH": return onsets.map { ([$0] + phones).joined(separator: " ") }
            default: return []
            }
        case .everyOnset:
            var out: [String] = []
            func add(_ p: [String]) {
                let n = p.joined(separator: " ")
                if n != pronunciation, !out.contains(n) { out.append(n) }
            }
            for (i, phone) in phones.enumerated() {
                if consonants.contains(phone) {
                    for onset in syllableOnsets where onset != phone {
                        var p = phones
                        p[i] = onset
                        add(p)
                    }
                } else if phone != "SIL",
                    i == 0 || !consonants.contains(phones[i - 1]) && phones[i - 1] != "SIL"
                {
                    for onset in syllableOnsets {
                        var p = phones
                        p.insert(onset, at: i)
                        add(p)
                    }
                }
            }
            return out
        }
    }

    /// Reads the phrases and fillers from `dictionary` (the grammar's) and adds each phrase's
    /// neighbours to the decoder's dictionary as words `n_<phrase>_<k>`.
    /// - Throws: `SpeechError.model` when the dictionary cannot be read or a word is refused;
    ///   the caller frees `config` and `decoder` then.
    init(
        config: OpaquePointer, decoder: OpaquePointer, dictionary: String,
        rule: Listener.Policy.NeighbourRule = .firstOnset
    ) throws(SpeechError) {
        let text: String
        do { text = try String(contentsOfFile: dictionary, encoding: .utf8) } catch {
            throw .model("\(dictionary): \(error.localizedDescription)")
        }
        var pronunciations: [String: [String]] = [:]
        var order: [String] = []
        var fillers: [String] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard fields.count == 2 else { continue }
            let word = fields[0].split(separator: "(").first.map(String.init) ?? fields[0]
            if word.hasPrefix("f_") {
                if word == fields[0] { fillers.append(word) }
            } else if !word.hasPrefix("d_"), !word.hasPrefix("<") {
                if pronunciations[word] == nil { order.append(word) }
                pronunciations[word, default: []].append(fields[1])
            }
        }
        let phrases = Set(pronunciations.values.joined())
        var neighbours: [String: [String]] = [:]
        for phrase in order {
            var seen: [String] = []
            for pronunciation in pronunciations[phrase] ?? [] {
                // A neighbour spelled like a phrase would make the answer its own rival.
                for n in Self.neighbours(of: pronunciation, rule: rule)
                where !seen.contains(n) && !phrases.contains(n) {
                    seen.append(n)
                }
            }
            var words: [String] = []
            for (k, pronunciation) in seen.enumerated() {
                let word = "n_\(phrase)_\(k)"
                guard ps_add_word(decoder, word, pronunciation, 0) >= 0 else {
                    throw .model("PocketSphinx refused the neighbour \(word) (\(pronunciation))")
                }
                words.append(word)
            }
            if !words.isEmpty { neighbours[phrase] = words }
        }
        self.config = config
        self.decoder = decoder
        self.neighbours = neighbours
        self.fillers = fillers
    }

    /// The search of `phrase`'s `pass`: fillers* word fillers*, the word the phrase (answer) or
    /// any neighbour (each at probability 1, so neither pass is favoured by its prior).
    private func build(_ phrase: String) -> Bool {
        if built.contains(phrase) { return true }
        guard let words = neighbours[phrase], let lmath = ps_get_logmath(decoder) else { return false }
        let lw = Float(cmd_ln_float_r(config, "-lw"))
        let fillerScore = Int32((Float(logmath_log(lmath, Self.fillerProbability)) * lw).rounded())
        for pass in [Pass.answer, .neighbours] {
            guard let fsg = fsg_model_init(pass.rawValue + "_" + phrase, lmath, lw, 2) else { return false }
            fsg.pointee.start_state = 0
            fsg.pointee.final_state = 1
            for filler in fillers {
                let id = fsg_model_word_add(fsg, filler)
                fsg_model_trans_add(fsg, 0, 0, fillerScore, id)
                fsg_model_trans_add(fsg, 1, 1, fillerScore, id)
            }
            for word in pass == .answer ? [phrase] : words {
                fsg_model_trans_add(fsg, 0, 1, 0, fsg_model_word_add(fsg, word))
            }
            let added = ps_set_fsg(decoder, pass.rawValue + "_" + phrase, fsg)
            fsg_model_free(fsg)
            guard added == 0 else { return false }
        }
        built.insert(phrase)
        return true
    }

    /// The best path score of `audio` (the utterance's dithered samples) in `phrase`'s `pass`,
    /// starting from the cepstral mean `mean` and a fresh noise estimate; `nil` when the phrase
    /// has no neighbours, a call fails, or the best path does not pass through the phrase (or a
    /// neighbour): a path that never reached it scores something else.
    func score(_ phrase: String, _ pass: Pass, audio: [Int16], mean: [mfcc_t]) -> Int32? {
        guard build(phrase), ps_set_search(decoder, pass.rawValue + "_" + phrase) == 0,
            ps_start_stream(decoder) >= 0
        else { return nil }
        if !mean.isEmpty, let live = Decoder.liveMean(of: decoder), live.mean.count == mean.count {
            cmn_live_set(live.cmn, mean)
        }
        guard ps_start_utt(decoder) >= 0 else { return nil }
        let processed = audio.withUnsafeBufferPointer {
            ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0)
        }
        guard ps_end_utt(decoder) >= 0, processed >= 0 else { return nil }
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return nil }
        let tokens = String(cString: hyp).split(separator: " ")
        let reached = tokens.contains { pass == .answer ? $0 == phrase : $0.hasPrefix("n_\(phrase)_") }
        return reached ? score : nil
    }
}
