import Arrival
import Diagnostics
package import Foundation
import Glibc
import Positioning

/// Everything the daemon is told: read from a JSON file, then overridden by flags.
/// Every key is documented in docs/daemon.md with its default; an unknown key or a bad
/// value is an error naming the key.
package struct DaemonConfig: Sendable, Equatable {
    /// Where the barometer reading comes from.
    package enum Barometer: String, Sendable, CaseIterable {
        /// A Linux IIO pressure sensor (BMP280/BME280/…), found under `iioRoot`.
        case iio
        /// `$--XDR` / `$--MDA` sentences in the NMEA stream.
        case nmea
        /// No barometer: no altitude, no level check.
        case none
    }

    /// gpsd's address, "HOST:PORT" (used unless `nmea` is set).
    package var gpsd = Endpoint(host: "127.0.0.1", port: 2947)
    /// Lets `gpsd` name a host that is not this machine. Off: positions never leave the device.
    package var allowRemoteGPSD = false
    /// An NMEA serial device or recorded file instead of gpsd.
    package var nmea: String?
    /// The serial speed for an NMEA device, bits per second.
    package var baud = 9600
    /// Where pressure comes from.
    package var baro = Barometer.iio
    /// The IIO devices directory.
    package var iioRoot = "/sys/bus/iio/devices"
    /// The IIO device by its `name` ("bme280") or directory ("iio:device0"); nil = the first with pressure.
    package var iioDevice: String?
    /// Sea-level pressure in hPa for absolute altitudes; nil = calibrate from GNSS only.
    package var qnh: Double?
    /// When `qnh` was read off (its drift grows from then); nil = unknown (a QNH too rough to use).
    package var qnhTime: Date?
    /// The EntranceMemory file.
    package var memory: String
    /// The door index (SQLite); nil = the bundled one in `artifacts/`.
    package var doors: String?
    /// The gazetteer (SQLite); nil = the bundled one in `artifacts/`.
    package var gazetteer: String?
    /// The control socket's path.
    package var socket: String
    /// Whether to listen on the microphone during the last stretch.
    package var mic = true
    /// The ALSA capture device.
    package var micDevice = "default"
    /// The ALSA playback device.
    package var speaker = "default"
    /// A directory to write each prompt into as a WAV instead of playing it.
    package var speakWav: String?
    /// How far from the door the last stretch (spoken guidance, microphone open) starts, metres.
    package var lastStretchMetres = FinalApproach.Settings().lastStretchMetres
    /// How much the daemon logs.
    package var logLevel = DaemonLog.Level.info
    /// The answer buttons (evdev devices or FIFOs and the three keys); nil = none.
    package var buttons: ButtonMap?

    /// A "HOST:PORT" address.
    package struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        package var host: String
        package var port: UInt16

        package init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }

        /// Parses "HOST:PORT" or "[V6]:PORT" with the parser `pathfinder fixes --gpsd` uses
        /// (`GPSDClient.Settings.parse`), the port required.
        package init?(_ text: String) {
            guard let settings = GPSDClient.Settings.parse(text, defaultPort: nil) else { return nil }
            self.init(host: settings.host, port: settings.port)
        }

        /// Whether the host is this machine (127.0.0.0/8, ::1, localhost).
        package var isLoopback: Bool {
            let parts = host.split(separator: ".")
            if parts.count == 4, parts[0] == "127", parts.allSatisfy({ UInt8($0) != nil }) { return true }
            if host.lowercased() == "localhost" { return true }
            // ::1 however it is written ("0:0:0:0:0:0:0:1").
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return false }
            return withUnsafeBytes(of: &address) { bytes in
                bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
            }
        }

        package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// Where each key set so far came from (a config file's path, or a flag), for messages.
    package var origins: [String: String] = [:]
    /// The config file read, nil when there was none (the default file missing).
    package var file: String?

    /// The defaults for this environment (paths from the XDG variables).
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        memory = Self.defaultMemoryPath(environment)
        socket = Self.defaultSocketPath(environment)
    }

    /// Every key a config file may hold.
    package static let keys = [
        "allowRemoteGPSD", "baro", "baud", "buttons", "doors", "gazetteer", "gpsd", "iioDevice", "iioRoot",
        "lastStretchMetres", "logLevel", "memory", "mic", "micDevice", "nmea", "qnh", "qnhTime", "socket",
        "speakWav", "speaker",
    ]

    /// The keys a running daemon applies when it reads its config again (SIGHUP). Every other
    /// key is the daemon's for its life: the socket, the memory, the position and pressure
    /// sources, the microphone, the speaker and the buttons are opened or set up once at start.
    package static let reloadableKeys: Set<String> = ["doors", "gazetteer", "lastStretchMetres", "logLevel"]

    /// The value of `key` as a config file holds it (paths as resolved), to compare two configs
    /// and to say what changed; nil for a key that is not one of ``keys``.
    package func value(of key: String) -> JSONValue? {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        switch key {
        case "gpsd": return .string(gpsd.description)
        case "allowRemoteGPSD": return .bool(allowRemoteGPSD)
        case "nmea": return text(nmea)
        case "baud": return .number(Double(baud))
        case "baro": return .string(baro.rawValue)
        case "iioRoot": return .string(iioRoot)
        case "iioDevice": return text(iioDevice)
        case "qnh": return qnh.map(JSONValue.number) ?? .null
        case "qnhTime": return text(qnhTime.map { Date.ISO8601FormatStyle().format($0) })
        case "memory": return .string(memory)
        case "doors": return text(doors)
        case "gazetteer": return text(gazetteer)
        case "socket": return .string(socket)
        case "mic": return .bool(mic)
        case "micDevice": return .string(micDevice)
        case "speaker": return .string(speaker)
        case "speakWav": return text(speakWav)
        case "lastStretchMetres": return .number(lastStretchMetres)
        case "logLevel": return .string(logLevel.rawValue)
        case "buttons":
            guard let buttons else { return .null }
            return .object([
                "device": .array(buttons.devices.map(JSONValue.string)),
                "notHere": .string(KeyNames.name(of: buttons.notHere)),
                "thisIsIt": .string(KeyNames.name(of: buttons.thisIsIt)),
                "repeat": .string(KeyNames.name(of: buttons.repeatLast)),
            ])
        default: return nil
        }
    }

    /// The keys whose value differs in `other`, in ``keys``' order.
    package func keysChanged(in other: DaemonConfig) -> [String] {
        Self.keys.filter { value(of: $0) != other.value(of: $0) }
    }

    /// Sets one key from a JSON value. `null` resets an optional key to nil.
    /// - Parameter origin: where the value came from, for messages ("config.json", "--baro").
    /// - Throws: `DaemonConfigError` naming the key, the value and what was expected.
    /// - Parameter paths: how a path in the value is read (``PathRules``); a flag's is taken
    ///   as given (the shell expanded `~`, the working directory is the user's).
    package mutating func set(
        _ key: String, _ value: JSONValue, origin: String, paths: PathRules = .asGiven
    ) throws(DaemonConfigError) {
        try setValue(key, value, origin: origin, paths: paths)
        origins[key] = origin
    }

    /// How a path inside a config file is read. A daemon started by systemd and one started
    /// from a terminal have different working directories (and nothing expands `~` in JSON):
    /// before, `"memory": "~/pf/memory.json"` made a folder literally named `~` wherever the
    /// daemon happened to start, and `"doors": "doors.db"` meant a different file in each.
    package struct PathRules: Sendable {
        /// The home directory `~/` stands for; nil: taken as given.
        var home: String?
        /// The folder relative paths are resolved against (the config file's); nil: as given.
        var base: String?

        /// Paths as given: a flag's, relative to the working directory as usual.
        package static let asGiven = PathRules(home: nil, base: nil)

        /// A config file's: a leading `~/` is `$HOME`, a relative path is from the file's folder.
        package static func file(_ path: String, environment: [String: String]) -> PathRules {
            let absolute =
                path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            let folder = absolute.lastIndex(of: "/").map { String(absolute[..<$0]) } ?? "."
            return PathRules(home: DaemonConfig.home(environment), base: folder.isEmpty ? "/" : folder)
        }

        /// `path` read by these rules.
        /// - Throws: the message for `~user` (another user's home is not looked up).
        /// - Parameter abstract: "@name" is an abstract socket, taken as it is (the socket
        ///   key only; before, every key's "@file" was left relative to the working folder).
        func resolve(_ path: String, abstract: Bool = false) throws(PathProblem) -> String {
            guard let home, let base else { return path }
            if path == "~" { return home }
            if path.hasPrefix("~/") { return home + path.dropFirst() }
            if path.hasPrefix("~") {
                throw PathProblem(
                    message:
                        "\(JSONValue.string(path).text): only a leading ~/ (your home) is expanded, not ~user; write the full path"
                )
            }
            if path.hasPrefix("/") || (abstract && path.hasPrefix("@")) { return path }
            return (base == "/" ? "" : base) + "/" + path
        }
    }

    /// Why a path in a config file was refused.
    package struct PathProblem: Error { var message: String }

    private mutating func setValue(
        _ key: String, _ value: JSONValue, origin: String, paths: PathRules
    ) throws(DaemonConfigError) {
        func fail(_ expected: String) -> DaemonConfigError {
            DaemonConfigError(origin: origin, key: key, message: "\(value.text) is not \(expected)")
        }
        func string() throws(DaemonConfigError) -> String {
            guard let s = value.stringValue, !s.isEmpty else { throw fail("a non-empty string") }
            return s
        }
        func optionalString() throws(DaemonConfigError) -> String? {
            if value == .null { return nil }
            return try string()
        }
        func resolved(_ path: String, key: String) throws(DaemonConfigError) -> String {
            do { return try paths.resolve(path, abstract: key == "socket") } catch {
                throw DaemonConfigError(origin: origin, key: key, message: error.message)
            }
        }
        func path() throws(DaemonConfigError) -> String { try resolved(try string(), key: key) }
        func optionalPath() throws(DaemonConfigError) -> String? {
            guard let given = try optionalString() else { return nil }
            return try resolved(given, key: key)
        }
        func bool() throws(DaemonConfigError) -> Bool {
            guard let b = value.boolValue else { throw fail("true or false") }
            return b
        }
        switch key {
        case "gpsd":
            guard let s = value.stringValue, let endpoint = Endpoint(s) else {
                // The IPv6 hint only for a text that has a colon (an address without brackets).
                let v6 = value.stringValue?.contains(":") ?? false
                throw fail(v6 ? "HOST:PORT (an IPv6 address in brackets: [::1]:2947)" : "HOST:PORT")
            }
            gpsd = endpoint
        case "allowRemoteGPSD": allowRemoteGPSD = try bool()
        case "nmea": nmea = try optionalPath()
        case "baud":
            guard let n = value.numberValue, n.rounded() == n,
                [4800.0, 9600, 19200, 38400, 57600, 115200].contains(n)
            else { throw fail("a serial speed (4800, 9600, 19200, 38400, 57600 or 115200)") }
            baud = Int(n)
        case "baro":
            guard let s = value.stringValue, let b = Barometer(rawValue: s) else {
                throw fail("iio, nmea or none")
            }
            baro = b
        case "iioRoot": iioRoot = try path()
        case "iioDevice": iioDevice = try optionalString()
        case "qnh":
            if value == .null {
                qnh = nil
            } else {
                guard let n = value.numberValue, (850...1090).contains(n) else {
                    throw fail("a pressure in hPa (850…1090)")
                }
                qnh = n
            }
        case "qnhTime":
            if value == .null {
                qnhTime = nil
            } else {
                guard let s = value.stringValue, let time = Self.time(s) else {
                    throw fail("a time in ISO 8601 with its zone (2026-12-05T09:30:00+09:00)")
                }
                qnhTime = time
            }
        case "memory": memory = try path()
        case "doors": doors = try optionalPath()
        case "gazetteer": gazetteer = try optionalPath()
        case "socket":
            let s = try path()
            guard unixAddress(s) != nil else {
                throw DaemonConfigError(
                    origin: origin, key: key,
                    message: "\(s) is \(s.utf8.count) bytes; a socket path must be shorter than 108")
            }
            socket = s
        case "mic": mic = try bool()
        case "micDevice": micDevice = try string()
        case "speaker": speaker = try string()
        case "speakWav": speakWav = try optionalPath()
        case "lastStretchMetres":
            guard let n = value.numberValue, FinalApproach.Settings.lastStretchRange.contains(n) else {
                throw fail("a distance in metres (5…1000)")
            }
            lastStretchMetres = n
        case "buttons":
            // Paths alone (`--buttons PATH[,PATH…]`) over a file's keys change only the devices.
            if case .string(let path) = value, Self.paths(path).isEmpty {
                // "," names no device: the buttons would be off without a word.
                throw fail("a device path or {\"device\": PATH, …}")
            }
            let resolve = { (path: String) throws(DaemonConfigError) -> String in try resolved(path, key: key)
            }
            if case .string(let path) = value, !path.isEmpty, var map = buttons {
                map.devices = try Self.paths(path).map(resolve)
                buttons = map
            } else {
                buttons = try Self.buttons(value, fail: fail, origin: origin, resolve: resolve)
            }
        case "logLevel":
            guard let s = value.stringValue, let level = DaemonLog.Level(rawValue: s) else {
                throw fail("error, warning, info or debug")
            }
            logLevel = level
        default:
            throw DaemonConfigError(
                origin: origin, key: key,
                message: "unknown key (known: \(Self.keys.joined(separator: ", ")))")
        }
    }

    /// `"PATH"` or `"PATH,PATH"` (the default keys), `{"device": PATH or [PATH, …],
    /// "notHere": KEY, "thisIsIt": KEY, "repeat": KEY}` with key names (`"KEY_N"`) or codes
    /// (`49`), or `null`.
    private static func buttons(
        _ value: JSONValue, fail: (String) -> DaemonConfigError, origin: String,
        resolve: (String) throws(DaemonConfigError) -> String
    ) throws(DaemonConfigError) -> ButtonMap? {
        let expected =
            "a device path or {\"device\": PATH, \"notHere\": KEY, \"thisIsIt\": KEY, \"repeat\": KEY}"
        switch value {
        case .null: return nil
        case .string(let path):
            guard !path.isEmpty else { throw fail(expected) }
            return ButtonMap(devices: try paths(path).map(resolve))
        case .object(let fields):
            // A misspelt key first: before, `"devices"` was reported as "buttons.device: missing".
            for name in fields.keys.sorted() where !ButtonMap.keys.contains(name) {
                throw DaemonConfigError(
                    origin: origin, key: "buttons.\(name)",
                    message: "unknown key (known: \(ButtonMap.keys.joined(separator: ", ")))")
            }
            let devices: [String]? =
                switch fields["device"] {
                case .string(let path)?: path.isEmpty ? nil : [path]
                case .array(let items)?:
                    items.isEmpty || items.contains { ($0.stringValue ?? "").isEmpty }
                        ? nil : items.compactMap(\.stringValue)
                default: nil
                }
            guard let devices else {
                throw DaemonConfigError(
                    origin: origin, key: "buttons.device",
                    message:
                        "missing, or not a path or a list of paths: \(fields["device"]?.text ?? "nothing")")
            }
            var map = ButtonMap(devices: try devices.map(resolve))
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) where name != "device" {
                let code: UInt16? =
                    switch field {
                    case .string(let text): KeyNames.code(of: text)
                    case .number(let n): n.rounded() == n && n > 0 && n < 0x300 ? UInt16(n) : nil
                    default: nil
                    }
                guard let code else {
                    throw DaemonConfigError(
                        origin: origin, key: "buttons.\(name)",
                        message: "\(field.text) is not a key name (KEY_N, BTN_0, …) or a key code (1…767)")
                }
                switch name {
                case "notHere": map.notHere = code
                case "thisIsIt": map.thisIsIt = code
                default: map.repeatLast = code
                }
            }
            let codes = [map.notHere, map.thisIsIt, map.repeatLast]
            guard Set(codes).count == 3 else {
                throw DaemonConfigError(
                    origin: origin, key: "buttons",
                    message:
                        "notHere, thisIsIt and repeat need three different keys, found \(codes.map(KeyNames.name(of:)))"
                )
            }
            return map
        default: throw fail(expected)
        }
    }

    /// `--buttons` may name several devices, comma-separated (device paths hold no commas).
    private static func paths(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }

    /// Applies a config file's JSON object.
    /// - Throws: `DaemonConfigError` for malformed JSON, a non-object, an unknown key or a bad value.
    /// Paths in it follow ``PathRules/file(_:environment:)``: `~/` is `$HOME`, a relative path is
    /// from the file's folder.
    package mutating func apply(
        file data: Data, path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DaemonConfigError) {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // "line 3: not valid JSON: …", the wording of every JSON file Pathfinder reads.
            throw DaemonConfigError(
                origin: path, key: nil, message: JSONDiagnostics.describe(error, in: data))
        }
        guard case .object(let object) = root else {
            throw DaemonConfigError(
                origin: path, key: nil, message: "expected a JSON object, found \(root.kind)")
        }
        if let twice = JSONDiagnostics.duplicateKey(in: data) {
            throw DaemonConfigError(origin: path, key: nil, message: twice.description)
        }
        let rules = PathRules.file(path, environment: environment)
        for key in object.keys.sorted() {
            try set(key, object[key]!, origin: path, paths: rules)
        }
    }

    /// The rules across keys, checked after the file and the flags are applied.
    /// - Throws: `DaemonConfigError` naming the key.
    package func validate() throws(DaemonConfigError) {
        // Both in one file, or both as flags: which was meant cannot be told.
        if nmea != nil, let g = origins["gpsd"], let n = origins["nmea"],
            g == n || (g.hasPrefix("--") && n.hasPrefix("--"))
        {
            throw DaemonConfigError(
                origin: g == n ? g : "\(g) and \(n)", key: nil,
                message:
                    "\"gpsd\" and \"nmea\" both given: positions come from one (\"nmea\" reads a receiver, \"gpsd\" asks gpsd)"
            )
        }
        // A default path from a long $XDG_RUNTIME_DIR: said as a bad setting (exit 2), as an
        // explicit one is; before, bind failed (exit 1) and systemd restarted it in a loop.
        if unixAddress(socket) == nil {
            throw DaemonConfigError(
                origin: origins["socket"] ?? "the default socket path (from $XDG_RUNTIME_DIR)", key: "socket",
                message:
                    "\(socket) is \(socket.utf8.count) bytes; a socket path must be shorter than 108 (set \"socket\" in the config file, or --socket)"
            )
        }
        if nmea == nil && !gpsd.isLoopback && !allowRemoteGPSD {
            throw DaemonConfigError(
                origin: origins["gpsd"] ?? "config", key: "gpsd",
                message:
                    "\(gpsd) is not on this machine; positions would leave the device (set \"allowRemoteGPSD\": true to allow it)"
            )
        }
    }

    /// What must hold of the files on disk before the daemon starts.
    /// - Throws: `DaemonConfigError` for a `memory` that is a directory: before, the daemon ran
    ///   for ever saving nothing (each save failing), when the path was simply wrong; and for a
    ///   `socket` that names something other than a socket (a file, a folder, a link), which
    ///   the daemon never replaces: bad usage, as its clients say (before: exit 1 once the
    ///   position source was open, and systemd restarted it in a loop).
    package func checkFiles() throws(DaemonConfigError) {
        var info = stat()
        if stat(memory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw DaemonConfigError(
                origin: origins["memory"] ?? "the default memory path", key: "memory",
                message:
                    "\(memory) is a directory; expected the memory file's path (e.g. \(memory)/memory.json)")
        }
        // Below a file (`notes.txt/x.sock`) no socket can ever be bound, nor its folder made
        // (before: exit 1, "bind: Not a directory", once the position source was open). A
        // folder that is missing is no error: the start makes it.
        if !socket.hasPrefix("@"), let problem = FileDiagnostics.partThatIsNoFolder(of: socket) {
            throw DaemonConfigError(
                origin: origins["socket"] ?? "the default socket path", key: "socket",
                message:
                    "\(socket): \(problem); the daemon makes its control socket in a folder, made when missing (give a path in a folder)"
            )
        }
        // An abstract socket (`@name`) has no file. Not followed, as the daemon's start does not:
        // a link is not replaced even when it leads to a socket.
        if !socket.hasPrefix("@"), lstat(socket, &info) == 0, (info.st_mode & S_IFMT) != S_IFSOCK {
            let kind: String
            if (info.st_mode & S_IFMT) == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: socket)) ?? "?"
                kind = "a symbolic link (to \(target))"
            } else {
                kind = FileDiagnostics.kind(ofMode: info.st_mode) ?? "a regular file"
            }
            throw DaemonConfigError(
                origin: origins["socket"] ?? "the default socket path", key: "socket",
                message:
                    "\(socket): is \(kind), not a socket; the daemon makes its control socket there and replaces only a socket (give a path where nothing is)"
            )
        }
    }

    /// `$XDG_CONFIG_HOME/pathfinder/config.json`, else `~/.config/pathfinder/config.json`.
    package static func defaultConfigPath(_ environment: [String: String]) -> String {
        base(environment, "XDG_CONFIG_HOME", ".config") + "/pathfinder/config.json"
    }

    /// `$XDG_DATA_HOME/pathfinder/memory.json`, else `~/.local/share/pathfinder/memory.json`.
    package static func defaultMemoryPath(_ environment: [String: String]) -> String {
        base(environment, "XDG_DATA_HOME", ".local/share") + "/pathfinder/memory.json"
    }

    /// `$XDG_RUNTIME_DIR/pathfinder.sock`, else `/tmp/pathfinder-UID.sock`.
    package static func defaultSocketPath(_ environment: [String: String]) -> String {
        if let dir = environment["XDG_RUNTIME_DIR"], dir.hasPrefix("/") { return dir + "/pathfinder.sock" }
        return "/tmp/pathfinder-\(getuid()).sock"
    }

    private static func base(
        _ environment: [String: String], _ variable: String, _ fallback: String
    ) -> String {
        // The XDG spec: a relative value is invalid and must be ignored.
        if let dir = environment[variable], dir.hasPrefix("/") { return dir }
        return home(environment) + "/" + fallback
    }

    /// `$HOME` without a trailing slash, else the account's home directory.
    static func home(_ environment: [String: String]) -> String {
        var home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        while home.count > 1, home.hasSuffix("/") { home.removeLast() }
        return home
    }

    /// Whether a config file is at `path`: false only when nothing is there at all (ENOENT,
    /// and no symbolic link either). A dangling link, or a folder that cannot be entered
    /// (EACCES), is a file that cannot be read, not "no config" (before, `fileExists` said
    /// false for both and the walker's settings were ignored without a word).
    static func present(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }

    /// Reads the config file at `path`, refusing what is not a regular file (or a pipe, when
    /// `pipes`).
    private static func read(_ path: String, pipes: Bool = true) throws(DaemonConfigError) -> Data {
        var info = stat()
        let kindOfFile: mode_t? = stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
        if kindOfFile == S_IFIFO, !pipes {
            throw DaemonConfigError(
                origin: path, key: nil,
                message: "cannot read the config file: is a FIFO (named pipe): a pipe is read only at start")
        }
        if let kindOfFile, kindOfFile != S_IFREG, kindOfFile != S_IFIFO {
            // /dev/zero never ends, a folder or a socket has no text: none is a config file. A
            // pipe is (`--config <(…)`, /dev/stdin), read as it streams.
            let kind = FileDiagnostics.kind(ofMode: info.st_mode) ?? "not a regular file"
            throw DaemonConfigError(
                origin: path, key: nil, message: "cannot read the config file: is \(kind), not a regular file"
            )
        }
        if let problem = FileDiagnostics.unreadable(path, streamAllowed: true) {
            throw DaemonConfigError(
                origin: path, key: nil, message: "cannot read the config file: \(problem)")
        }
        do {
            return try FileDiagnostics.contents(of: path)
        } catch {
            throw DaemonConfigError(origin: path, key: nil, message: "cannot read the config file: \(error)")
        }
    }

    /// An ISO 8601 time with its zone, with or without seconds' fractions.
    static func time(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// Loads the config: the defaults, then `path` (or the default file if it exists).
    /// - Parameters:
    ///   - path: an explicit `--config FILE`, which must exist.
    ///   - pipes: whether a file that is a pipe (`--config <(…)`, a FIFO) is read: at start, as it
    ///     streams; not at a reload (SIGHUP), where opening one would wait for a writer.
    /// - Throws: `DaemonConfigError` for an unreadable explicit file or any bad key.
    package static func load(
        path: String?, environment: [String: String] = ProcessInfo.processInfo.environment, pipes: Bool = true
    ) throws(DaemonConfigError) -> DaemonConfig {
        var config = DaemonConfig(environment: environment)
        let file = path ?? defaultConfigPath(environment)
        // Only an explicit file must exist; the default one is optional.
        guard path != nil || present(file) else { return config }
        try config.apply(file: try read(file, pipes: pipes), path: file, environment: environment)
        config.file = file
        return config
    }

    /// The control socket a client command talks to: the default config file's `socket`
    /// alone, else the default path. Clients need nothing else from the file, so a mistake in
    /// another key (or the file itself) is a warning, not a refusal: before, a bad `"baro"`
    /// stopped `pathfinder status` from reaching a healthy daemon.
    /// - Returns: the path, and a warning naming the problem when the file could not give it.
    package static func clientSocket(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (socket: String, warning: String?) {
        let (config, warning) = clientKey(
            "socket", "socket", choose: "--socket PATH", environment: environment)
        return (config.socket, warning)
    }

    /// The memory file the `memory` commands change without `--file`: the daemon's, found as
    /// it finds it (the default config file's `memory`, relative to that file's folder, else
    /// ``defaultMemoryPath(_:)``); a problem in the file is a warning, as for ``clientSocket``.
    package static func clientMemory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (memory: String, warning: String?) {
        let (config, warning) = clientKey("memory", "memory", choose: "--file M", environment: environment)
        return (config.memory, warning)
    }

    /// The defaults with the default config file's `key` alone set; a warning naming the
    /// problem (and the default `what` used, and the flag that chooses) when the file could
    /// not give it.
    private static func clientKey(
        _ key: String, _ what: String, choose flag: String, environment: [String: String]
    ) -> (config: DaemonConfig, warning: String?) {
        var config = DaemonConfig(environment: environment)
        let file = defaultConfigPath(environment)
        guard present(file) else { return (config, nil) }
        func fallback(_ problem: String) -> (config: DaemonConfig, warning: String?) {
            let path = config.value(of: key)?.stringValue ?? ""
            return (config, "\(problem); using the default \(what) \(path) (\(flag) chooses one)")
        }
        do {
            let data = try read(file)
            guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
                return fallback("\(file): not a JSON object")
            }
            guard let value = object[key], value != .null else { return (config, nil) }
            try config.set(key, value, origin: file, paths: .file(file, environment: environment))
            return (config, nil)
        } catch {
            return fallback("\(error)")
        }
    }
}

/// A bad config file, key or flag value: the daemon exits 2 with this message.
package struct DaemonConfigError: Error, Equatable, CustomStringConvertible {
    /// The file path or flag the value came from.
    package let origin: String
    /// The key at fault, nil for the file as a whole.
    package let key: String?
    package let message: String

    package var description: String {
        if let key { "\(origin): key \"\(key)\": \(message)" } else { "\(origin): \(message)" }
    }
}
