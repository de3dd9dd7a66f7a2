import CPocketSphinx
import Foundation

/// One PocketSphinx 0.8 decoder (`ps_decoder_t`) with its configuration, freed in `deinit`.
///
/// Not thread-safe: PocketSphinx decoders must be driven from one thread at a time; the
/// owner (`Listener`) keeps it confined.
final class Decoder {
    private let config: OpaquePointer
    private let decoder: OpaquePointer
    /// A second decoder on the same acoustic model running an unconstrained phone loop
    /// (PocketSphinx's allphone search, no phone language model) over the same samples: its
    /// best path is the best any sequence of phones fits the audio, the reference the
    /// phrase's score is measured against (``Listener/confidence(of:feature:)``). One decoder runs
    /// one search at a time, hence two. `nil` unless asked for (``Listener/Policy/phoneLoop``).
    private let loopConfig: OpaquePointer?
    private let loop: OpaquePointer?
    private(set) var inUtterance = false
    /// The model's `-dither`, applied here from this decoder's own generator (see ``Dither``).
    private var dither: Dither?
    /// The neighbour rescorer (``Listener/Policy/neighbourMargin``): a third decoder on the same
    /// acoustic model that decodes only an utterance holding an answer again, once with the
    /// answer's phrase and once with its one-onset neighbours in its place; `nil` unless asked for.
    private let rescorer: Rescorer?
    /// The dithered samples fed since the utterance began, for the rescorer (empty without it).
    private var utteranceAudio: [Int16] = []
    /// The grammar decoder's live cepstral mean when the utterance began: the rescorer starts
    /// each pass from it, as the grammar's pass did.
    private var utteranceMean: [mfcc_t] = []
    /// The rescorer's two passes' score difference per phrase for the utterance just ended
    /// (`nil`: a pass found no path), so hearings of one phrase by several decoders cost one
    /// rescoring.
    private var margins: [String: Int32?] = [:]
    /// Whether the live cepstral mean is brought up to date after every block fed
    /// (``weighSessionMean(frames:)``): until sphinxbase's window first shifts.
    private var settlingMean = false
    /// The frames the grammar decoder's mean counted after the last block while settling.
    private var settlingFrames: Int32 = 0

    /// Settings applied before the model's own `pathfinder.args` (which may override them).
    static let baseSettings: [(String, String)] = [
        ("-samprate", "16000")
    ]

    /// Process-wide settings, made once (Swift runs a static's initialiser once,
    /// thread-safely): sphinxbase's log is one process-wide file — `-logfn` on every decoder
    /// opened a new one and closed the previous while another decoder might be writing to
    /// it — so logging is switched off instead; and OpenBLAS would start a thread per core
    /// for tiny matrices, where one is faster and leaves the second core to the daemon
    /// (`setenv` once, before any decoder, not racing another thread's `getenv`).
    private static let processSetup: Void = {
        setenv("OPENBLAS_NUM_THREADS", "1", 0)
        err_set_logfp(nil)
    }()

    /// The model's settings with `-dither`/`-seed` taken out (the decoder dithers itself),
    /// and the dither's seed when the model asks for it (sphinxbase's default seed is -1,
    /// "from the clock": a fixed one here, so a file always decodes the same).
    static func splitDither(_ settings: [(String, String)]) -> (settings: [(String, String)], seed: UInt32?) {
        var on = false
        var seed: Int32 = 1
        var rest: [(String, String)] = []
        for (flag, value) in settings {
            switch flag {
            case "-dither": on = ["yes", "true", "1", "on"].contains(value.lowercased())
            case "-seed": seed = Int32(value) ?? seed
            default: rest.append((flag, value))
            }
        }
        return (rest + [("-dither", "no")], on ? UInt32(bitPattern: seed) : nil)
    }

    /// The phone loop's search name (`ps_set_allphone`).
    private static let loopSearch = "phone_loop"

