/// Watches what the microphone delivers for the two faults no one at the daemon can see: no
/// sound at all (a muted or wrong capture device gives every sample 0; a live microphone
/// always hears a little of the room), and clipping (its gain too high: the walker's answers
/// arrive flattened at full scale); and one of the decoder: audio thrown away because it fell
/// ``Microphone/backlogChunks`` behind; audio the device itself lost, not read in time (an
/// overrun); and a capture device that is no microphone at all, as it delivers audio faster than
/// real time. The daemon logs each change (docs/daemon.md).
public struct MicrophoneHealth: Sendable {
    public enum Fault: String, Sendable {
        case silent, clipping, behind
        /// The device lost audio: it was not read within its buffer (``Microphone/Chunk/lostBefore``).
        case overran
        /// The device delivers audio faster than real time (``CapturePace``); it does not end.
        case fasterThanRealTime
    }

    /// What ``feed(_:)`` noticed: a fault that began, or one that ended.
    public enum Change: Sendable, Equatable {
        case began(Fault)
        case ended(Fault)

        /// The line a log or a terminal shows for it, naming the capture `device`.
        public func message(device: String) -> String {
            switch self {
            case .began(.silent):
                "microphone \(device): no sound at all for \(Int(silentSeconds)) s (every sample 0): muted, or the wrong capture device?"
            case .ended(.silent): "microphone \(device): sound again"
            case .began(.clipping):
                "microphone \(device): clipping (samples at full scale): answers are heard flattened; turn its capture gain down (alsamixer) or move it away from the mouth"
            case .ended(.clipping): "microphone \(device): no clipping for \(Int(clippingClearSeconds)) s"
            case .began(.behind):
                "microphone \(device): the decoder fell \(Microphone.backlogChunks * Microphone.chunkSamples / Listener.sampleRate) s behind; audio is thrown away until it catches up (answers said meanwhile are not heard)"
            case .ended(.behind): "microphone \(device): the decoder caught up"
            case .began(.overran):
                "microphone \(device): audio lost: the capture device was not read within its 100 ms buffer (the system too busy?); an answer said then is not heard"
            case .ended(.overran): "microphone \(device): no audio lost for \(Int(caughtUpSeconds)) s"
            case .began(.fasterThanRealTime):
                "microphone \(device): the capture device delivers audio faster than real time: not a microphone?"
            case .ended(.fasterThanRealTime):
                "microphone \(device): the capture device delivers audio in real time"
            }
        }
    }

    /// Samples within ±`silentAmplitude` are no sound: a capture device's digital silence.
    static let silentAmplitude: Int16 = 2
    /// Seconds of nothing else before it is a fault.
    static let silentSeconds = 10.0
    /// Samples at the rails (``Rails``) within one second that make a fault, as many as make a
    /// take clipped (``TakeCheck/clippedSamples``): the same rule the recorder tells a person by …
    static let clippedSamplesPerSecond = TakeCheck.clippedSamples
    /// … and seconds without any that end it.
    static let clippingClearSeconds = 30.0
    /// Seconds without audio thrown away before the decoder has caught up.
    static let caughtUpSeconds = 10.0

    private let sampleRate: Int
    private var silentSamples = 0
    /// Samples at the rails in the current second, and samples into it.
    private var railsThisSecond = 0, samplesThisSecond = 0
    private var samplesSinceClipping = 0
    private var samplesSinceSkip = 0
    private var samplesSinceLoss = 0
    public private(set) var faults: Set<Fault> = []

    public init(sampleRate: Int = Listener.sampleRate) { self.sampleRate = sampleRate }

    /// Feeds the next samples as captured, with the samples thrown away just before them
    /// (``Microphone/Chunk/skippedBefore``) and whether the device delivered them faster than
    /// real time (``Microphone/Chunk/fasterThanRealTime``), and the samples the device lost just
    /// before them (``Microphone/Chunk/lostBefore``); the faults that began or ended within them.
    public mutating func feed(
        _ samples: [Int16], skippedBefore: Int = 0, fasterThanRealTime: Bool = false, lostBefore: Int = 0
    ) -> [Change] {
        var changes: [Change] = []
        if fasterThanRealTime, !faults.contains(.fasterThanRealTime) {
            faults.insert(.fasterThanRealTime)
            changes.append(.began(.fasterThanRealTime))
        }
        follow(
            .behind, present: skippedBefore > 0, samples: samples.count, since: \.samplesSinceSkip,
            into: &changes)
        follow(
            .overran, present: lostBefore > 0, samples: samples.count, since: \.samplesSinceLoss,
            into: &changes)
        let silent = samples.allSatisfy { abs(Int($0)) <= Int(Self.silentAmplitude) }
        silentSamples = silent ? silentSamples + samples.count : 0
        if silentSamples >= Int(Self.silentSeconds * Double(sampleRate)), !faults.contains(.silent) {
            faults.insert(.silent)
            changes.append(.began(.silent))
        } else if !silent, faults.contains(.silent) {
            faults.remove(.silent)
            changes.append(.ended(.silent))
        }
        let rails = Rails.count(samples)
        railsThisSecond += rails
        samplesThisSecond += samples.count
        // Clipping is a second that clips, not one stray sample at full scale.
        let clipping = rails > 0 && railsThisSecond >= Self.clippedSamplesPerSecond
        samplesSinceClipping = clipping ? 0 : samplesSinceClipping + samples.count
        if clipping, !faults.contains(.clipping) {
            faults.insert(.clipping)
            changes.append(.began(.clipping))
        } else if faults.contains(.clipping),
            samplesSinceClipping >= Int(Self.clippingClearSeconds * Double(sampleRate))
        {
            faults.remove(.clipping)
            changes.append(.ended(.clipping))
        }
        if samplesThisSecond >= sampleRate { railsThisSecond = 0; samplesThisSecond = 0 }
        return changes
    }

    /// A fault of audio that did not come (`behind`, `overran`): it begins with the first chunk
    /// it is `present` in, and ends after ``caughtUpSeconds`` of audio without it (`since`
    /// counts them).
    private mutating func follow(
        _ fault: Fault, present: Bool, samples count: Int, since: WritableKeyPath<Self, Int>,
        into changes: inout [Change]
    ) {
        if present {
            self[keyPath: since] = 0
            if faults.insert(fault).inserted { changes.append(.began(fault)) }
        } else {
            self[keyPath: since] += count
            if faults.contains(fault), self[keyPath: since] >= Int(Self.caughtUpSeconds * Double(sampleRate))
            {
                faults.remove(fault)
                changes.append(.ended(fault))
            }
        }
    }
}
