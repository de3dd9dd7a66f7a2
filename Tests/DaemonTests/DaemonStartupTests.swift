import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// What the daemon and its clients make of the files they are given, run as the service
/// manager and a user run them: the built binary in a subprocess.
@Suite(.serialized) struct DaemonStartupTests {
    /// Runs `pathfinder ARGS` to its end with `environment` over this process's.
    private func run(
        _ arguments: [String], environment: [String: String]
    ) throws -> (status: Int32, out: String, err: String) {
        try DaemonProcess.runBinary(arguments, environment: environment)
    }

    /// Writes `text` as the default config file under `home` (`~/.config/pathfinder/config.json`).
    private func writeDefaultConfig(_ text: String, home: String) throws {
        try FileManager.default.createDirectory(
            atPath: home + "/.config/pathfinder", withIntermediateDirectories: true)
        try text.write(toFile: home + "/.config/pathfinder/config.json", atomically: true, encoding: .utf8)
    }

    /// Before: `pathfinder status` loaded the whole default config, so a bad `"baro"` in it
    /// (exit 2) or a file that is not JSON stopped every client command from reaching a
    /// healthy daemon; and "not running" said `pathfinder: …`, not `pathfinder status: …`.
    @Test func clientCommandsReadOnlyTheSocketFromTheDefaultConfig() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess.listening(in: dir)
        let env = ["HOME": dir.path, "XDG_RUNTIME_DIR": dir.path]

        // Only "socket" matters to a client; the rest is the daemon's to refuse.
        try writeDefaultConfig(#"{"socket": "pf.sock", "baro": "sonar"}"#, home: dir.path + "/h")
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/h/.config/pathfinder/pf.sock", withDestinationPath: daemon.socket)
        let status = try run(["status"], environment: env.merging(["HOME": dir.path + "/h"]) { $1 })
        #expect(status.status == 0, "\(status)")
        #expect(status.err.isEmpty, "\(status)")

        // Not JSON at all: said on stderr, and the default socket ($XDG_RUNTIME_DIR's) is used.
        try writeDefaultConfig("socket = /tmp/x", home: dir.path)
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/pathfinder.sock", withDestinationPath: daemon.socket)
        let broken = try run(["status"], environment: env)
        #expect(broken.status == 0, "\(broken)")
        #expect(
            broken.err.hasPrefix(
                "pathfinder status: warning: \(dir.path)/.config/pathfinder/config.json: not a JSON object; using the default socket \(dir.path)/pathfinder.sock"
            ), "\(broken)")

