import Arrival
import Foundation
import Storage

/// The walk under way, kept in the walk file beside the memory (``WalkFile``) so that a daemon
/// stopped mid-walk resumes it at its next start. Written only when the walk changes (a `go`,
/// its end); used only on the loop.
final class WalkKeeper {
    /// Where the walk file is: beside the memory file, a link followed
    /// (``WalkFile/path(forMemory:)``); looked up again at each write, so a memory file turned
    /// into a link to another folder while the daemon runs takes its walk file there, where
    /// the next start looks (before, audit 11 A11-3, it stayed beside the link and a restart
    /// mid-walk resumed nothing).
    private(set) var path: String
    /// The memory file as configured.
    private let memory: String
    private let log: DaemonLog
    /// What the file on disk holds, as last written, read or left by a failure; nil: no file
    /// (or an empty one). The warnings say what a restart resumes from this.
    private var onDisk: ActiveWalk?
    /// The walk last asked for, written or not: tried at once, not again at every input.
    private var wanted: ActiveWalk?
    /// Set while the file does not hold ``wanted`` (its write or removal failed): tried again
    /// (``retryIfDue(now:)``) on the memory's schedule. Before (audit 8 A8-2), a walk
    /// file that could not be written at `go` (a full disk) was never tried again, and a crash
    /// later in the walk, the disk long freed, resumed nothing.
    private var unwritten = false
    private var retry = RetrySchedule()

    init(memory: String, log: DaemonLog) {
        path = WalkFile.path(forMemory: memory)
        self.memory = memory
        self.log = log
    }

    /// At start: the walk a stopped daemon was leading, if it began within
    /// ``ActiveWalk/resumeWithin`` of `now`. An older one is logged and its file removed; a
    /// file that is no walk is set aside (``WalkFile/load(path:now:)``), logged, never fatal.
    func walkToResume(now: Date) -> ActiveWalk? {
        switch WalkFile.load(path: path, now: now) {
        case .none:
            return nil
        case .unreadable(let message), .setAside(let message):
            log.warning("\(message); no walk resumed")
            return nil
        case .walk(let walk):
            let begun = Date.ISO8601FormatStyle().format(walk.since)
            let name = walk.destination.name
            // Within the boot it began in, its age by the boot clock: immune to the wall
            // clock's steps; after a reboot, by the wall clock.
            let boot = BootClock.now()
            let age: TimeInterval
            if let boot, let id = walk.bootID, let seconds = walk.bootSeconds, id == boot.id {
                age = boot.seconds - seconds
            } else {
                age = now.timeIntervalSince(walk.since)
            }
            guard age <= ActiveWalk.resumeWithin else {
                log.info(
                    "not resuming the walk to \(name) begun at \(begun): more than \(Int(ActiveWalk.resumeWithin / 3600)) h ago"
                )
                onDisk = walk
                wanted = walk
                keep(nil)
                return nil
            }
            // A start after now: the clock was set back since (a Pi without a real-time clock,
            // booted again); how long ago the walk was is not known.
            guard age >= -Self.clockSlackSeconds else {
                log.info(
                    "not resuming the walk to \(name) begun at \(begun): after the clock's now (set back?)")
                onDisk = walk
                wanted = walk
                keep(nil)
                return nil
            }
            onDisk = walk
            wanted = walk
            // Both reasons leave the same file (one kept for an unsaved answer cannot be marked so
            // on the full or read-only disk that lost the answer): both are said (before, only the
            // first, also when the walk had ended and is resumed to ask its answer again).
            log.info(
                "resuming the walk to \(name) begun at \(begun): the daemon stopped during it or before the answer given at its door was saved"
            )
            return walk
        }
    }

    /// A walk begun up to this many seconds after the clock's now still counts as just begun:
    /// NTP's small steps.
    static let clockSlackSeconds = 60.0

    /// Set when the memory save after the walk ended failed (cleared by a later save that
    /// succeeded, or a new walk): the walk file is then not removed, so a restart resumes the
    /// walk and asks again instead of losing both the answer and the walk.
    var answerUnsaved = false
    /// The ended walk whose file is kept for ``answerUnsaved`` (logged once).
    private var held: ActiveWalk?

    /// Whether the file may be written now: not while another daemon holds the memory's folder
    /// (``MemoryKeeper/holdsMemory``), whose own walk file it is. What is not written then is
    /// written at the first `keep` after.
    var mayWrite: () -> Bool = { true }

