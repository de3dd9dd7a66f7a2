import CPocketSphinx
import Foundation

/// One PocketSphinx 0.8 decoder (`ps_decoder_t`) with its configuration, freed in `deinit`.
///
/// Not thread-safe: PocketSphinx decoders must be driven from one thread at a time; the
/// owner (`Listener`) keeps it confined.
final class Decoder {
    private let config: OpaquePointer
    private let decoder: OpaquePointer
    private(set) var inUtterance = false
    /// The model's `-dither`, applied here from this decoder's own generator (see ``Dither``).
    private var dither: Dither?

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

    init(model: PhraseModel) throws(SpeechError) {
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
        let (settings, ditherSeed) = Self.splitDither(Self.baseSettings + model.settings)
        for (flag, value) in settings { argv += [flag, value] }
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
        self.config = config
        self.decoder = decoder
        dither = ditherSeed.map(Dither.init(seed:))
    }

    deinit {
        ps_free(decoder)
        cmd_ln_free_r(config)
    }

    func startUtterance() throws(SpeechError) {
        guard ps_start_utt(decoder) >= 0 else { throw .decoder("ps_start_utt failed") }
        inUtterance = true
    }

    /// Feeds 16 kHz mono samples; returns whether the voice activity detector is in speech.
    func process(_ samples: UnsafeBufferPointer<Int16>) throws(SpeechError) -> Bool {
        guard !samples.isEmpty else { return ps_get_in_speech(decoder) != 0 }
        var block = Array(samples)
        dither?.apply(to: &block)
        guard ps_process_raw(decoder, block, block.count, 0, 0) >= 0 else {
            throw .decoder("ps_process_raw failed")
        }
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
    /// score and its words.
    func endUtterance() throws(SpeechError) -> (text: String, score: Int32, segments: [Segment]) {
        inUtterance = false
        guard ps_end_utt(decoder) >= 0 else { throw .decoder("ps_end_utt failed") }
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return ("", score, []) }
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
        return (String(cString: hyp), score, segments)
    }

    /// Starts a listening session: PocketSphinx's noise estimate (`-remove_noise`) starts
    /// afresh here and then carries across utterances (`ps_start_utt` keeps it).
    func startStream() throws(SpeechError) {
        guard ps_start_stream(decoder) >= 0 else { throw .decoder("ps_start_stream failed") }
    }

    /// Runs `body` and then puts back the live cepstral mean it had before, so audio fed in
    /// `body` (a warm-up of faint noise) does not shift how later speech is normalised.
    func preservingCepstralMean(_ body: () throws(SpeechError) -> Void) throws(SpeechError) {
        guard let feat = ps_get_feat(decoder), let cmn = feat.pointee.cmn_struct else { return try body() }
        var mean = [mfcc_t](repeating: 0, count: Int(cmn.pointee.veclen))
        cmn_live_get(cmn, &mean)
        try body()
        cmn_live_set(cmn, mean)
    }

    /// The decoder's setting `flag` as an integer (for VAD frame counts).
    func integer(_ flag: String) -> Int { Int(cmd_ln_int_r(config, flag)) }
}
