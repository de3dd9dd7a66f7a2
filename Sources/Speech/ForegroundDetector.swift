import Foundation

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

    private var recentPowers: [Double] = []  // the last 5 blocks' mean squares
    private var history: [Double] = []  // smoothed levels (dB), oldest first
    private var cursor = 0

    /// Feeds one block; returns whether it is louder than the background by the margin.
    mutating func isForeground(_ block: UnsafeBufferPointer<Int16>) -> Bool {
        guard !block.isEmpty else { return false }
        let power = block.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block.count)
        recentPowers.append(power)
        if recentPowers.count > 5 { recentPowers.removeFirst() }
        let level = 10 * log10(recentPowers.reduce(0, +) / Double(recentPowers.count) + 1)
        if history.count < Self.historyBlocks {
            history.append(level)
        } else {
            history[cursor] = level
            cursor = (cursor + 1) % Self.historyBlocks
        }
        let sorted = history.sorted()
        let background = sorted[Int(Double(sorted.count - 1) * Self.backgroundQuantile)]
        return level > background + Self.marginDecibels
    }
}
