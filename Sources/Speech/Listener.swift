import Arrival
import Foundation
import Geo

/// Hears the walker's answers: a long-lived PocketSphinx decoder fed 16 kHz mono audio in
/// chunks of any size, cut into utterances by the decoder's voice activity detector (speech,
/// then silence, ends one; `maxUtteranceSeconds` caps one), each mapped to its meaning; beside
/// it, a decoder per speed of the model (``speeds``) on the same audio sped up.
///
/// Not thread-safe: own it on one thread or task (the microphone loop or a file decode).
/// Half-duplex: audio marked `muted` (captured while the speaker talks) or before
/// `discardAudio(until:)` is never decoded, and an utterance it interrupts is dropped.
public final class Listener {
    /// How utterances are accepted; see models/README.md for how these were chosen.
    public struct Policy: Sendable, Hashable {
        /// An utterance longer than this (seconds) is cut, so a noisy room cannot feed the
        /// filler loop forever.
        public var maxUtteranceSeconds: Double
        /// At most this many filler syllables may surround a refusal.
        public var maxFillersNotHere: Int
        /// At most this many filler syllables may surround a confirmation: stricter, since a
        /// false "여기가 입구야" writes a wrong door into memory at the highest rank.
        public var maxFillersThisIsIt: Int
        /// The confidence thresholds; `nil`: the model's (`operating-point.json`).
        public var operatingPoint: OperatingPoint?
        /// Measure the confidence against a phone loop run beside the grammar (a second
        /// decoder; see ``Listener/confidence(of:feature:)``). Off in the product: on the
        /// development split it separates answers from near-misses better, but at the
        /// operating point the product needs (the demo's recorded "여기가 입구야" acting at
        /// once) it acts on fewer answers, for about twice the CPU (docs/speech.md). A policy
        /// with it on needs an operating point tuned on it.
        public var phoneLoop: Bool
        /// Decode an utterance the filler rule accepted as an answer a second time, with the
        /// answer's phrase and then with its one-onset neighbours (거기/저기 … for 여기) in its
        /// place (``Rescorer``, by ``neighbourRule``), and make the confidence the phrase's score
        /// per frame with the babble allowance plus the margin between the two
        /// (`perFrameInBabblePlusMargin`). Off in the product (docs/speech.md). A policy with it
        /// on needs an operating point tuned on it.
        public var neighbourMargin: Bool
        /// Which neighbours the rescorer of ``neighbourMargin`` weighs the phrase against.
        public var neighbourRule: NeighbourRule
        /// The rule that makes a phrase's neighbours from its pronunciations (``Rescorer``).
        public enum NeighbourRule: String, Sendable, CaseIterable {
            /// Another onset for the first syllable's glide (여 → 거, 저 …) or in front of 이.
            case firstOnset
            /// Any one consonant or glide of the phrase swapped for another syllable onset, or
            /// one put in front of a syllable that starts with a vowel.
            case everyOnset
        }
        /// Decoders beside the plain one fed the same audio played this many times faster
        /// (``SpeedShift``: every frequency × the speed, a vocal tract of another length brought
        /// towards the model's); each utterance is the hearing with a meaning and the highest
        /// confidence among them, else the plain decoder's. `nil`: the model's, the speeds its
        /// operating point was tuned with (``OperatingPoint/speeds``); each costs about the
        /// plain decoder's CPU (docs/speech.md). (PocketSphinx's own `-warp_params` cannot do
        /// it: sphinxbase keeps the warp in process-wide statics.)
        public var speeds: [Double]?
        /// Decoders that hear an utterance a second time, its audio played this many times
        /// faster, when it does not act at once: when the decoders of the stream (the plain one
        /// and ``speeds``) heard an answer in it below its `act`, or none heard an answer but one
        /// heard a decoy that ends as an answer does ("[거기_아니야]"); only an utterance as long
        /// as an answer (``rehearShortest``…``rehearLongest``), and only a hearing of that answer
        /// counts (the stream's, else ``decoyMeanings(_:)``). A warp's hearing for the CPU of the
        /// utterances that may need it, not of the whole stream. `nil`: the model's
        /// (``OperatingPoint/rehear``; the product's is 0.82, beside its ``speeds`` 1.25:
        /// docs/speech.md, "Heard again, answers too").
        public var rehear: [Double]?
        /// The cutoff (Hz) of a high-pass filter every sample goes through before anything hears
        /// it (``HighPass``); 0: none. `nil`: the model's (``OperatingPoint/highPass``), since
        /// its thresholds were tuned with it.
        public var highPass: Double?
        /// Search the grammar only near the foreground: while the ``ForegroundDetector`` hears
        /// nobody close to the microphone (no block above the background for
        /// ``Listener/pauseBlocks``) and no utterance is open, the stream's decoders run the quiet
        /// search (``Decoder/Search``), their front ends fed every block; a block above the
        /// background starts the grammar's search on the audio from this many seconds before it.
        /// 0: search every block. `nil`: the model's (``OperatingPoint/searchLead``; the product's
        /// 0.5 s since stop 29: docs/speech.md, "The search gate, shipped").
        public var searchLead: Double?
        /// Where the filler rule counts filler syllables and decoy words: `.speech`, only those
        /// the decoder heard within the walker's speech (the foreground's start to its end, in
        /// the decoder's frames); `.utterance`, all it heard since its utterance began, talk
        /// behind the walker before and after the answer included. `nil`: the model's
        /// (``OperatingPoint/fillers``, else `.utterance`), since its thresholds were tuned with it.
        /// `.speech` in the product since stop 29, where an answer also counts only if its phrase
        /// starts within the speech (docs/speech.md, "A phrase that starts within the speech").
        public var fillers: FillerSpan?
        /// The ``rehear`` decoders normalise an utterance by its own cepstral mean (PocketSphinx's
        /// batch `-cmn`, as the model was trained), fed it whole, instead of by the running mean
        /// of the utterances they heard before it: a microphone's band or a room the stream's
        /// mean was not learnt on. `nil`: the model's (``OperatingPoint/rehearOwnMean``); off in
        /// the product (docs/speech.md, "An utterance by its own mean").
        public var rehearOwnMean: Bool?
        /// WebRTC's noise suppression in front of the decoders, heard only while the background
        /// the ``ForegroundDetector`` hears between the walker's words is steady: its spread
        /// below ``NoiseSuppression/belowSpread`` (``Listener/suppressing``). The suppressor
        /// hears every block, so its noise estimate is ready when the gate opens; the detector
        /// and the gate hear the audio unsuppressed. `belowSpread` 0: none. `nil`: the model's
        /// (``OperatingPoint/noiseSuppression``), since its thresholds were tuned with it.
        public var noiseSuppression: NoiseSuppression?
        /// How many frames the cepstral mean a session starts from (the model's `-cmninit`)
        /// counts for against the audio it hears (``Decoder/weighSessionMean(frames:)``): fewer,
        /// and the session's first seconds move it further. `nil`: sphinxbase's 500 (5 s), the
        /// product's; measured (docs/speech.md, "The session's first mean, learnt faster").
        public var sessionMeanFrames: Int?

