import Foundation
import Geo

/// Tells the walker's voice from a steady background by loudness: PocketSphinx's detector
/// takes continuous babble or traffic for speech and never ends an utterance, so a pause in
/// the *foreground* (the level falling back to the background's) ends one as well.
struct ForegroundDetector {
    /// How far above the background a 100 ms level must be to count as the foreground (dB).
    static let marginDecibels = 6.0
    /// Blocks (20 ms) of history for the background estimate: 4 s.
    static let historyBlocks = 200
    /// The background is this quantile of the recent 100 ms levels.
    static let backgroundQuantile = 0.2
    /// A level below this (an RMS of 10 in 32 767, −70 dBFS) is a file's digital silence or the
    /// listener's warm-up floor, quieter than any microphone's own noise: no background the
    /// walker stands in, so ``levels`` leaves it out (between digital silence and the fading
    /// end of a word it would look like a background that swings by 5 dB).
    static let audibleDecibels = 20.0
    /// ``backgroundSpread`` needs this many background blocks (1 s) before it says anything.
    static let spreadBlocks = 50

    private var recentPowers: [Double] = []  // the last 5 blocks' mean squares
    private var history = Recent()  // smoothed levels (dB)
    /// The levels (dB) of the last `historyBlocks` blocks that were not foreground: what the
    /// background sounds like between the walker's words.
    private var quiet = Recent()
    /// The levels (dB) of the foreground blocks since ``startUtterance()``.
    private var loud: [Double] = []

    /// Feeds one block; returns whether it is louder than the background by the margin.
    mutating func isForeground(_ block: UnsafeBufferPointer<Int16>) -> Bool {
        guard !block.isEmpty else { return false }
        let power = block.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block.count)
        recentPowers.append(power)
        if recentPowers.count > 5 { recentPowers.removeFirst() }
        let level = 10 * log10(recentPowers.reduce(0, +) / Double(recentPowers.count) + 1)
        history.add(level)
        let background = history.values.sorted().quantile(Self.backgroundQuantile)
        let isForeground = level > background + Self.marginDecibels
        if isForeground {
            loud.append(level)
        } else if level >= Self.audibleDecibels {
            quiet.add(level)  // below it, no background: see `audibleDecibels`
        }
        return isForeground
    }

    /// How much the background between the walker's words fluctuates now (dB, its 80th minus
    /// its 20th percentile, as in ``levels``); `nil` until ``spreadBlocks`` of it were heard.
    var backgroundSpread: Double? {
        guard quiet.values.count >= Self.spreadBlocks else { return nil }
        return Self.spread(of: quiet.values.sorted())
    }

    /// The 80th minus the 20th percentile of `sorted` levels (dB).
    private static func spread(of sorted: [Double]) -> Double { sorted.quantile(0.8) - sorted.quantile(0.2) }

    /// Forgets the foreground levels: an utterance starts.
    mutating func startUtterance() { loud = [] }

    /// The background between the words and the foreground since ``startUtterance()``: the
    /// background's median level, how much it fluctuates (its 80th minus its 20th percentile:
    /// near 0 for a fan or steady noise, several dB for talkers), and the foreground's median
    /// level above the background's (dB). `nil` before any background or foreground block.
    var levels: BackgroundLevels? {
        guard !quiet.values.isEmpty, !loud.isEmpty else { return nil }
        let q = quiet.values.sorted()
        let level = q.quantile(0.5)
        return BackgroundLevels(
            level: level, spread: Self.spread(of: q),
            aboveBackground: loud.sorted().quantile(0.5) - level)
    }
}

/// The last `ForegroundDetector.historyBlocks` values added, in no order once full (each new
/// one replaces the oldest).
private struct Recent {
    private(set) var values: [Double] = []
    private var cursor = 0

    mutating func add(_ value: Double) {
        if values.count < ForegroundDetector.historyBlocks {
            values.append(value)
        } else {
            values[cursor] = value
            cursor = (cursor + 1) % ForegroundDetector.historyBlocks
        }
    }
}

/// What the ``ForegroundDetector`` heard around one utterance (dB).
package struct BackgroundLevels: Sendable, Hashable, Codable {
    /// The background's median 100 ms level between the words.
    package var level: Double
    /// Its 80th minus its 20th percentile.
    package var spread: Double
    /// The utterance's median foreground level minus `level`.
    package var aboveBackground: Double

    package init(level: Double, spread: Double, aboveBackground: Double) {
        self.level = level
        self.spread = spread
        self.aboveBackground = aboveBackground
    }
}