        let nobody = try run(["stop", "--socket", dir.path + "/none.sock"], environment: env)
        #expect(nobody.status == 1)
        #expect(nobody.err.hasPrefix("pathfinder stop: "), "\(nobody)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Before: `fileExists` was false for a folder that cannot be entered, and the default
    /// config was skipped without a word (the daemon ran on defaults); now it is a config file
    /// that cannot be read: exit 2 naming it and why.
    @Test func aDefaultConfigThatCannotBeReachedIsAnErrorNotDefaults() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let locked = dir.path + "/locked"
        try FileManager.default.createDirectory(
            atPath: locked + "/pathfinder", withIntermediateDirectories: true)
        try #"{"mic": false}"#.write(
            toFile: locked + "/pathfinder/config.json", atomically: true, encoding: .utf8)
        #expect(chown(locked, DaemonProcess.unprivileged, DaemonProcess.unprivileged) == 0)
        #expect(chmod(locked, 0o700) == 0)
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--gpsd", "127.0.0.1:29471", "--speak-wav", dir.path + "/wav",
            ],
            socket: dir.path + "/pf.sock", dir: dir, environment: ["XDG_CONFIG_HOME": locked],
            asUnprivileged: true)
        #expect(daemon.waitForExit() == 2, "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains(
                "\(locked)/pathfinder/config.json: cannot read the config file: permission denied"),
            "\(daemon.stderr)")
    }

    /// Before: "no such file" for a door index and gazetteer in a folder that cannot be entered
    /// (`fileExists` false), nothing at start for a gazetteer that is a directory or a door
    /// index directory with no index in it (found at the first `go`), and no word of which
    /// config file was read.
    @Test func startUpSaysWhyEachFileCannotBeUsed() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let locked = dir.path + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        for name in ["doors.db", "gazetteer.sqlite"] {
            _ = FileManager.default.createFile(atPath: locked + "/" + name, contents: Data())
        }
        #expect(chown(locked, DaemonProcess.unprivileged, DaemonProcess.unprivileged) == 0)
        #expect(chmod(locked, 0o700) == 0)
        let config = try DaemonProcess.writeConfig(dir)
        let unreachable = try DaemonProcess(
            arguments: [
                "--config", config, "--doors", locked + "/doors.db", "--gazetteer",
                locked + "/gazetteer.sqlite",
            ],
            socket: dir.path + "/pf.sock", dir: dir, asUnprivileged: true)
        try #require(unreachable.waitUntilListening(), "\(unreachable.stderr)")
        #expect(
            unreachable.stderr.contains("<4>warning: door index \(locked)/doors.db: permission denied"),
            "\(unreachable.stderr)")
        #expect(
            unreachable.stderr.contains(
                "<4>warning: gazetteer \(locked)/gazetteer.sqlite: permission denied"),
            "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("<6>info: config file: \(config)"), "\(unreachable.stderr)")
        unreachable.signal(SIGTERM)
        #expect(unreachable.waitForExit() == 0)

        let empty = dir.path + "/no-indexes"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let folders = try DaemonProcess(
            arguments: ["--config", config, "--doors", empty, "--gazetteer", empty],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(folders.waitUntilListening(), "\(folders.stderr)")
        #expect(
            folders.stderr.contains(
                "<4>warning: \(empty): not a door index: a directory with no *.db file"),
            "\(folders.stderr)")
        #expect(
            folders.stderr.contains("<4>warning: gazetteer \(empty): is a directory, not a file"),
            "\(folders.stderr)")
        folders.signal(SIGTERM)
        #expect(folders.waitForExit() == 0)
    }

    /// The door indexes the start-up check opens are the ones the first lookup uses: a stray
    /// `*.db` is warned about at start, once, and not again at the first `go`; an index made
    /// unreadable after the start (its `*.db` otherwise unchanged) still answers, as it is
    /// open (before: the first lookup opened them all again, "permission denied" for it, and
    /// the stray file's warning came only then).
    @Test func theDoorIndexesOpenedAtStartAnswerTheFirstLookup() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try FileManager.default.createDirectory(atPath: doors, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: GoQueryTests.repo + "/artifacts/doors/helsinki.db", toPath: doors + "/helsinki.db")
        #expect(FileManager.default.createFile(atPath: doors + "/notes.db", contents: Data()))
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--doors", doors],
            socket: dir.path + "/pf.sock", dir: dir, asUnprivileged: true)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        let skipped = "<4>warning: door index: skipped \(doors)/notes.db: not a door index"
        #expect(daemon.stderr.components(separatedBy: skipped).count == 2, "\(daemon.stderr)")
        // Unreadable now; inode, size and time unchanged, so nothing tells the daemon to open
        // it again.
        #expect(chmod(doors + "/helsinki.db", 0o000) == 0)
        let client = try daemon.client()
        let go = fields(try client.request(#"{"cmd": "go", "query": "Kaivokatu"}"#))
        #expect(go["ok"] == .bool(true), "\(go)\n\(daemon.stderr)")
        #expect(go["match"]?.objectValue?["osm"] == "way/8033120", "\(go)")
        #expect(daemon.stderr.components(separatedBy: skipped).count == 2, "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("opened again"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// The paths of the files `pid` holds open, as `/proc/PID/fd` shows them (a deleted file
    /// ends in " (deleted)").
    static func openFiles(_ pid: Int32) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
    }

    /// A door index imported again in place (`doors import --out same.db` renames the new file
    /// over it) while no lookup comes — walks planned from remembered doors ask none — is let
    /// go by the daemon's own check: no descriptor holds the replaced, deleted file (its disk
    /// space is given back), the log says so once, and the next `go` finds the new index's
    /// building. Before: only a lookup looked for a change, and the set the start-up check
    /// opened was held besides for the daemon's life, so the replaced file stayed open.
    @Test func aDoorIndexReplacedInPlaceIsLetGoWithoutALookup() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let doors = dir.path + "/doors"
        try DaemonLookupsTests.importRegion(
            "hall", [(60.17, 24.94, "Vanha Talo")], dir: dir.path, doors: doors)
        let daemon = try DaemonProcess(
            arguments: ["--config", try DaemonProcess.writeConfig(dir), "--doors", doors],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        let index = doors + "/hall.db"
        #expect(Self.openFiles(daemon.pid).contains(index), "\(Self.openFiles(daemon.pid))")

        try DaemonLookupsTests.importRegion(
            "hall", [(60.18, 24.95, "Uusi Talo")], dir: dir.path, doors: doors)
        var held = Self.openFiles(daemon.pid)
        for _ in 0..<300 where held.contains(index + " (deleted)") || !held.contains(index) {
            usleep(100_000)
            held = Self.openFiles(daemon.pid)
        }
        #expect(!held.contains(index + " (deleted)"), "the replaced index is still open: \(held)")
        #expect(held.filter { $0 == index }.count == 1, "the new index is open once: \(held)")
        let opened = "<6>info: door index \(doors): its files changed; opened again"
        #expect(daemon.stderr.components(separatedBy: opened).count == 2, "\(daemon.stderr)")

        let go = fields(try daemon.client().request(#"{"cmd": "go", "query": "Uusi Talo"}"#))
        #expect(go["ok"] == .bool(true), "\(go)\n\(daemon.stderr)")
        #expect(go["match"]?.objectValue?["name"] == "Uusi Talo", "\(go)")
        #expect(
            daemon.stderr.components(separatedBy: opened).count == 2, "not opened again: \(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Before: the daemon started and logged nothing of its config file; with none at the
    /// default path it said nothing either.
    @Test func withoutAConfigFileTheDaemonSaysWhereItLooked() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", dir.path + "/pf.sock", "--memory", dir.path + "/memory.json", "--no-mic",
                "--baro", "none", "--gpsd", "127.0.0.1:29471", "--speak-wav", dir.path + "/wav",
            ],
            socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains(
                "<6>info: no config file at \(dir.path)/.config/pathfinder/config.json; defaults"),
            "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Before: a config's `"memory": "~/pf/memory.json"` made a folder literally named `~` in
    /// the daemon's working directory, and a relative path meant a different file from a
    /// terminal than under systemd. Now `~/` is $HOME and a relative path is from the file's
    /// folder, whatever the working directory.
    @Test func pathsInTheConfigFileAreFromHomeAndTheFilesFolder() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let home = dir.path + "/home"
        let elsewhere = dir.path + "/cwd"
        for folder in [home, elsewhere, dir.path + "/etc"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let config = dir.path + "/etc/config.json"
        try """
        {"socket": "../pf.sock", "memory": "~/pf/memory.json", "mic": false, "speakWav": "wav",
         "gpsd": "127.0.0.1:29471", "baro": "none"}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--config", config], socket: dir.path + "/pf.sock", dir: dir,
            environment: ["HOME": home], workingDirectory: elsewhere)
        try #require(daemon.waitUntilListening(), "\(daemon.stderr)")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: home + "/pf", isDirectory: &isDirectory))
        #expect(isDirectory.boolValue, "the memory's folder, made at start")
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/~"), "no folder named ~")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