        public init(
            maxUtteranceSeconds: Double = 5, maxFillersNotHere: Int = 2, maxFillersThisIsIt: Int = 1,
            operatingPoint: OperatingPoint? = nil, phoneLoop: Bool = false, neighbourMargin: Bool = false,
            neighbourRule: NeighbourRule = .firstOnset, speeds: [Double]? = nil, rehear: [Double]? = nil,
            highPass: Double? = nil,
            searchLead: Double? = nil, fillers: FillerSpan? = nil, rehearOwnMean: Bool? = nil,
            noiseSuppression: NoiseSuppression? = nil, sessionMeanFrames: Int? = nil
        ) {
            self.maxUtteranceSeconds = maxUtteranceSeconds
            self.maxFillersNotHere = maxFillersNotHere
            self.maxFillersThisIsIt = maxFillersThisIsIt
            self.operatingPoint = operatingPoint
            self.phoneLoop = phoneLoop
            self.neighbourMargin = neighbourMargin
            self.neighbourRule = neighbourRule
            self.speeds = speeds
            self.rehear = rehear
            self.highPass = highPass
            self.searchLead = searchLead
            self.fillers = fillers
            self.rehearOwnMean = rehearOwnMean
            self.noiseSuppression = noiseSuppression
            self.sessionMeanFrames = sessionMeanFrames
        }

        /// `point` with the decoders and front end of a listener on a model with it, each the
        /// policy's, else the point's: the sped-up speeds, the speeds heard again at and whether
        /// by an utterance's own mean, the high-pass cutoff and the search gate's lead (`nil` for
        /// none, 0 or unset), where the filler rule counts (`.speech`, or `nil` for the whole
        /// utterance), and the noise suppression (`nil` for none or never on).
        package func decoders(over point: OperatingPoint) -> OperatingPoint {
            let span = fillers ?? point.fillers ?? .utterance
            return OperatingPoint(
                notHere: point.notHere, thisIsIt: point.thisIsIt, speeds: speeds ?? point.speeds,
                rehear: rehear ?? point.rehear,
                highPass: (highPass ?? point.highPass).flatMap { $0 > 0 ? $0 : nil },
                searchLead: (searchLead ?? point.searchLead).flatMap { $0 > 0 ? $0 : nil },
                fillers: span == .speech ? .speech : nil, rehearOwnMean: rehearOwnMean ?? point.rehearOwnMean,
                noiseSuppression: noiseSuppression ?? point.noiseSuppression)
        }

        /// The policy the product uses.
        public static let standard = Policy()
    }

    /// Samples per second the decoder takes.
    public static let sampleRate = 16_000
    /// Audio is fed in blocks this long (samples) so start/end times do not depend on the
    /// caller's chunk size: 20 ms.
    static let blockSamples = 320

