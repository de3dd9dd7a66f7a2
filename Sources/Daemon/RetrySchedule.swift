/// When a write that failed (a full disk, a read-only folder) is tried again: soon after the
/// failure of a new change, then twice as long after each failed retry, never further apart
/// than ``maxSeconds``: the memory's (``MemoryKeeper``) and the walk file's (``WalkKeeper``),
/// both checked on the loop, at least at its 1 s tick.
struct RetrySchedule {
    /// The first retry comes this long after a failed write: a disk filled for a moment (a
    /// download, a log burst) is written again soon.
    static let firstSeconds = 2.0
    /// Retries never come further apart: each is a few bytes' write or a refused open.
    static let maxSeconds = 30.0

    /// The next retry; nil while nothing waits to be written.
    private(set) var next: ContinuousClock.Instant?
    private var seconds = RetrySchedule.firstSeconds

    /// A new change's write failed: retried soon.
    mutating func changeFailed(now: ContinuousClock.Instant) {
        seconds = Self.firstSeconds
        next = now + .seconds(seconds)
    }

    /// A retry failed: the wait doubles.
    mutating func retryFailed(now: ContinuousClock.Instant) {
        seconds = min(seconds * 2, Self.maxSeconds)
        next = now + .seconds(seconds)
    }

    /// Written: nothing to retry.
    mutating func written() {
        next = nil
        seconds = Self.firstSeconds
    }

    /// Whether a retry is due at `now`.
    func isDue(now: ContinuousClock.Instant) -> Bool {
        next.map { now >= $0 } ?? false
    }
}
