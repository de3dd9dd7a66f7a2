import Daemon
import Foundation
import Testing

@testable import PathfinderCLI

@Suite("Hand-written argument parsing")
struct ArgumentsTests {
    @Test func optionsFlagsAndPositionals() throws {
        var a = Arguments(["60.1", "--db", "x.db", "--json", "--radius=40", "24.9"], command: "pathfinder t")
        #expect(try a.option("--db") == "x.db")
        #expect(try a.option("--radius", expected: "metres") { Double($0) } == 40)
        #expect(try a.flag("--json"))
        #expect(try !a.flag("--missing"))
        #expect(a.positionals() == ["60.1", "24.9"])
        try a.finish()
    }

    /// `daemon --gpsd` over a config file whose "nmea" names a receiver: the flag wins, as
    /// every flag does (before, the file's receiver was read and the flag ignored unsaid).
    @Test func daemonGPSDFlagOverridesTheFilesReceiver() throws {
        let file = NSTemporaryDirectory() + "pf-config-\(UUID().uuidString).json"
        try #"{"nmea": "/dev/ttyACM0", "baro": "none"}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var flags = Arguments(["--config", file, "--gpsd", "127.0.0.1:2948"], command: "pathfinder daemon")
        let config = try Commands.daemonConfig(from: &flags, environment: [:])
        #expect(config.nmea == nil)
        #expect(config.gpsd.description == "127.0.0.1:2948")
        var without = Arguments(["--config", file], command: "pathfinder daemon")
        #expect(try Commands.daemonConfig(from: &without, environment: [:]).nmea == "/dev/ttyACM0")
    }

    @Test func negativeNumbersArePositionals() throws {
        var a = Arguments(["-33.9", "151.2"], command: "pathfinder where")
        #expect(a.positionals() == ["-33.9", "151.2"])
        try a.finish()
    }

    @Test func dashDashEndsOptions() throws {
        var a = Arguments(["--", "--json"], command: "c")
        #expect(try !a.flag("--json"))
        #expect(a.positionals() == ["--json"])
        try a.finish()
    }

    @Test(
        "usage errors name the argument",
        arguments: [
            (["--db"], "needs a value"),
            (["--db", "a", "--db", "b"], "given twice"),
            (["--nope"], "unknown argument \"--nope\""),
            (["--radius", "far"], "\"far\" is not metres"),
        ])
    func usageErrors(argv: [String], message: String) {
        var a = Arguments(argv, command: "pathfinder t")
        #expect {
            _ = try a.option("--db")
            _ = try a.option("--radius", expected: "metres") { Double($0) }
            try a.finish()
        } throws: { error in
            guard let error = error as? CLIError, case .usage(let text) = error else { return false }
            return text.contains(message) && text.hasPrefix("pathfinder t:") && error.exitCode == 2
        }
    }

    @Test func requiredOptionMissing() {
        var a = Arguments([], command: "pathfinder plan")
        #expect(throws: CLIError.usage("pathfinder plan: --destination is required")) {
            try a.required("--destination")
        }
    }

    @Test(arguments: [
        ("60.17,24.94", true), ("60.17, 24.94", true), ("91,0", false), ("60.17", false), ("a,b", false),
    ])
    func coordinates(text: String, valid: Bool) {
        #expect((Arguments.coordinate(text) != nil) == valid)
    }
}

@Suite("The pathfinder program")
struct ProgramTests {

    /// No command is a usage error: the overview goes to stderr, as `pathfinder fly`'s message
    /// does (before, to stdout with exit 2). Asked for, it is the answer: stdout, exit 0.
    @Test func noArgumentsPrintsOverviewOnStderrAndExits2() async {
        let (code, out, err) = await runPathfinder([])
        #expect(code == 2)
        #expect(out.isEmpty, "\(out)")
        #expect(err.contains("Commands:") && err.contains("Usage: pathfinder <command>"), "\(err)")
        for asked in ["--help", "-h", "help"] {
            let (helpCode, helpOut, helpErr) = await runPathfinder([asked])
            #expect(helpCode == 0)
            #expect(helpOut.contains("Commands:"), "\(asked)")
            #expect(helpErr.isEmpty, "\(asked): \(helpErr)")
        }
    }

    /// Before, `pathfinder help daemon` printed the overview, and the help texts disagreed
    /// with what the commands do: replay's `--doors` takes a directory too, SIGHUP does not stop
    /// the daemon (it opens its indexes again), listen finds its model in the data directory, demo takes --last-stretch-metres.
    @Test func helpTextsSayWhatTheCommandsDo() async {
        let (code, out, err) = await runPathfinder(["help", "daemon"])
        #expect(code == 0 && err.isEmpty)
        #expect(out.hasPrefix("Usage: pathfinder daemon"), "\(out)")
        #expect(out.contains("Runs until SIGTERM or SIGINT; SIGHUP opens the door indexes"), "\(out)")
        let unknown = await runPathfinder(["help", "fly"])
        #expect(unknown.code == 2 && unknown.err.contains("unknown command \"fly\""))
        #expect((await runPathfinder(["replay", "--help"])).out.contains("[--doors DB|DIR | --osm FILE]"))
        #expect((await runPathfinder(["listen", "--help"])).out.contains("$PATHFINDER_DATA/models"))
        let demo = await runPathfinder(["demo", "--help"]).out
        #expect(demo.split(separator: "\n").first?.contains("[--last-stretch-metres M]") == true, "\(demo)")
    }

    @Test func unknownCommandExits2() async {
        let (code, _, err) = await runPathfinder(["fly"])
        #expect(code == 2)
        #expect(err.contains("unknown command \"fly\""))
    }

    @Test func everyCommandHasHelp() async {
        for command in Pathfinder.commands {
            let (code, out, _) = await runPathfinder([command.name, "--help"])
            #expect(code == 0)
            #expect(out.contains("Usage: pathfinder \(command.name)"), "help of \(command.name)")
        }
    }

    @Test(
        arguments: [
            (["여기", "아니야"], "notHere"), (["여기가 입구야"], "thisIsIt"), (["안녕"], "none"),
            (["여기 맞아? 아니, 입구 아니야"], "notHere"),
        ])
    func words(argv: [String], expected: String) async {
        let (code, out, _) = await runPathfinder(["words"] + argv)
        #expect(code == 0)
        #expect(out == expected + "\n")
    }

    @Test func wordsWithoutTextIsUsage() async {
        let (code, _, err) = await runPathfinder(["words"])
        #expect(code == 2)
        #expect(err.contains("expected TEXT"))
    }
}