    /// - Parameters:
    ///   - phoneLoop: also run the phone loop (and score every senone in both).
    ///   - neighbours: keep each utterance's audio and a rescorer for ``neighbourMargin(phrase:frames:)``.
    init(
        model: PhraseModel, phoneLoop: Bool = false, neighbours: Listener.Policy.NeighbourRule? = nil
    ) throws(SpeechError) {
        _ = Self.processSetup
        for file in [model.dictionary, model.grammar] where !FileManager.default.isReadableFile(atPath: file)
        {
            throw .model("\(file) not found")
        }
        guard FileManager.default.fileExists(atPath: model.acousticModel + "/mdef") else {
            throw .model(
                "acoustic model \(model.acousticModel) not found (apt-get install pocketsphinx-en-us)")
        }
        var argv = [
            "pathfinder", "-hmm", model.acousticModel, "-dict", model.dictionary, "-fsg", model.grammar,
        ]
        let (settings, ditherSeed) = Self.splitDither(
            Self.baseSettings + model.settings + (phoneLoop ? Self.scoringSettings : []))
        for (flag, value) in settings { argv += [flag, value] }
        let (config, decoder) = try Self.make(argv, model: model)
        var loopConfig: OpaquePointer?
        var loop: OpaquePointer?
        if phoneLoop {
            do { (loopConfig, loop) = try Self.make(argv + Self.loopSettings, model: model) } catch {
                ps_free(decoder)
                cmd_ln_free_r(config)
                throw error
            }
            // No phone language model: any phone may follow any phone (at -pip's insertion
            // penalty).
            guard ps_set_allphone(loop, Self.loopSearch, nil) == 0, ps_set_search(loop, Self.loopSearch) == 0
            else {
                ps_free(loop)
                cmd_ln_free_r(loopConfig)
                ps_free(decoder)
                cmd_ln_free_r(config)
                throw .model("PocketSphinx refused the phone loop on \(model.acousticModel)")
            }
        }
        var rescorer: Rescorer?
        if let neighbours {
            do {
                let (rescorerConfig, rescorerDecoder) = try Self.make(argv + Rescorer.settings, model: model)
                rescorer = try Rescorer(
                    config: rescorerConfig, decoder: rescorerDecoder, dictionary: model.dictionary,
                    rule: neighbours)
            } catch {
                if let loop { ps_free(loop) }
                if let loopConfig { cmd_ln_free_r(loopConfig) }
                ps_free(decoder)
                cmd_ln_free_r(config)
                throw error
            }
        }
        self.config = config
        self.decoder = decoder
        self.loopConfig = loopConfig
        self.loop = loop
        self.rescorer = rescorer
        dither = ditherSeed.map(Dither.init(seed:))
        // The acoustic model's feat.params is read after the arguments and its -cmninit wins
        // over one in pathfinder.args: the args file's is set on the live mean here.
        if let value = settings.last(where: { $0.0 == "-cmninit" })?.1 {
            let initial = value.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            for handle in [decoder] + (loop.map { [$0] } ?? []) {
                guard let (cmn, mean) = Self.liveMean(of: handle) else { continue }
                guard initial.count == mean.count, initial.allSatisfy({ $0?.isFinite ?? false }) else {
                    throw .model(
                        "-cmninit \(value): \(mean.count) numbers, comma-separated, one for each cepstrum of \(model.acousticModel)"
                    )
                }
                cmn_live_set(cmn, initial.map { mfcc_t($0 ?? 0) })
            }
        }
    }

    /// Settings both decoders take so their scores share one reference: every senone is
    /// scored in every frame (`-compallsen`), so each frame's score is relative to the best
    /// senone of all, not of those the search happens to have active — the grammar's best
    /// path and the phone loop's are then on one scale. (The hypotheses do not change: the
    /// reference shifts every score of a frame alike.)
    static let scoringSettings: [(String, String)] = [("-compallsen", "yes")]

