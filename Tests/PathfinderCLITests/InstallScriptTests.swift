import Foundation
import Glibc
import TestSupport
import Testing

/// `Scripts/install`'s prefix checks, run with `--check` (it stops before building or writing
/// anything, so these never install, run `Scripts/setup` or make a release build).
@Suite struct InstallScriptTests {
    /// Runs `Scripts/install ARGS --check` with `environment`, under `command` (such as `env -u
    /// HOME`) when given: exit status, stdout and stderr.
    func install(
        _ arguments: [String], environment: [String: String], under command: [String] = []
    ) throws -> (
        status: Int32, out: String, err: String
    ) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scripts/install").standardized.path
        // `--check` last: should the script not know it, it stops at the unknown argument.
        let argv = ["-s", "KILL", "30"] + command + ["/bin/bash", script] + arguments + ["--check"]
        var env = ProcessInfo.processInfo.environment
        env["SUDO_USER"] = nil
        env.merge(environment) { $1 }
        let out = try runCapturing("/usr/bin/timeout", argv, standardOutput: true, environment: env)
        let err = try runCapturing("/usr/bin/timeout", argv, environment: env)
        return (err.status, out.text, err.text)
    }

    /// Before: `--prefix=~/.local` (bash expands no `~` after `=`) installed into `./~/.local`,
    /// and a HOME ending in `/` made `~/.local` "outside the home" (a 0755 data folder, and an
    /// existing 0700 one opened to 0755).
    @Test func aTildePrefixIsTheHomeWhateverItsSlashes() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pf-home-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let physicalHome = URL(fileURLWithPath: home).resolvingSymlinksInPath().path
        let result = try install(["--prefix=~/.local"], environment: ["HOME": home + "/"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.out
                == "would install: \(physicalHome)/.local/bin/pathfinder (data: \(physicalHome)/.local/share/pathfinder, inside the home: 0700 when made)\n",
            "\(result)")
    }

    /// A space brought in by a link (or a relative prefix) is refused as one typed is: the
    /// unit's ExecStart= names the path as it is (before: checked on the text given only).
    @Test func aSpaceBehindALinkIsRefused() throws {
        let id = UUID().uuidString.prefix(8)
        let spaced = FileManager.default.temporaryDirectory.appendingPathComponent("pf sp-\(id)").path
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("pf-link-\(id)").path
        try FileManager.default.createDirectory(atPath: spaced, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: spaced)
        defer {
            try? FileManager.default.removeItem(atPath: link)
            try? FileManager.default.removeItem(atPath: spaced)
        }
        let result = try install(["--prefix", link + "/p"], environment: [:])
        #expect(result.status == 2, "\(result)")
        #expect(result.err.contains("a path without spaces"), "\(result)")
        // A trailing newline, which $(…) would drop on the way to the resolved path (before, in
        // this stop: accepted as another folder).
        let newline = try install(["--prefix", "/tmp/pf-nl-\(id)\n"], environment: [:])
        #expect(newline.status == 2 && newline.err.contains("a path without spaces"), "\(newline)")
    }

    /// Before: `~user` was taken literally, like `~/`.
    @Test func anotherUsersTildeIsRefused() throws {
        let result = try install(["--prefix", "~bob/.local"], environment: [:])
        #expect(result.status == 2)
        #expect(result.err.contains("only ~/ (your home) is expanded, not ~user"), "\(result)")
    }

    /// Before: under sudo, a prefix in the user's home was filled with root-owned folders (the
    /// user's daemon could not read its data nor write its memory).
    @Test(.enabled(if: getuid() == 0, "needs root, as sudo gives"))
    func aPrefixInTheUsersHomeIsRefusedUnderSudo() throws {
        // nobody's home is /nonexistent (Debian's passwd).
        let result = try install(["--prefix", "/nonexistent/.local"], environment: ["SUDO_USER": "nobody"])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.err.contains("is inside nobody's home: run Scripts/install as nobody, without sudo"),
            "\(result)")
    }

    /// Before: `~` with no $HOME died on "HOME: unbound variable" (set -u).
    @Test func aTildeWithoutHomeSaysSo() throws {
        let result = try install(
            ["--prefix", "~/.local"], environment: [:], under: ["/usr/bin/env", "-u", "HOME"])
        #expect(result.status == 2, "\(result)")
        #expect(result.err.contains("~ needs $HOME, which is not set"), "\(result)")
    }

    /// Before: getent's failure ended the script under pipefail and set -e: exit 2, nothing said.
    @Test(.enabled(if: getuid() == 0, "needs root, as sudo gives"))
    func aSudoUserWithoutAnAccountIsNamed() throws {
        let result = try install(["--prefix", "/opt/pf"], environment: ["SUDO_USER": "pf-no-such-user"])
        #expect(result.status == 2, "\(result)")
        #expect(result.err == "Scripts/install: SUDO_USER pf-no-such-user: no such user\n", "\(result)")
    }

    /// Before: `--prefix /` installed `//bin/pathfinder`, and the unit's ExecStart= said `//bin`.
    @Test(arguments: ["/", "//"])
    func theRootAsPrefixDoublesNoSlash(prefix: String) throws {
        let result = try install(["--prefix", prefix], environment: ["HOME": "/nonexistent"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.out == "would install: /bin/pathfinder (data: /share/pathfinder, 0755 when made)\n",
            "\(result)")
    }

    /// Before: the root resolved to "", and a home of `/` then held every prefix: HOME=/ made
    /// /usr/local/share/pathfinder 0700 (every other user's daemon denied its data).
    @Test func aHomeOfTheRootHoldsNoPrefix() throws {
        let result = try install([], environment: ["HOME": "/"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.out
                == "would install: /usr/local/bin/pathfinder (data: /usr/local/share/pathfinder, 0755 when made)\n",
            "\(result)")
    }

    /// An account whose home is `/` (Debian's systemd-network, systemd-timesync), if there is one.
    static let userHomedAtTheRoot: String? = {
        setpwent()
        defer { endpwent() }
        while let entry = getpwent() {
            if String(cString: entry.pointee.pw_dir) == "/" { return String(cString: entry.pointee.pw_name) }
        }
        return nil
    }()

    /// Before: under sudo, a SUDO_USER whose home is `/` had every prefix refused as "inside" it.
    @Test(
        .enabled(
            if: getuid() == 0 && userHomedAtTheRoot != nil,
            "needs root, as sudo gives, and an account homed at /"))
    func aSudoUserHomedAtTheRootMayInstall() throws {
        let user = try #require(Self.userHomedAtTheRoot)
        let result = try install(["--prefix", "/opt/pf"], environment: ["SUDO_USER": user])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.out
                == "would install: /opt/pf/bin/pathfinder (data: /opt/pf/share/pathfinder, 0755 when made)\n",
            "\(result)")
    }

    /// Before: `.` and `..` after a missing folder were kept as written (`nope/../u/.local` was
    /// outside u's home, `u/.local/../../u2` with no `.local` inside it), and a `..` after a
    /// symbolic link went back up the link as the shell's `cd` does, not to the target's parent
    /// as the kernel (and `install -d`) would.
    @Test(arguments: [
        ("nope/../u/.local", "u/.local", true),
        ("u/.local/../../u2", "u2", false),
        ("u/./.local/./x/..", "u/.local", true),
        ("u/link/../.local", "b/.local", false),
        ("u/link/x/../../..", "", false),
    ])
    func dotsAreTakenAsMkdirTakesThem(prefix: String, resolved: String, insideTheHome: Bool) throws {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("pf-dots-\(UUID())").path
        try FileManager.default.createDirectory(atPath: top + "/u", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: top + "/b/c", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: top + "/u/link", withDestinationPath: top + "/b/c")
        defer { try? FileManager.default.removeItem(atPath: top) }
        let folder =
            URL(fileURLWithPath: top).resolvingSymlinksInPath().path
            + (resolved.isEmpty ? "" : "/" + resolved)
        let result = try install(["--prefix", top + "/" + prefix], environment: ["HOME": top + "/u"])
        #expect(result.status == 0, "\(result)")
        let mode = insideTheHome ? "inside the home: 0700" : "0755"
        #expect(
            result.out
                == "would install: \(folder)/bin/pathfinder (data: \(folder)/share/pathfinder, \(mode) when made)\n",
            "\(result)")
    }

    /// Before: under sudo, `/pf-no-such-folder/../nonexistent/.local` (in nobody's home) was
    /// not refused.
    @Test(.enabled(if: getuid() == 0, "needs root, as sudo gives"))
    func aPrefixInTheUsersHomeThroughDotsIsRefusedUnderSudo() throws {
        let result = try install(
            ["--prefix", "/pf-no-such-folder/../nonexistent/.local"], environment: ["SUDO_USER": "nobody"])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.err.contains("--prefix /nonexistent/.local is inside nobody's home"), "\(result)")
    }

    /// Runs the script as nobody, with a folder nobody cannot enter (mode 000): before, the
    /// failed `cd` gave "", so a prefix through it became another path (`…/locked/sub/p` was
    /// `/sub/p`, exit 0), and such a home held every prefix ("inside the home: 0700").
    @Test(.enabled(if: getuid() == 0, "needs root, to become nobody"))
    func aFolderThatCannotBeEnteredIsNamed() throws {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("pf-locked-\(UUID())").path
        try FileManager.default.createDirectory(
            atPath: top, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.createDirectory(atPath: top + "/locked", withIntermediateDirectories: false)
        // The root's own permissions would not stop nobody's from mattering: 000 after it is made.
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: top + "/locked")
        defer { try? FileManager.default.removeItem(atPath: top) }
        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

        let through = try install(
            ["--prefix", top + "/locked/sub/p"], environment: ["HOME": "/nonexistent"], under: nobody)
        #expect(through.status == 2, "\(through)")
        #expect(
            through.err
                == "Scripts/install: --prefix \(top)/locked/sub/p: cannot enter the folder \(top)/locked (where the prefix leads is unknown)\n",
            "\(through)")

        // A home in the locked folder kept only its part after it: …/locked/tmp/pf-locked-… was
        // /tmp/pf-locked-…, which held the prefix beside it. Now the home is taken as written.
        let physicalTop = URL(fileURLWithPath: top).resolvingSymlinksInPath().path
        for home in [top + "/locked", top + "/locked" + physicalTop] {
            let beside = try install(["--prefix", top + "/p"], environment: ["HOME": home], under: nobody)
            #expect(beside.status == 0, "\(home): \(beside)")
            #expect(
                beside.out
                    == "would install: \(physicalTop)/p/bin/pathfinder (data: \(physicalTop)/p/share/pathfinder, 0755 when made)\n",
                "\(home): \(beside)")
        }
    }
}