    public let policy: Policy
    /// The thresholds in use: the policy's, else the model's.
    public let operatingPoint: OperatingPoint
    /// The speeds of the decoders beside the plain one: the policy's, else the model's.
    public let speeds: [Double]
    /// The speeds an utterance no decoder heard an answer in is heard again at: the policy's,
    /// else the model's.
    public let rehear: [Double]
    /// Whether ``rehear``'s decoders normalise an utterance by its own cepstral mean: the
    /// policy's, else the model's.
    public let rehearOwnMean: Bool
    /// Where the filler rule counts: the policy's, else the model's.
    public let fillerSpan: FillerSpan
    /// The decoders and front end this listener runs, in words (``OperatingPoint/decoderSummary``).
    public let decoderSummary: String
    private let decoder: Decoder
    /// The decoders of the sped-up audio (``Policy/speeds``), fed in lockstep with `decoder`,
    /// whose voice activity detector alone cuts the utterances; and their streams.
    private let spedUp: [Decoder]
    private var shifts: [SpeedShift]
    /// The decoders of ``rehear``: fed an utterance's audio only when it is heard again.
    private let rehearers: [Decoder]
    /// The noise suppression and its gate (``Policy/noiseSuppression``), `nil` for none.
    public let noiseSuppression: NoiseSuppression?
    private let suppressor: NoiseSuppressor?
    /// Whether the decoders hear the suppressed audio now: the gate, set in each block
    /// between the walker's words (outside an utterance's speech, below the foreground) by the
    /// background's spread; shut until the detector has heard a second of background.
    package private(set) var suppressing = false
    /// Seconds of audio the decoders heard suppressed so far.
    package var suppressed: Double { Double(suppressedSamples) / Double(Self.sampleRate) }
    private var suppressedSamples = 0
    /// The filter in front of everything (``Policy/highPass``), `nil` for none.
    private var highPass: HighPass?
    /// The cutoff (Hz) of the high-pass filter every sample goes through first; `nil`: none.
    public var highPassCutoff: Double? { highPass?.cutoff }
    /// Hear an answer again even when the stream's hearing of it acts at once. A re-hearing
    /// counts only with the stream's answer, so it cannot change what acts then, only the
    /// confidence reported; off, it is skipped (its CPU, and the wait after the pause). The
    /// benchmark turns it on when it decodes at a point that lets every answer through, to
    /// judge at another point later.
    package var rehearsSureAnswers = false
    /// `decoder` and the sped-up ones.
    private var decoders: [Decoder] { [decoder] + spedUp }
    /// The latest audio fed to the decoders (at most ``historySamples``), for hearing an
    /// utterance again; `history[0]` is sample `historyStart` of the audio.
    private var history: [Int16] = []
    private var historyStart = 0
    /// How much audio `history` keeps: the longest utterance and the lead before it.
    private var historySamples: Int {
        Int((policy.maxUtteranceSeconds + Self.rehearLead + 1) * Double(Self.sampleRate))
            + (searchLeadSamples ?? 0)
    }
    /// An utterance is heard again only if its speech lasts at most this long (seconds): the
    /// answers last under 2 s on the development split (130 wpm included); a sentence of
    /// chatter is longer, and hearing it again would cost CPU for nothing.
    public static let rehearLongest = 2.5
    /// Nor if it lasts less than this (seconds): the shortest answer heard on the development
    /// split lasts 0.64 s, while most stretches of talk behind the walker that the decoders cut
    /// last under 0.4 s.
    public static let rehearShortest = 0.5
    /// Audio before the speech that goes with it when an utterance is heard again (seconds).
    static let rehearLead = 0.3
    /// And after it (seconds): the decoder closes the last word on it.
    static let rehearTail = 0.2
    private let prespeechSamples: Int
    /// The search gate's lead (``Policy/searchLead``, samples); `nil`: every block is searched.
    private let searchLeadSamples: Int?
    /// The lead of the search gate (seconds); `nil`: every block is searched.
    public var searchLead: Double? { searchLeadSamples.map { Double($0) / Double(Self.sampleRate) } }
    /// The audio is kept for hearing an utterance again or for the search gate's lead.
    private var keepsHistory: Bool { !rehearers.isEmpty || searchLeadSamples != nil }
    private var fed = 0
    private var speechStart: Int?
    private var muteUntilSample = 0
    /// Samples waiting for a whole block, so blocks fall on the same 20 ms grid whatever
    /// the caller's chunk size.
    private var pending: [Int16] = []
    private var pendingMuted = false
    private var foreground = ForegroundDetector()
    /// Consecutive blocks below the foreground level.
    private var quietBlocks = 0
    /// Samples fed since the decoder's utterance began (to drop background it collected).
    private var decoderFed = 0
    /// The stream's decoders run the grammar's search (always, without the search gate); else
    /// the quiet one (``Decoder/Search``).
    private var searching = true
    /// The quiet search's utterances are restarted after this many samples: 10 s.
    static let quietUtteranceSamples = 10 * sampleRate

    /// Ends the stream decoders' utterance, if any, and makes `search` theirs.
    private func use(_ search: Decoder.Search) throws(SpeechError) {
        for d in decoders where d.inUtterance { _ = try d.endUtterance() }
        for d in decoders { try d.use(search) }
        searching = search == .grammar
    }
    /// A foreground pause this long ends an utterance (blocks of 20 ms): 0.4 s.
    static let pauseBlocks = 20

