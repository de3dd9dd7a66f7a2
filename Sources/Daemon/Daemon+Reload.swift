import Arrival
import Foundation
import Glibc

extension Daemon {
    /// SIGHUP: the config is read again as the start read it (``readConfig``) and applied where
    /// it can be while the daemon runs (``DaemonConfig/reloadableKeys``): the log level, the last
    /// stretch's distance (from the next fix on, for the walk under way too) and the door index
    /// and gazetteer paths (a new one checked as at start). A changed key that only a start
    /// applies is named in one warning, at every reload until the restart. A config that cannot
    /// be read changes nothing: the start's message, as an error. The door indexes and the
    /// gazetteer are opened again in every case (a file restored in place, a log rotator).
    /// One info line says what was done.
    /// - Parameter running: the config in force; what is applied is changed in it.
    static func reload(
        _ readConfig: ConfigReader?, running: inout DaemonConfig, core: inout DaemonCore,
        lookups: DaemonLookups, log: DaemonLog
    ) {
        guard let readConfig else {
            log.info("SIGHUP: \(lookups.reopen())")
            return
        }
        // A pipe (`--config <(…)`, a FIFO) was read to its end at start: reading it again would
        // hold the loop until some writer came.
        var info = stat()
        if let file = running.file, stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO {
            log.info("SIGHUP: the config \(file) is a pipe, read only at start; \(lookups.reopen())")
            return
        }
        let read: DaemonConfig
        do {
            read = try readConfig()
        } catch {
            log.error("SIGHUP: \(error); nothing of it is applied: the daemon runs on as it was")
            log.info("SIGHUP: the config was not applied (the error above); \(lookups.reopen())")
            return
        }
        let changed = running.keysChanged(in: read)
        let before = running
        func change(_ key: String) -> String {
            "\(key) \(before.value(of: key)?.text ?? "") → \(read.value(of: key)?.text ?? "")"
        }
        let atStart = changed.filter { !DaemonConfig.reloadableKeys.contains($0) }
        if !atStart.isEmpty {
            log.warning(
                "SIGHUP: \(atStart.map(change).joined(separator: ", ")): applied only at start; the daemon runs on with "
                    + (atStart.count == 1 ? "the value" : "the values")
                    + " it started with (to apply: systemctl --user restart pathfinder)")
        }
        let applied = changed.filter { DaemonConfig.reloadableKeys.contains($0) }
        let file =
            read.file.map { "config \($0) read" }
            ?? "no config file at \(DaemonConfig.defaultConfigPath(ProcessInfo.processInfo.environment)) (defaults)"
        var summary =
            file + ": "
            + (applied.isEmpty ? "nothing to apply changed" : applied.map(change).joined(separator: ", "))

        core.settings.lastStretchMetres = read.lastStretchMetres
        running.lastStretchMetres = read.lastStretchMetres
        // Another door index or gazetteer is checked as the start checks it: missing, unreadable
        // or no door index is a warning now, not at the next walk.
        let opened = read.doors != running.doors ? DaemonStartup.checkDoors(read.doors, log: log) : nil
        if read.gazetteer != running.gazetteer { DaemonStartup.checkGazetteer(read.gazetteer, log: log) }
        summary += "; " + lookups.reopen(doors: read.doors, gazetteer: read.gazetteer, opened: opened)
        running.doors = read.doors
        running.gazetteer = read.gazetteer
        running.file = read.file
        // The summary at the more detailed of the two levels: a change to `error` still says it.
        if read.logLevel > running.logLevel { log.level = read.logLevel }
        log.info("SIGHUP: " + summary)
        log.level = read.logLevel
        running.logLevel = read.logLevel
    }
}
