import Foundation

/// What `pathfinder record` checks in each take before it moves on. A take with nothing said,
/// with the voice cut off at the edge of the window, or clipped at full scale is labelled with a
/// sentence it does not hold: `Scripts/voice-eval --real` would count it as an answer missed, and
/// `Scripts/adapt-model --real` would teach the model that sentence on it.
public enum TakeProblem: String, Sendable, CaseIterable, Codable {
    /// No stretch of the take stands clearly above the room's own level.
    case silent
    /// The voice runs into the first or the last frames of the window: the sentence started
    /// before the recording did, or went on after it stopped.
    case cutOff
    /// Samples at full scale: the microphone's gain is too high, or it is too close.
    case clipped
    /// The device lost audio within the take (an overrun: ``Microphone/Chunk/lostBefore``): what
    /// is left is not the sentence as said.
    case gap

    /// What the person at the microphone can do about it (English; the prompt names the
    /// sentence in Korean).
    public var advice: String {
        switch self {
        case .silent: "nothing heard: speak up, or check the microphone (arecord -l)"
        case .cutOff: "cut off: start after the prompt and finish within the window (--seconds)"
        case .clipped: "too loud, clipped: move back from the microphone or turn its gain down"
        case .gap: "part of it was lost (the computer was too busy to record it): say it again"
        }
    }
}

/// The take check's rule, on 20 ms frames' levels (dB of the mean square, as
/// ``ForegroundDetector``'s: full scale is about 90).
public enum TakeCheck {
    /// Samples a frame: 20 ms at 16 kHz.
    static let frameSamples = 320
    /// A frame is voice when it is this far above the take's quietest tenth.
    static let aboveFloorDecibels = 12.0
    /// … and at least this loud (an RMS of 56, −55 dBFS): a quiet room's floor is not voice.
    static let audibleDecibels = 35.0
    /// A take holds speech when at least this many frames (200 ms) are voice.
    static let speechFrames = 10
    /// Frames at either edge where voice means the sentence was cut off (60 ms).
    static let edgeFrames = 3
    /// A take is clipped when this many of its samples are at the rails (``Rails``). Not runs:
    /// clipping that went through a rate converter (a 48 kHz USB microphone brought to 16 kHz
    /// by ALSA's plughw) keeps its samples at full scale but rounds the flat tops to one or two
    /// samples. Nine: as many as the three runs of three that counted before; a loud take that
    /// does not clip has none (normalised to −0.1 dBFS, its peaks stay hundreds of steps below).
    static let clippedSamples = 9

    /// The first problem of `samples` (16 kHz mono), in the order a gap (`lostSamples` the
    /// device lost within them), clipped, silent, cut off; `nil` for a take worth keeping.
    public static func problem(in samples: [Int16], lostSamples: Int = 0) -> TakeProblem? {
        if lostSamples > 0 { return .gap }
        if isClipped(samples) { return .clipped }
        let levels = stride(from: 0, to: samples.count - frameSamples + 1, by: frameSamples).map { start in
            let frame = samples[start..<start + frameSamples]
            return 10 * log10(frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frameSamples) + 1)
        }
        guard !levels.isEmpty else { return .silent }
        let floor = levels.sorted()[levels.count / 10]
        let voice = levels.map { $0 >= max(floor + aboveFloorDecibels, audibleDecibels) }
        guard voice.filter({ $0 }).count >= speechFrames else { return .silent }
        if voice.prefix(edgeFrames).contains(true) || voice.suffix(edgeFrames).contains(true) {
            return .cutOff
        }
        return nil
    }

    static func isClipped(_ samples: [Int16]) -> Bool { Rails.count(samples) >= clippedSamples }
}

/// Samples at the rails: what clipping leaves in a recording, and a loud voice that does not
/// clip never reaches.
enum Rails {
    /// Within this many steps of full scale (|x| ≥ 32 764) is at the rails: a converter's
    /// dither after the clipping moves a sample a step or two off it.
    static let margin: Int16 = 3

    /// The samples of `samples` at the rails.
    static func count(_ samples: [Int16]) -> Int {
        samples.count(where: { $0 >= Int16.max - margin || $0 <= Int16.min + margin })
    }
}