    /// A listener on `model` (see `PhraseModel.locate`).
    /// - Throws: `SpeechError.model` when PocketSphinx refuses the model.
    public init(model: PhraseModel, policy: Policy = .standard) throws(SpeechError) {
        self.policy = policy
        operatingPoint = policy.operatingPoint ?? model.operatingPoint
        decoder = try Decoder(
            model: model, phoneLoop: policy.phoneLoop,
            neighbours: policy.neighbourMargin ? policy.neighbourRule : nil)
        // The decoders and front end, resolved once: the policy's, else the model's.
        let running = policy.decoders(over: model.operatingPoint)
        speeds = running.speeds
        var spedUp: [Decoder] = []
        // With the phone loop each sped-up decoder has its own, on its own audio: a hearing of
        // the sped-up audio is measured against the phones of that audio.
        for _ in speeds { spedUp.append(try Decoder(model: model, phoneLoop: policy.phoneLoop)) }
        self.spedUp = spedUp
        shifts = speeds.map(SpeedShift.init(speed:))
        rehear = running.rehear
        rehearOwnMean = running.rehearOwnMean
        fillerSpan = running.fillers ?? .utterance
        decoderSummary = running.decoderSummary
        highPass = running.highPass.map { HighPass(cutoff: $0) }
        noiseSuppression = running.noiseSuppression
        if let level = running.noiseSuppression?.level {
            suppressor = try NoiseSuppressor(level: level)
        } else {
            suppressor = nil
        }
        var rehearers: [Decoder] = []
        for _ in rehear { rehearers.append(try Decoder(model: model, phoneLoop: policy.phoneLoop)) }
        self.rehearers = rehearers
        // The VAD reports speech only after `-vad_prespeech` frames (10 ms each) of it: the
        // start is moved back by as much.
        prespeechSamples = decoder.integer("-vad_prespeech") * Self.sampleRate / 100
        searchLeadSamples = running.searchLead.map { Int($0 * Double(Self.sampleRate)) }
        // One listening session: the noise estimate starts here and carries across answers.
        for d in decoders + rehearers {
            try d.startStream()
            try d.startUtterance()
        }
        try warmUp()
        if let frames = policy.sessionMeanFrames {
            for d in decoders + rehearers { d.weighSessionMean(frames: frames) }
        }
        // Behind the search gate nobody is near yet.
        if searchLeadSamples != nil { try use(.quiet) }
    }

