import Foundation

/// One `pathfinder` command: its name, one-line summary, help text and body.
package struct Command: Sendable {
    package typealias Body = @Sendable (_ arguments: Arguments, _ console: Console) async throws -> Int32

    /// The first word(s) after `pathfinder` ("plan", "memory").
    package let name: String
    /// One line for `pathfinder --help`.
    package let summary: String
    /// The whole `--help` text: usage lines, then what each option means.
    package let help: String
    /// Runs the command; returns the exit code. Throws `CLIError` for usage (2) and runtime
    /// (1) failures; any other error is a runtime failure.
    package let body: Body

    package init(name: String, summary: String, help: String, body: @escaping Body) {
        self.name = name
        self.summary = summary
        self.help = help
        self.body = body
    }
}

/// The `pathfinder` program, callable in-process (tests) and from `main.swift`.
package enum Pathfinder {
    /// Every command, in the order `--help` lists them. Each lives in its own file as a
    /// static property of `Commands`.
    package static let commands: [Command] = [
        Commands.words,
        Commands.plan,
        Commands.memory,
        Commands.replay,
        Commands.demo,
        Commands.daemon,
        Commands.go,
        Commands.status,
        Commands.stop,
        Commands.heardClient,
        Commands.fixes,
        Commands.doors,
        Commands.gazetteer,
        Commands.search,
        Commands.whereCommand,
        Commands.listen,
        Commands.say,
        Commands.record,
    ]

    package static var overview: String {
        let width = commands.map(\.name.count).max() ?? 0
        let lines = commands.map {
            "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)"
        }
        return """
            pathfinder — offline, voice-driven arrival assistant: leads a walker to the right door.

            Usage: pathfinder <command> [options]   (pathfinder <command> --help for more)

            Commands:
            \(lines.joined(separator: "\n"))

            Exit codes: 0 ok, 1 failure at run time, 2 usage or bad input.
            """
    }

    /// Runs `pathfinder` with `argv` (without the program name); returns the exit code.
    package static func main(_ argv: [String], console: Console) async -> Int32 {
        guard let name = argv.first else {
            // No command is a usage error: its text goes where every usage error's does.
            console.error(overview)
            return 2
        }
        if name == "--help" || name == "-h" || name == "help" {
            // `pathfinder help daemon` is `pathfinder daemon --help` (before, the overview).
            if name == "help", argv.count > 1 {
                guard let command = commands.first(where: { $0.name == argv[1] }) else {
                    console.error("pathfinder help: unknown command \"\(argv[1])\" (see pathfinder --help)")
                    return 2
                }
                console.line(command.help)
                return 0
            }
            console.line(overview)
            return 0
        }
        if name == "--version" {
            console.line("pathfinder \(version)")
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            console.error("pathfinder: unknown command \"\(name)\" (see pathfinder --help)")
            return 2
        }
        let arguments = Arguments(Array(argv.dropFirst()), command: "pathfinder \(name)")
        if arguments.wantsHelp {
            console.line(command.help)
            return 0
        }
        do {
            return try await command.body(arguments, console)
        } catch let error as CLIError {
            console.error(error.description)
            return error.exitCode
        } catch {
            console.error("pathfinder \(name): \(error)")
            return 1
        }
    }

    package static let version = "0.1.0"
}

/// Namespace for the commands; each file adds one `static let`.
package enum Commands {}
