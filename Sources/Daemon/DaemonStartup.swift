import Diagnostics
import EntranceIndex
import Foundation
import Speech
import Storage

/// What the daemon checks once at start, before anything is written or looked up: the
/// directories Pathfinder owns exist (mode 0700), and every configured file is there — each
/// missing one is a warning now, not a surprise at first use.
enum DaemonStartup {
    /// - Returns: the door indexes as opened here, for the lookups' first use (each of its
    ///   skipped `*.db` files said here, as a warning); nil when there are none to use.
    @discardableResult
    static func check(
        _ config: DaemonConfig, log: DaemonLog,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> DaemonLookups.OpenedDoors? {
        // Which settings are in force: a config file in the wrong place is otherwise invisible.
        if let file = config.file {
            log.info("config file: \(file)")
        } else {
            log.info("no config file at \(DaemonConfig.defaultConfigPath(environment)); defaults")
        }
        // XDG: data (the memory), config, and the socket's runtime directory, made 0700 when
        // missing (a fresh account has no ~/.local/share/pathfinder/).
        let directories = [
            parent(config.memory), parent(DaemonConfig.defaultConfigPath(environment)), parent(config.socket),
        ]
        for directory in Set(directories) {
            do {
                try PrivateDirectory.make(directory)
            } catch {
                log.error("cannot make the directory \(directory): \(error)")
            }
        }
        let opened = checkDoors(config.doors, log: log)
        checkGazetteer(config.gazetteer, log: log)
        if config.mic {
            // Loaded as the microphone will load it, so a model PocketSphinx refuses (a
            // truncated grammar, a bad line in pathfinder.args) is said now, not at the door;
            // so is a fallback to Debian's stock acoustic model.
            do {
                let model = try PhraseModel.locate()
                _ = try Listener(model: model)
                if let warning = model.stockModelWarning {
                    log.warning("microphone \(config.micDevice): \(warning)")
                }
            } catch {
                log.warning("\(error); the microphone cannot hear answers")
            }
        }
        return opened
    }

    /// The door index check of the start (and of a reload naming another): a door index that
    /// cannot be used is a warning, with the real reason.
    /// - Returns: the door indexes as opened, for the lookups' first use; nil when there are none.
    static func checkDoors(_ doors: String?, log: DaemonLog) -> DaemonLookups.OpenedDoors? {
        var opened: DaemonLookups.OpenedDoors?
        if let doors {
            // Opened as the first walk would open it, so an empty directory or a file that is no
            // door index is said now; the reason is the real one ("permission denied", before
            // "no such file" for anything `fileExists` did not see). The first lookup uses what
            // is opened here.
            if let problem = FileDiagnostics.unreadable(doors, directoryAllowed: true) {
                log.warning(
                    "door index \(doors): \(problem); walks go to the remembered doors or the building's centre"
                )
            } else {
                do {
                    opened = try DaemonLookups.open(doors: doors)
                    for skipped in opened?.indexes.skipped ?? [] {
                        log.warning("door index: skipped \(skipped)")
                    }
                } catch {
                    log.warning("\(error); walks go to the remembered doors or the building's centre")
                }
            }
        } else {
            log.warning(
                "no door index (\"doors\") found; walks go to the remembered doors or the building's centre")
        }
        return opened
    }

    /// The gazetteer check of the start (and of a reload naming another): one that cannot be
    /// read is a warning.
    static func checkGazetteer(_ gazetteer: String?, log: DaemonLog) {
        // `go QUERY` still finds the door index's buildings without a gazetteer.
        let without = "`where` cannot name places and `go QUERY` finds only the door index's buildings"
        if let gazetteer {
            if let problem = FileDiagnostics.unreadable(gazetteer) {
                log.warning("gazetteer \(gazetteer): \(problem); \(without)")
            }
        } else {
            log.warning("no gazetteer (\"gazetteer\") found; \(without)")
        }
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
