internal import CNoiseSuppression
import Foundation

/// WebRTC's noise suppression in front of the decoders, only while the background is steady
/// (``Listener/Policy/noiseSuppression``; `"noiseSuppression"` in `operating-point.json`).
/// It hears white noise and a fan better and talkers behind the walker worse: the
/// ``ForegroundDetector``'s background spread tells the two apart (docs/speech.md, "Noise
/// suppression in steady noise").
public struct NoiseSuppression: Sendable, Hashable, Codable {
    /// WebRTC's level: 0 mild, 1 moderate, 2 high, 3 very high.
    public var level: Int
    /// The decoders hear the suppressed audio while the background's spread (dB, the 80th minus
    /// the 20th percentile of its 100 ms levels) is below this; 0: never.
    public var belowSpread: Double

    /// The levels WebRTC has.
    public static let levels = 0...3
    /// The spreads a gate may be set at (dB): talkers behind the walker swing by 3–5 dB.
    public static let spreadRange = 0.0...20.0

    public init(level: Int, belowSpread: Double) {
        self.level = level
        self.belowSpread = belowSpread
    }

    /// What is wrong with `level` and `belowSpread` in words ("level 4 is not …"), or nil when
    /// both are in range: `operating-point.json` and `VoiceEval --noise-suppression` say the same.
    public static func problem(level: Int, belowSpread: Double) -> String? {
        if !levels.contains(level) {
            return "level \(level) is not a WebRTC level from \(levels.lowerBound) to \(levels.upperBound)"
        }
        if !spreadRange.contains(belowSpread) {
            return
                "belowSpread \(belowSpread) is not a spread from 0 (never) to \(spreadRange.upperBound) dB"
        }
        return nil
    }

    /// Whether it ever runs.
    public var isOn: Bool { belowSpread > 0 }

    /// In words, as ``OperatingPoint/decoderSummary`` prints it.
    var summary: String {
        "noise suppressed (WebRTC level \(level)) while the background's spread is below \(belowSpread) dB"
    }
}

/// One WebRTC noise suppressor: its noise estimate learns from every sample it is given.
/// Not thread-safe: own it where its Listener is owned.
package final class NoiseSuppressor {
    private let handle: OpaquePointer
    /// Samples in one of WebRTC's frames (10 ms).
    static let frame = Int(PATHFINDER_NS_FRAME)

    /// - Throws: `SpeechError.noiseSuppression` when WebRTC refuses the level.
    package init(level: Int) throws(SpeechError) {
        guard let handle = pathfinder_ns_create(Int32(level)) else {
            throw .noiseSuppression("level \(level) refused (expected 0 to 3)")
        }
        self.handle = handle
    }

    deinit { pathfinder_ns_destroy(handle) }

    /// `samples` with the noise suppressed, as many as given: a last frame that is not whole is
    /// padded with silence and cut back.
    package func process(_ samples: [Int16]) throws(SpeechError) -> [Int16] {
        var out = samples
        let whole = (samples.count + Self.frame - 1) / Self.frame * Self.frame
        out += [Int16](repeating: 0, count: whole - samples.count)
        let status = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            for start in stride(from: 0, to: whole, by: Self.frame) {
                let status = pathfinder_ns_process(handle, buffer.baseAddress! + start)
                if status != 0 { return status }
            }
            return 0
        }
        guard status == 0 else { throw .noiseSuppression("a frame failed (error \(status))") }
        return Array(out[..<samples.count])
    }
}