    /// Settings of the phone-loop decoder alone: context-independent phones (`-allphone_ci`):
    /// the 137 053 triphones of the en-us model cost far more and the loop is only a
    /// reference.
    static let loopSettings = ["-allphone_ci", "yes"]

    /// A configuration and a decoder from `argv`, or both freed and an error.
    private static func make(
        _ argv: [String], model: PhraseModel
    ) throws(SpeechError) -> (
        OpaquePointer, OpaquePointer
    ) {
        var cStrings = argv.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        guard let config = pathfinder_ps_config(Int32(cStrings.count), &cStrings) else {
            throw .model("settings not accepted: \(argv.dropFirst().joined(separator: " "))")
        }
        guard let decoder = ps_init(config) else {
            cmd_ln_free_r(config)
            throw .model(
                "PocketSphinx refused the model (\(model.dictionary), \(model.grammar), \(model.acousticModel))"
            )
        }
        return (config, decoder)
    }

    deinit {
        if let rescorer {
            ps_free(rescorer.decoder)
            cmd_ln_free_r(rescorer.config)
        }
        ps_free(decoder)
        cmd_ln_free_r(config)
        if let loop { ps_free(loop) }
        if let loopConfig { cmd_ln_free_r(loopConfig) }
    }

    func startUtterance() throws(SpeechError) {
        if rescorer != nil {
            utteranceAudio.removeAll(keepingCapacity: true)
            utteranceMean = Self.liveMean(of: decoder)?.mean ?? []
            margins.removeAll()
        }
        guard ps_start_utt(decoder) >= 0 else { throw .decoder("ps_start_utt failed") }
        if let loop, ps_start_utt(loop) < 0 { throw .decoder("ps_start_utt failed (phone loop)") }
        inUtterance = true
    }

    /// Feeds 16 kHz mono samples; returns whether the voice activity detector is in speech.
    /// `whole`: the samples are the whole utterance, normalised by their own cepstral mean
    /// (the model's batch `-cmn`) — only while the decoder was never fed otherwise, since
    /// sphinxbase switches a decoder fed in blocks to the live mean for good.
    func process(_ samples: UnsafeBufferPointer<Int16>, whole: Bool = false) throws(SpeechError) -> Bool {
        guard !samples.isEmpty else { return ps_get_in_speech(decoder) != 0 }
        var block = Array(samples)
        dither?.apply(to: &block)
        if rescorer != nil { utteranceAudio += block }
        let full: Int32 = whole ? 1 : 0
        guard ps_process_raw(decoder, block, block.count, 0, full) >= 0 else {
            throw .decoder("ps_process_raw failed")
        }
        // The same dithered samples, fed the same way, so both decoders see the same frames.
        if let loop, ps_process_raw(loop, block, block.count, 0, full) < 0 {
            throw .decoder("ps_process_raw failed (phone loop)")
        }
        if settlingMean { settleMean() }
        return ps_get_in_speech(decoder) != 0
    }

    /// One word of the best path: frames (10 ms) and its acoustic score.
    struct Segment: Sendable, Hashable {
        var word: String
        var startFrame: Int
        var endFrame: Int
        /// The acoustic log-likelihood of the word's frames (logmath units, base 1.0001),
        /// each frame's relative to the best-scoring senone of that frame (PocketSphinx
        /// normalises so): 0 when every frame fits the path as well as any sound would.
        var acousticScore: Int32
        var frames: Int { endFrame - startFrame + 1 }
    }

