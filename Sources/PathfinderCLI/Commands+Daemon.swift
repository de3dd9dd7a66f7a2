import Daemon
import Foundation
import Gazetteer

extension Commands {
    static let daemon = Command(
        name: "daemon",
        summary: "the long-running process: positions, speech, memory and the control socket",
        help: """
            Usage: pathfinder daemon [--config FILE] [flags]

            Runs until SIGTERM or SIGINT; SIGHUP opens the door indexes and gazetteer again,
            reads the config again (file and flags) and applies logLevel, lastStretchMetres,
            doors and gazetteer; other keys need a restart (the log names them). Reads the JSON config file
            (default $XDG_CONFIG_HOME/pathfinder/config.json, else ~/.config/pathfinder/config.json;
            every key is described in docs/daemon.md; in it, ~/ is $HOME and a relative path
            is from the file's folder). Flags override the file's keys (their paths are
            relative to the working directory):
              --gpsd HOST:PORT      gpsd to read positions from (loopback unless the config
                                    says "allowRemoteGPSD": true)
              --nmea PATH           an NMEA serial device, recorded file or FIFO (each
                                    writer in turn) instead of gpsd
              --baro iio|nmea|none  where pressure comes from
              --memory FILE         the EntranceMemory file
              --doors DB|DIR        the door index, or a directory of them (one per region)
              --gazetteer DB        the gazetteer
              --socket PATH         the control socket
              --no-mic              never open the microphone
              --speak-wav DIR       write each prompt as a WAV there instead of playing it
                                    (NNNN.wav, numbered on after the highest already there)
              --buttons PATH        answer buttons: an evdev input device (or FIFO); keys N, Y,
                                    R = not here, this is it, repeat (config "buttons")
              --log-level L         error, warning, info or debug
            Logs go to standard error with syslog priority prefixes (journald reads them).
            Exit codes: 0 after SIGTERM/SIGINT, 1 if it cannot run (another daemon on
            the socket), 2 for a bad config file or flag.
            """
    ) { arguments, console in
        // As given: SIGHUP reads the config file again, these flags over it.
        let given = arguments
        var arguments = arguments
        var config: DaemonConfig
        do {
            config = try daemonConfig(from: &arguments)
            try arguments.finish()
        } catch CLIError.usage(let message) {
            // At journald's error priority, as the daemon's own log lines say theirs: under
            // systemd, `journalctl -p err` shows why the service will not start.
            throw CLIError.usage("<3>error: " + message)
        }
        bundledData(&config)
        let daemon = Daemon(
            config: config, log: DaemonLog(level: config.logLevel),
            readConfig: {
                // The start's reading, its messages without the command's name (the log's line
                // says SIGHUP).
                var arguments = given
                // Not a pipe: one made at the path since the start would hold the loop in open()
                // until some writer came, deaf to the socket and to SIGTERM.
                var config = try readDaemonConfig(from: &arguments, pipes: false)
                bundledData(&config)
                return config
            })
        return await daemon.run()
    }

    /// The bundled read-only data, when the config names none.
    private static func bundledData(_ config: inout DaemonConfig) {
        if config.doors == nil { config.doors = try? Artifacts.path("doors/helsinki.db") }
        if config.gazetteer == nil { config.gazetteer = Artifacts.gazetteer() }
    }

    /// The config file, then the flags over it; any bad key or value is a usage error.
    static func daemonConfig(
        from arguments: inout Arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CLIError) -> DaemonConfig {
        do {
            return try readDaemonConfig(from: &arguments, environment: environment)
        } catch let error as DaemonConfigError {
            throw .usage("\(arguments.command): \(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .usage("\(arguments.command): \(error)")
        }
    }

    /// ``daemonConfig(from:environment:)``'s reading, its errors as they come: a
    /// `DaemonConfigError` (the file, the key, what is wrong) or a `CLIError` of the flags.
    /// `pipes`: whether a config file that is a pipe is read (at start; not at SIGHUP).
    private static func readDaemonConfig(
        from arguments: inout Arguments, environment: [String: String] = ProcessInfo.processInfo.environment,
        pipes: Bool = true
    ) throws -> DaemonConfig {
        var config = try DaemonConfig.load(
            path: try arguments.option("--config"), environment: environment, pipes: pipes)
        let strings: [(flag: String, key: String)] = [
            ("--gpsd", "gpsd"), ("--nmea", "nmea"), ("--baro", "baro"), ("--memory", "memory"),
            ("--doors", "doors"), ("--gazetteer", "gazetteer"), ("--socket", "socket"),
            ("--speak-wav", "speakWav"), ("--log-level", "logLevel"), ("--buttons", "buttons"),
        ]
        for (flag, key) in strings {
            if let value = try arguments.option(flag) {
                try config.set(key, .string(value), origin: flag)
            }
        }
        // --gpsd over a config file's "nmea": the flag wins, as every flag does (before,
        // the file's receiver was read and the flag ignored without a word).
        if config.origins["gpsd"] == "--gpsd", config.origins["nmea"] != "--nmea", config.nmea != nil {
            try config.set("nmea", .null, origin: "--gpsd")
        }
        if try arguments.flag("--no-mic") { config.mic = false }
        try config.validate()
        try config.checkFiles()
        return config
    }
}