    /// Makes the file hold `walk` (none: removed), when that is not what it holds.
    func keep(_ walk: ActiveWalk?, now: ContinuousClock.Instant = .now) {
        guard mayWrite() else { return }
        if walk != nil { answerUnsaved = false }
        // The same walk as asked for (a resumed one keeps the boot it began in): nothing new to
        // write; what failed to be written is tried again when due.
        if let walk, walk.isSameWalk(as: wanted) { return retryIfDue(now: now) }
        guard walk != nil || wanted != nil else { return retryIfDue(now: now) }
        var walk = walk
        if walk != nil, let boot = BootClock.now() {
            walk?.bootID = boot.id
            walk?.bootSeconds = boot.seconds
        }
        if walk == nil, answerUnsaved, let ended = wanted {
            if held != ended {
                held = ended
                if ended.isSameWalk(as: onDisk) {
                    log.warning(
                        "walk file \(path) kept: the memory was not saved; a restart resumes the walk to "
                            + "\(ended.destination.name) and asks again")
                } else {
                    log.warning(
                        "walk file \(path): the memory was not saved, and no walk file holds the walk to "
                            + "\(ended.destination.name) (it could not be written): a restart will not resume it"
                    )
                }
            }
            return retryIfDue(now: now)
        }
        wanted = walk
        write(walk, now: now)
    }

    /// The walk file's path looked up again (``path``): the file at the old one, when it moved
    /// and one was written there, to remove once the new one holds the walk.
    private func follow() -> String? {
        let current = WalkFile.path(forMemory: memory)
        guard current != path else { return nil }
        let old = path
        path = current
        log.info("walk file now \(current): the memory file \(memory) leads there")
        return onDisk == nil && !unwritten ? nil : old
    }

    /// Removes the walk file left at `old`, a path it had before the memory file became a link
    /// (or stopped being one): a later start there would resume a walk that has moved.
    private func removeLeft(_ old: String) {
        do {
            try WalkFile.remove(path: old)
            log.info("walk file \(old) removed: the walk is kept in \(path)")
        } catch {
            log.warning("walk file \(old): \(error); left there (the walk is kept in \(path))")
        }
    }

    /// Writes the walk file again when its write failed and the retry is due: checked at each
    /// ``keep(_:now:)``, which the loop calls after every input, its 1 s tick included, once the
    /// memory's outcomes are handed over. A failed retry is logged at debug only: the first
    /// failure's warning said what a restart does meanwhile.
    private func retryIfDue(now: ContinuousClock.Instant) {
        guard unwritten, retry.isDue(now: now) else { return }
        write(wanted, now: now, retrying: true)
    }

    /// Makes the file hold `walk` (none: removes it); a failure is retried on the tick.
    private func write(_ walk: ActiveWalk?, now: ContinuousClock.Instant, retrying: Bool = false) {
        let left = follow()
        do {
            if let walk {
                try WalkFile.save(walk, path: path)
            } else {
                try WalkFile.remove(path: path)
            }
            let name = walk?.destination.name
            // After all: a walk written, or a file that held one removed. A write that failed
            // and left no file leaves nothing to remove (before, audit 9 A9-5, "removed after
            // all" of a file that never was).
            if unwritten, walk != nil || onDisk != nil {
                log.info(
                    "walk file \(path) "
                        + (name.map { "written after all: a restart resumes the walk to \($0)" }
                            ?? "removed after all"))
            } else {
                log.debug("walk file \(path): " + (name.map { "the walk to \($0)" } ?? "removed (no walk)"))
            }
            onDisk = walk
            unwritten = false
            retry.written()
            // Only once the new file holds the walk: a failed write keeps the old one.
            left.map(removeLeft)
        } catch {
            if retrying {
                retry.retryFailed(now: now)
                log.debug("walk file: \(error); trying again")
                return
            }
            retry.changeFailed(now: now)
            // Not removed or replaced: emptied in place, a restart then resumes nothing.
            do {
                if try WalkFile.empty(path: path) {
                    log.warning(
                        "walk file: \(error); emptied it in place: a restart will not resume "
                            + (walk == nil ? "the walk that ended" : "this walk"))
                } else if walk != nil {
                    log.warning(
                        "walk file: \(error); there is no walk file: a restart will not resume this walk")
                } else {
                    log.debug("walk file: \(error); there is no walk file: a restart resumes no walk")
                }
                onDisk = nil
            } catch let emptying {
                // The file is as it was: it holds what it held.
                let old = onDisk.map { "the walk to \($0.destination.name)" }
                log.warning(
                    "walk file: \(error); could not empty it either (\(emptying)): "
                        + (old.map {
                            "a restart within \(Int(ActiveWalk.resumeWithin / 3600)) h would resume \($0)"
                        }
                            ?? "a restart would resume no walk")
                        + (walk == nil ? "" : ", not this one"))
            }
            // A walk not written is tried again; a removal is done when the file is gone or empty.
            unwritten = walk != nil || onDisk != nil
        }
    }
}