    /// Ends the utterance; returns the best hypothesis (space-separated tokens), its path
    /// score and its words, and the phone loop's best path over the same frames (its phones;
    /// empty without the loop or when it found none).
    func endUtterance() throws(SpeechError) -> (
        text: String, score: Int32, segments: [Segment], loop: [Segment]
    ) {
        inUtterance = false
        guard ps_end_utt(decoder) >= 0 else { throw .decoder("ps_end_utt failed") }
        var loopSegments: [Segment] = []
        if let loop {
            guard ps_end_utt(loop) >= 0 else { throw .decoder("ps_end_utt failed (phone loop)") }
            var loopScore: Int32 = 0
            if ps_get_hyp(loop, &loopScore) != nil { loopSegments = Self.segments(of: loop) }
        }
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return ("", score, [], loopSegments) }
        return (String(cString: hyp), score, Self.segments(of: decoder), loopSegments)
    }

    /// The words (or phones) of `decoder`'s best path.
    private static func segments(of decoder: OpaquePointer) -> [Segment] {
        var segments: [Segment] = []
        var seg = ps_seg_iter(decoder)
        while let current = seg {
            var start: Int32 = 0
            var end: Int32 = 0
            var ascr: Int32 = 0
            var lscr: Int32 = 0
            var lback: Int32 = 0
            ps_seg_frames(current, &start, &end)
            _ = ps_seg_prob(current, &ascr, &lscr, &lback)
            segments.append(
                Segment(
                    word: ps_seg_word(current).map { String(cString: $0) } ?? "", startFrame: Int(start),
                    endFrame: Int(end), acousticScore: ascr))
            seg = ps_seg_next(current)
        }
        return segments
    }

    /// Starts a listening session: PocketSphinx's noise estimate (`-remove_noise`) starts
    /// afresh here and then carries across utterances (`ps_start_utt` keeps it).
    func startStream() throws(SpeechError) {
        guard ps_start_stream(decoder) >= 0 else { throw .decoder("ps_start_stream failed") }
        if let loop, ps_start_stream(loop) < 0 { throw .decoder("ps_start_stream failed (phone loop)") }
    }

    /// Runs `body` and then puts back the live cepstral mean it had before, so audio fed in
    /// `body` (a warm-up of faint noise) does not shift how later speech is normalised.
    func preservingCepstralMean(_ body: () throws(SpeechError) -> Void) throws(SpeechError) {
        let saved = ([decoder] + (loop.map { [$0] } ?? [])).compactMap(Self.liveMean(of:))
        try body()
        for (cmn, mean) in saved { cmn_live_set(cmn, mean) }
    }

    /// Weighs the live cepstral mean this session starts from as `frames` frames of audio
    /// (sphinxbase weighs it as `CMN_WIN`, 500: 5 s) and brings it up to date after every block
    /// fed until sphinxbase's own window first shifts (at 800 frames counted), so a session's
    /// first seconds move it as much as `frames` frames of the prior: the background a walker
    /// meets at the door is learnt in a second or two, not in minutes.
    func weighSessionMean(frames: Int) {
        for handle in [decoder] + (loop.map { [$0] } ?? []) {
            guard let (cmn, mean) = Self.liveMean(of: handle) else { continue }
            for i in mean.indices { cmn.pointee.sum[i] = mean[i] * mfcc_t(frames) }
            cmn.pointee.nframe = Int32(frames)
        }
        settlingFrames = Int32(frames)
        settlingMean = true
    }

    /// One step of ``weighSessionMean(frames:)``: the mean becomes the frames' so far
    /// (`cmn_live_update`), until sphinxbase's window shifted (fewer frames counted than
    /// before), after which its own schedule goes on.
    private func settleMean() {
        guard let frames = ps_get_feat(decoder)?.pointee.cmn_struct?.pointee.nframe,
            frames >= settlingFrames
        else {
            settlingMean = false
            return
        }
        settlingFrames = frames
        for handle in [decoder] + (loop.map { [$0] } ?? []) {
            guard let feat = ps_get_feat(handle), let cmn = feat.pointee.cmn_struct else { continue }
            cmn_live_update(cmn)
        }
    }

    /// The grammar decoder's live cepstral mean now (the 13 cepstra it normalises the next
    /// frame by); empty when it has none.
    var cepstralMean: [Double] { Self.liveMean(of: decoder)?.mean.map(Double.init) ?? [] }

    /// A decoder's live cepstral mean and where it lives, `nil` when it has none.
    static func liveMean(of handle: OpaquePointer) -> (cmn: UnsafeMutablePointer<cmn_t>, mean: [mfcc_t])? {
        guard let feat = ps_get_feat(handle), let cmn = feat.pointee.cmn_struct else { return nil }
        var mean = [mfcc_t](repeating: 0, count: Int(cmn.pointee.veclen))
        cmn_live_get(cmn, &mean)
        return (cmn, mean)
    }

    /// How much better the utterance just ended fits with `phrase` (a phrase token of the
    /// grammar, "여기_아니야") than with the best of its one-onset neighbours in its place, per
    /// frame of the phrase (`frames`, from the grammar's pass), in search units: the
    /// difference of the two best path scores of the rescorer, which decodes the utterance's
    /// audio twice from the same state (the grammar's cepstral mean at the utterance's start, a
    /// fresh noise estimate), fillers allowed around the phrase or neighbour as in the grammar.
    /// `nil` without the rescorer, for a phrase the rescorer does not know, or when either pass
    /// found no path through its phrase.
    func neighbourMargin(phrase: String, frames: Int) -> Double? {
        guard let rescorer, frames > 0, !utteranceAudio.isEmpty else { return nil }
        if margins[phrase] == nil {
            if let answer = rescorer.score(phrase, .answer, audio: utteranceAudio, mean: utteranceMean),
                let neighbour = rescorer.score(
                    phrase, .neighbours, audio: utteranceAudio, mean: utteranceMean)
            {
                margins[phrase] = .some(answer - neighbour)
            } else {
                margins[phrase] = .some(nil)
            }
        }
        guard let difference = margins[phrase] ?? nil else { return nil }
        return Double(difference) / Double(frames)
    }

    /// The grammar's search (the model's `-fsg`) and a search of almost nothing — one filler
    /// syllable, looped — for audio that must reach the front end (its noise estimate, its
    /// voice activity detector, the live cepstral mean) but need not be searched for answers
    /// (``Listener/Policy/searchLead``). Switched only between utterances.
    enum Search { case grammar, quiet }

    /// The grammar search's name, read when the quiet search is first added.
    private var grammarSearch: String?
    private static let quietSearch = "quiet"

    /// Makes `search` the one the next utterance runs.
    func use(_ search: Search) throws(SpeechError) {
        precondition(!inUtterance, "a search is switched between utterances")
        if grammarSearch == nil {
            guard let name = ps_get_search(decoder) else { throw .decoder("the decoder has no search") }
            grammarSearch = String(cString: name)
            guard let lmath = ps_get_logmath(decoder),
                let fsg = fsg_model_init(Self.quietSearch, lmath, Float(cmd_ln_float_r(config, "-lw")), 2)
            else { throw .decoder("the quiet search could not be made") }
            fsg.pointee.start_state = 0
            fsg.pointee.final_state = 1
            let syllable = fsg_model_word_add(fsg, Self.quietSyllable)
            fsg_model_trans_add(fsg, 0, 1, 0, syllable)
            fsg_model_trans_add(fsg, 1, 1, 0, syllable)
            let added = ps_set_fsg(decoder, Self.quietSearch, fsg)
            fsg_model_free(fsg)
            guard added == 0 else { throw .decoder("PocketSphinx refused the quiet search") }
        }
        let name = search == .quiet ? Self.quietSearch : grammarSearch ?? ""
        guard ps_set_search(decoder, name) == 0 else { throw .decoder("ps_set_search \(name) failed") }
    }

    /// The filler syllable the quiet search loops on (one phone, AA: a handful of HMMs).
    static let quietSyllable = "f_a"

    /// The decoder's setting `flag` as an integer (for VAD frame counts).
    func integer(_ flag: String) -> Int { Int(cmd_ln_int_r(config, flag)) }
}