    /// The detector's noise estimate starts empty and takes the first frames of a file that
    /// begins in digital silence for speech; 0.5 s of a faint room floor (±4 of 32 767, not
    /// counted in the times) settles it before real audio arrives. The cepstral mean is put
    /// back afterwards: normalising speech by the floor's spectrum loses words.
    private func warmUp() throws(SpeechError) {
        var random = UInt32(12_345)
        let floor = (0..<8_000).map { _ -> Int16 in
            random = random &* 1_664_525 &+ 1_013_904_223
            return Int16(Int(random >> 29) - 4)
        }
        // The foreground detector learns the same quiet floor, so audio that starts with
        // speech counts as foreground from its first block.
        floor.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: Self.blockSamples) {
                _ = foreground.isForeground(
                    UnsafeBufferPointer(rebasing: buffer[start..<start + Self.blockSamples]))
            }
        }
        for (i, d) in decoders.enumerated() {
            let audio = floor.withUnsafeBufferPointer { i == 0 ? Array($0) : shifts[i - 1].process($0) }
            try d.preservingCepstralMean { () throws(SpeechError) in
                _ = try audio.withUnsafeBufferPointer { buffer throws(SpeechError) in try d.process(buffer) }
                _ = try d.endUtterance()
            }
            try d.startUtterance()
        }
        for (d, speed) in zip(rehearers, rehear) {
            // Fed in blocks once, a decoder's cepstral mean stays live: one fed whole utterances
            // only ends the utterance its session began with.
            guard !rehearOwnMean else {
                _ = try d.endUtterance()
                continue
            }
            var shift = SpeedShift(speed: speed)
            let audio = floor.withUnsafeBufferPointer { shift.process($0) }
            try d.preservingCepstralMean { () throws(SpeechError) in
                _ = try audio.withUnsafeBufferPointer { buffer throws(SpeechError) in try d.process(buffer) }
                _ = try d.endUtterance()
            }
        }
    }

    /// The plain decoder's live cepstral mean now (``Decoder/cepstralMean``): what a session
    /// has learnt of its microphone, beside the model's `-cmninit` it began from.
    package var cepstralMean: [Double] { decoder.cepstralMean }

    /// Seconds of audio the stream's decoders searched so far (a search gate's lead counted
    /// each time it is searched).
    package var searched: Double { Double(searchedSamples) / Double(Self.sampleRate) }
    private var searchedSamples = 0

    /// Seconds of audio fed so far (muted audio included).
    public var position: Double { Double(fed) / Double(Self.sampleRate) }

    /// Drops all audio up to `seconds` from the start of the audio (half-duplex: the time
    /// the speaker's prompt ends, plus its echo).
    public func discardAudio(until seconds: Double) {
        muteUntilSample = max(muteUntilSample, Int(seconds * Double(Self.sampleRate)))
    }

    /// `count` samples were lost before they reached the listener (a capture's consumer fell
    /// behind: ``Microphone/Chunk/skippedBefore``): the clock moves on by them, and an utterance
    /// they cut is abandoned, as in muted audio — half an answer is not decoded as a whole one.
    /// Heard as `count` muted samples would be, without making them: a gap of any length costs
    /// neither memory nor time in proportion to it (before, they were made, filtered and
    /// copied). Returns the utterances the audio before the gap completed.
    public func skip(samples count: Int) throws(SpeechError) -> [Utterance] {
        guard count > 0 else { return [] }
        var out: [Utterance] = []
        // The audio before the gap that waits for a whole block is heard as it was captured.
        if !pending.isEmpty, !pendingMuted {
            out += try feed(pending, muted: false)
            pending = []
        }
        highPass?.skip(count)
        // Muted, with the muted samples waiting before it: its whole blocks move the clock on as
        // `feed` moves it over muted ones, the rest waits so later blocks fall where they would.
        let muted = pending.count + count
        let whole = muted / Self.blockSamples * Self.blockSamples
        if whole > 0 {
            try abandonUtterance()
            fed += whole
            history = []
            historyStart = fed
        }
        pending = [Int16](repeating: 0, count: muted - whole)
        pendingMuted = true
        return out
    }

    /// Feeds the next 16 kHz mono samples; returns the utterances they completed.
    /// - Parameter muted: the samples were captured while the speaker was talking: they
    ///   advance the clock but are never decoded.
    public func process(samples: [Int16], muted: Bool = false) throws(SpeechError) -> [Utterance] {
        var out: [Utterance] = []
        let filtered = highPass?.process(samples) ?? samples
        var input = filtered
        if !pending.isEmpty {
            if pendingMuted != muted {
                out += try feed(pending, muted: pendingMuted)
            } else {
                input = pending + filtered
            }
            pending = []
        }
        let whole = input.count / Self.blockSamples * Self.blockSamples
        out += try feed(Array(input[..<whole]), muted: muted)
        pending = Array(input[whole...])
        pendingMuted = muted
        return out
    }

    private func feed(_ samples: [Int16], muted: Bool) throws(SpeechError) -> [Utterance] {
        var out: [Utterance] = []
        var index = 0
        while index < samples.count {
            let count = min(Self.blockSamples, samples.count - index)
            if muted || fed + count <= muteUntilSample {
                try abandonUtterance()
                fed += count
                history = []
                historyStart = fed
                index += count
                continue
            }
            if speechStart == nil, quietBlocks > 0 { foreground.startUtterance() }
            var block = Array(samples[index..<index + count])
            index += count
            let loud = block.withUnsafeBufferPointer { foreground.isForeground($0) }
            if let suppressor, let gate = noiseSuppression {
                // The suppressor learns the noise from every block; the decoders hear it only
                // while the background is steady, the gate moved only between the words.
                let quieter = try suppressor.process(block)
                if speechStart == nil, !loud {
                    suppressing = foreground.backgroundSpread.map { $0 < gate.belowSpread } ?? false
                }
                if suppressing {
                    block = quieter
                    suppressedSamples += count
                }
            }
            if keepsHistory { history.append(contentsOf: block) }
            if history.count > 2 * historySamples {
                let drop = history.count - historySamples
                history.removeFirst(drop)
                historyStart += drop
            }
            var audio = block
            if searchLeadSamples != nil, !searching, loud {
                // Someone near: the grammar's search, on the audio from the lead before this
                // block (heard by the quiet search already; the front end hears it again). The
                // sped-up streams go on from where they were, not restarted: a restart there lost
                // the onset of "여기" in the sped-up decoder (docs/speech.md, stop 29).
                try use(.grammar)
                let from = max(historyStart, fed + count - (searchLeadSamples ?? 0))
                audio = Array(history[(from - historyStart)...])
            }
            if !decoder.inUtterance {
                for d in decoders { try d.startUtterance() }
                decoderFed = 0
            }
            let inSpeech = try audio.withUnsafeBufferPointer { buffer throws(SpeechError) in
                for i in spedUp.indices {
                    let faster = shifts[i].process(buffer)
                    _ = try faster.withUnsafeBufferPointer { buffer throws(SpeechError) in
                        try spedUp[i].process(buffer)
                    }
                }
                return try decoder.process(buffer)
            }
            fed += count
            decoderFed += audio.count
            quietBlocks = loud ? 0 : quietBlocks + 1
            guard searching else {
                // Nobody near: the front end hears the audio, the grammar does not. A fresh
                // utterance now and then, so the quiet search's history stays short.
                if decoderFed > Self.quietUtteranceSamples {
                    for d in decoders { _ = try d.endUtterance() }
                }
                continue
            }
            searchedSamples += audio.count
            // Foreground heard within the detector's pre-speech window.
            let recentlyLoud = quietBlocks * Self.blockSamples < prespeechSamples
            if inSpeech, speechStart == nil, recentlyLoud {
                speechStart = max(0, fed - prespeechSamples - count)
            } else if let start = speechStart, !inSpeech || quietBlocks >= Self.pauseBlocks {
                // The speech ended where the foreground level last fell (PocketSphinx's
                // flag drops only after its -vad_postspeech hangover).
                let end = fed - max(quietBlocks, 1) * Self.blockSamples
                if let utterance = try closeUtterance(start: start, end: max(start, end)) {
                    out.append(utterance)
                }
            } else if speechStart == nil, quietBlocks >= Self.pauseBlocks,
                searchLeadSamples != nil || decoderFed > Self.sampleRate
            {
                // Background only for a while: start afresh so the next utterance does
                // not begin with seconds of it; behind the search gate, with the quiet search.
                for d in decoders { _ = try d.endUtterance() }
                if searchLeadSamples != nil { try use(.quiet) }
            }
            if let start = speechStart,
                Double(fed - start) / Double(Self.sampleRate) >= policy.maxUtteranceSeconds
            {
                if let utterance = try closeUtterance(start: start, end: fed) { out.append(utterance) }
            }
        }
        return out
    }

    /// Ends the audio: returns the utterance still open, if any. The listener can go on
    /// afterwards (times continue).
    public func finish() throws(SpeechError) -> [Utterance] {
        var out = try feed(pending, muted: pendingMuted)
        pending = []
        guard let start = speechStart else {
            try abandonUtterance()
            return out
        }
        out += try closeUtterance(start: start, end: fed).map { [$0] } ?? []
        return out
    }

    private func abandonUtterance() throws(SpeechError) {
        speechStart = nil
        for d in decoders where d.inUtterance { _ = try d.endUtterance() }
    }

    private func closeUtterance(start: Int, end: Int) throws(SpeechError) -> Utterance? {
        speechStart = nil
        let hypothesis = try decoder.endUtterance()
        let rate = Double(Self.sampleRate)
        let background = foreground.levels
        // The rescorer reads the utterance's audio (``margin(speed:)``): before the next
        // utterance starts.
        let plain = Self.utterance(
            from: hypothesis.text, segments: hypothesis.segments, loop: hypothesis.loop,
            start: Double(start) / rate, end: Double(end) / rate, policy: policy, point: operatingPoint,
            background: background,
            speech: speechFrames(
                start: start, end: end, audioEnd: fed, speed: 1, segments: hypothesis.segments),
            margin: margin(speed: 1))
        var stream = [plain]
        for (d, speed) in zip(spedUp, speeds) {
            stream.append(
                hearing(
                    try d.endUtterance(), start: start, end: end, audioEnd: fed, speed: speed,
                    background: background, margin: margin(speed: speed)))
        }
        var utterance = stream.dropFirst().reduce(plain, Self.better)
        var hearings = stream.compactMap { $0 }
        // Heard again: a short utterance that does not act at once, in which the stream heard an
        // answer (before the thresholds), or a decoy that ends as an answer does
        // ("[거기_아니야]": notHere); only a hearing of that answer counts (a re-hearing never
        // turns "[거기_입구야]" or a heard refusal into a confirmation). Not talk of filler
        // syllables or other decoys only, which most talk behind the walker is.
        let answers = Set(stream.compactMap { $0?.candidate })
        let actsAtOnce = utterance?.meaning != nil && utterance?.sure == true
        if !rehearers.isEmpty, !actsAtOnce || rehearsSureAnswers,
            (Self.rehearShortest...Self.rehearLongest).contains(Double(end - start) / rate)
        {
            let towards =
                answers.isEmpty
                ? stream.reduce(into: Set<ArrivalWords>()) { $0.formUnion(Self.decoyMeanings($1)) } : answers
            if !towards.isEmpty {
                let began = ContinuousClock.now
                for heard in try hearAgain(start: start, end: end, background: background)
                where heard?.candidate.map(towards.contains) ?? false {
                    utterance = Self.better(utterance, heard)
                    if let heard { hearings.append(heard) }
                }
                let took = ContinuousClock.now - began
                utterance?.rehearing = took.inSeconds
            }
        }
        // Behind the search gate, after a pause in the foreground the quiet search goes on
        // until someone is near again.
        if searchLeadSamples != nil, quietBlocks >= Self.pauseBlocks { try use(.quiet) }
        for d in decoders { try d.startUtterance() }
        decoderFed = 0
        utterance?.decided = Double(fed) / rate
        if hearings.count > 1 { utterance?.hearings = hearings }
        return utterance
    }

    /// The neighbour margin (``Policy/neighbourMargin``) of a phrase a decoder of audio played
    /// `speed` times faster heard: the plain decoder's rescorer weighs the plain audio, per
    /// frame of the phrase in the plain audio; `nil` without the rescorer.
    private func margin(speed: Double) -> ((_ phrase: String, _ frames: Int) -> Double?)? {
        guard policy.neighbourMargin else { return nil }
        let decoder = decoder
        return { decoder.neighbourMargin(phrase: $0, frames: Int((Double($1) * speed).rounded())) }
    }

    /// The utterance from `start` to `end` (samples) as a decoder other than the plain one
    /// heard it: its audio ended at sample `audioEnd`, played `speed` times faster.
    private func hearing(
        _ hypothesis: (text: String, score: Int32, segments: [Decoder.Segment], loop: [Decoder.Segment]),
        start: Int, end: Int, audioEnd: Int, speed: Double, background: BackgroundLevels?,
        margin: ((_ phrase: String, _ frames: Int) -> Double?)?
    ) -> Utterance? {
        let rate = Double(Self.sampleRate)
        return Self.utterance(
            from: hypothesis.text, segments: hypothesis.segments, loop: hypothesis.loop,
            start: Double(start) / rate,
            end: Double(end) / rate, policy: policy, point: operatingPoint, background: background,
            speech: speechFrames(
                start: start, end: end, audioEnd: audioEnd, speed: speed, segments: hypothesis.segments),
            margin: margin)
    }

    /// The frames of the walker's speech, `start`…`end` (samples), in a decoder's frames, for
    /// a filler rule that counts only there (``Policy/fillers``): the decoder heard audio up to
    /// sample `audioEnd` played `speed` times faster, and its last frame (`segments`' last)
    /// is that audio's end — counted back from it, since the frames the voice activity
    /// detector drops as silence come before the speech, not within it. `nil`: count everywhere.
    private func speechFrames(
        start: Int, end: Int, audioEnd: Int, speed: Double, segments: [Decoder.Segment]
    ) -> ClosedRange<Int>? {
        guard fillerSpan == .speech, let last = segments.map(\.endFrame).max() else { return nil }
        let samplesPerFrame = Double(Self.sampleRate) / 100 * speed
        let first = last - Int((Double(audioEnd - start) / samplesPerFrame).rounded())
        let final = last - Int((Double(audioEnd - end) / samplesPerFrame).rounded())
        return first...max(first, final)
    }

    /// The hearings of the utterance from `start` to `end` (samples) by the ``rehear``
    /// decoders: its audio from ``rehearLead`` before it (never before the audio the stream's
    /// decoders heard with it) to ``rehearTail`` after it, sped up by each.
    private func hearAgain(
        start: Int, end: Int, background: BackgroundLevels?
    ) throws(SpeechError) -> [Utterance?] {
        let rate = Double(Self.sampleRate)
        let from = max(start - Int(Self.rehearLead * rate), fed - decoderFed, historyStart)
        let to = min(fed, end + Int(Self.rehearTail * rate))
        let audio = Array(history[(from - historyStart)..<(to - historyStart)])
        var heard: [Utterance?] = []
        for (d, speed) in zip(rehearers, rehear) {
            var shift = SpeedShift(speed: speed)
            let faster = audio.withUnsafeBufferPointer { shift.process($0) }
            try d.startUtterance()
            _ = try faster.withUnsafeBufferPointer { buffer throws(SpeechError) in
                try d.process(buffer, whole: rehearOwnMean)
            }
            var again = hearing(
                try d.endUtterance(), start: start, end: end, audioEnd: to, speed: speed,
                background: background, margin: margin(speed: speed))
            again?.reheard = true
            heard.append(again)
        }
        return heard
    }

    /// The answers that end as a decoy in `utterance` ends ("[거기_아니야]", "[아냐]": notHere;
    /// "[거기가_입구야]", "[맞아]": thisIsIt; "[입구]", "[어디]": none), by its last word.
    static func decoyMeanings(_ utterance: Utterance?) -> Set<ArrivalWords> {
        guard let utterance else { return [] }
        var meanings = Set<ArrivalWords>()
        for token in utterance.heard.split(separator: " ") where token.hasPrefix("[") && token.hasSuffix("]")
        {
            guard let last = token.dropFirst().dropLast().split(separator: "_").last, last.count >= 2 else {
                continue
            }
            if ArrivalWords.refusals.contains(where: { $0.hasSuffix(last) }) { meanings.insert(.notHere) }
            if ArrivalWords.confirmations.contains(where: { $0.hasSuffix(last) }) {
                meanings.insert(.thisIsIt)
            }
        }
        return meanings
    }

    /// Of two hearings of one utterance (the plain decoder's first), the one with a meaning
    /// and the higher confidence. When neither has a meaning at the operating point: the one
    /// that heard an answer (`candidate`) with the higher confidence, as a point that lets every
    /// answer through would choose — so what a rejected utterance reports (its text and
    /// confidence) does not depend on the thresholds; the first when neither heard one.
    static func better(_ a: Utterance?, _ b: Utterance?) -> Utterance? {
        func rank(_ u: Utterance?) -> Int { u?.meaning != nil ? 2 : u?.candidate != nil ? 1 : 0 }
        guard let b, rank(b) > 0 else { return a }
        guard let a, rank(a) >= rank(b) else { return b }
        guard rank(a) == rank(b) else { return a }
        return (b.confidence ?? 1) > (a.confidence ?? 1) ? b : a
    }

    /// The utterance a hypothesis means: phrase tokens ("여기_아니야") are phrases, `f_…`
    /// tokens are filler syllables (other speech) and become "…" — a separator, so two
    /// halves of a phrase around other speech never join into one — and `d_…` tokens are
    /// decoy words (near-misses such as 거기, 앉아), shown as "[거기]".
    /// - Returns: `nil` when nothing at all was recognised.
    static func utterance(
        from hypothesis: String, segments: [Decoder.Segment] = [], loop: [Decoder.Segment] = [],
        start: Double,
        end: Double, policy: Policy, point: OperatingPoint = .placeholder,
        background: BackgroundLevels? = nil, speech: ClosedRange<Int>? = nil,
        margin: ((_ phrase: String, _ frames: Int) -> Double?)? = nil
    ) -> Utterance? {
        var parts: [String] = []
        var phrases: [String] = []
        var fillers = 0
        for token in hypothesis.split(separator: " ") {
            if token.hasPrefix("f_") {
                fillers += 1
                if parts.last != "…" { parts.append("…") }
            } else if token.hasPrefix("d_") {
                // A decoy word: heard, but no phrase; brackets keep it from joining a
                // neighbour into a phrase when the text is matched again downstream.
                fillers += 1
                parts.append("[\(token.dropFirst(2))]")
            } else if !token.hasPrefix("<"), !token.hasPrefix("[") {
                let phrase = token.replacingOccurrences(of: "_", with: " ")
                parts.append(phrase)
                phrases.append(phrase)
            }
        }
        guard !parts.isEmpty else { return nil }
        let meanings = phrases.compactMap(ArrivalWords.meaning(of:))
        let candidate: ArrivalWords? = meanings.contains(.notHere) ? .notHere : meanings.first
        let text = parts.joined(separator: " ")
        guard let candidate else { return Utterance(start: start, end: end, heard: text, meaning: nil) }
        let phraseSegments = segments.filter {
            !$0.word.hasPrefix("f_") && !$0.word.hasPrefix("d_") && !$0.word.hasPrefix("<")
                && !$0.word.hasPrefix("[")
                && ArrivalWords.meaning(of: $0.word.replacingOccurrences(of: "_", with: " ")) == candidate
        }
        var evidence = ConfidenceEvidence(phrase: phraseSegments, path: segments, loop: loop)
        evidence?.background = background
        if let speech {
            // Only the fillers and decoys within the walker's speech (by their middle frame).
            fillers =
                segments.filter {
                    ($0.word.hasPrefix("f_") || $0.word.hasPrefix("d_"))
                        && speech.contains(($0.startFrame + $0.endFrame) / 2)
                }
                .count
        }
        var passedFillerRule: ArrivalWords? = candidate
        switch candidate {
        case .notHere where fillers > policy.maxFillersNotHere: passedFillerRule = nil
        case .thisIsIt where fillers > policy.maxFillersThisIsIt: passedFillerRule = nil
        default: break
        }
        // Within the speech, the answer is the walker's only if its phrase starts there too, not
        // in the talk before it ("… 여기 입구야 …" of a "입구 아니야" with "여기" behind it).
        if let speech, let first = phraseSegments.first, first.startFrame < speech.lowerBound {
            passedFillerRule = nil
        }
        // The second pass only for an answer the filler rule let through (its first phrase).
        if passedFillerRule != nil, let margin, let first = phraseSegments.first {
            let token = first.word.split(separator: "(").first.map(String.init) ?? first.word
            evidence?.neighbourMargin = margin(token, phraseSegments.reduce(0) { $0 + $1.frames })
        }
        let feature: ConfidenceEvidence.Feature =
            policy.neighbourMargin
            ? .perFrameInBabblePlusMargin : policy.phoneLoop ? .phraseRatio : .perFrameInBabble
        var utterance = Utterance(
            start: start, end: end, heard: text, meaning: nil,
            confidence: evidence.map { Self.confidence(of: $0, feature: feature) })
        utterance.evidence = evidence
        utterance.candidate = passedFillerRule
        return utterance.judged(at: point)
    }

    /// How well the phrase's words fit the audio, 0…1, higher is more confident: a logistic
    /// of one of the scores in `evidence` (`Feature.scale` gives each its centre and width).
    ///
    /// PocketSphinx scores each frame relative to the best-scoring senone of that frame.
    /// **`perFrame`**: the phrase's acoustic score per frame, a log-likelihood
    /// ratio against "any sound at all" (≤ 0; in the search's units, 1.0001^1024 ≈ 0.1 nat),
    /// near 0 when every frame of the phrase is the best sound for it; 0.5 at −58, one e-fold
    /// of odds per 5 (centred for the stock en-us model: on the adapted one answers and
    /// near-misses alike sit near 1). **`perFrameInBabble`** (the product's): the same plus
    /// ``BabbleShift``'s allowance for talkers behind the walker, read off the background
    /// between the words (`babble`: the allowance's parameters, the product's by default).
    /// **`phraseRatio`** (``Policy/phoneLoop``): the phrase's
    /// score minus the phone loop's over the same frames — how much better the phrase's words
    /// fit than the best free sequence of phones (a near-miss word, "거기" for "여기", fits
    /// worse than the phones actually spoken); both decoders score every senone
    /// (`-compallsen`) so the two share one reference; 0.5 at −5, an e-fold per 3.
    /// Monotonic, so thresholds on it are thresholds on the score; an operating point
    /// (`operating-point.json`) is chosen for one of them.
    /// - Returns: 0 when the feature needs the phone loop and it found no path (no reference:
    ///   the phrase is not trusted).
    package static func confidence(
        of evidence: ConfidenceEvidence, feature: ConfidenceEvidence.Feature, babble: BabbleShift = .product
    ) -> Double {
        guard let value = evidence.value(feature, babble: babble) else { return 0 }
        let (centre, width) = feature.scale
        return 1 / (1 + exp(-(value - centre) / width))
    }

    /// Decodes a whole WAV file (PCM 16-bit, any rate and channels) in one pass.
    /// - Throws: `SpeechError.badAudio`/`.io` naming the file; decoder errors.
    public static func decode(
        wav path: String, model: PhraseModel, policy: Policy = .standard
    ) throws(SpeechError)
        -> [Utterance]
    {
        try decode(samples: try WAV.read16kMono(path: path).samples, model: model, policy: policy)
    }

    /// Decodes `samples` (16 kHz mono) as one recording, with a listener of its own.
    public static func decode(
        samples: [Int16], model: PhraseModel, policy: Policy = .standard
    ) throws(SpeechError) -> [Utterance] {
        let listener = try Listener(model: model, policy: policy)
        return try listener.process(samples: samples) + listener.finish()
    }
}
