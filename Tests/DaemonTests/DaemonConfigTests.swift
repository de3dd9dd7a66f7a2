import Daemon
import Foundation
import Glibc
import Testing

@Suite struct DaemonConfigTests {
    @Test func defaultsFollowTheXDGDirectories() {
        let config = DaemonConfig(environment: [
            "HOME": "/home/w", "XDG_DATA_HOME": "/data", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(config.memory == "/data/pathfinder/memory.json")
        #expect(config.socket == "/run/user/1000/pathfinder.sock")
        #expect(
            DaemonConfig.defaultConfigPath(["HOME": "/home/w", "XDG_CONFIG_HOME": "/cfg"])
                == "/cfg/pathfinder/config.json")
        #expect(config.gpsd.description == "127.0.0.1:2947")
        #expect(config.baro == .iio)
        #expect(config.mic)
        #expect(config.nmea == nil && config.speakWav == nil)
    }

    @Test func withoutXDGTheHomeAndTmpAreUsed() {
        // A relative XDG value is invalid by the spec and ignored.
        let config = DaemonConfig(environment: ["HOME": "/home/w", "XDG_DATA_HOME": "rel"])
        #expect(config.memory == "/home/w/.local/share/pathfinder/memory.json")
        #expect(config.socket == "/tmp/pathfinder-\(getuid()).sock")
        #expect(
            DaemonConfig.defaultConfigPath(["HOME": "/home/w"]) == "/home/w/.config/pathfinder/config.json")
    }

    @Test func aFileWithEveryKeySetsEveryField() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/config-full", withExtension: "json"))
        let config = try DaemonConfig.load(path: url.path, environment: ["HOME": "/home/w"])
        #expect(config.gpsd == DaemonConfig.Endpoint(host: "127.0.0.1", port: 29470))
        #expect(config.baud == 4800)
        #expect(config.baro == .nmea)
        #expect(config.iioRoot == "/tmp/iio" && config.iioDevice == "bme280")
        #expect(config.qnh == 1013.25)
        #expect(config.qnhTime == Date(timeIntervalSince1970: 1_796_430_600))
        #expect(config.memory == "/tmp/pf/memory.json")
        #expect(config.doors == "/tmp/pf/doors.sqlite" && config.gazetteer == "/tmp/pf/gazetteer.sqlite")
        #expect(config.socket == "/tmp/pf/pathfinder.sock")
        #expect(!config.mic && config.micDevice == "hw:1,0" && config.speaker == "hw:0,0")
        #expect(config.speakWav == "/tmp/pf/wav")
        #expect(config.lastStretchMetres == 80)
        #expect(config.logLevel == .debug)
        var buttons = ButtonMap(devices: ["/dev/input/by-path/platform-gpio-keys-event"])
        (buttons.notHere, buttons.thisIsIt, buttons.repeatLast) = (2, 3, 19)
        #expect(config.buttons == buttons)
        let keys = try JSONDecoder().decode([String: JSONValue].self, from: Data(contentsOf: url)).keys
        #expect(Set(keys) == Set(DaemonConfig.keys), "the fixture uses every key")
    }

    /// `qnhTime` is a time with its zone; anything else is refused naming the key. Without it, a
    /// QNH's time is unknown (before: the file's modification time; before that, each start).
    @Test func qnhTimeIsATimeWithItsZone() throws {
        var config = DaemonConfig(environment: ["HOME": "/home/w"])
        try config.set("qnhTime", .string("2026-12-05T00:30:00.5Z"), origin: "c.json")
        #expect(config.qnhTime == Date(timeIntervalSince1970: 1_796_430_600.5))
        for bad: JSONValue in [.string("2026-12-05 09:30"), .string("yesterday"), .number(1)] {
            do {
                try config.set("qnhTime", bad, origin: "c.json")
                Issue.record("\(bad.text) taken")
            } catch {
                #expect(
                    "\(error)"
                        == "c.json: key \"qnhTime\": \(bad.text) is not a time in ISO 8601 with its zone (2026-12-05T09:30:00+09:00)"
                )
            }
        }
        // Without qnhTime the QNH's time is unknown (not the file's: audit 6 R1-2).
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/config.json"
        try #"{"qnh": 1008.4}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let read = try DaemonConfig.load(path: path, environment: ["HOME": "/home/w"])
        #expect(read.qnh == 1008.4 && read.qnhTime == nil)
    }

    @Test func everyKeyIsDocumentedWithItsDefault() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/daemon.md").standardized
        let text = try String(contentsOf: docs, encoding: .utf8)
        for key in DaemonConfig.keys {
            #expect(text.contains("| `\(key)` |"), "docs/daemon.md has a row for \(key)")
        }
    }

    /// A reload (SIGHUP) compares the config read again with the one in force key by key: each
    /// key's value is compared, and only changed keys are named.
    @Test func everyKeysChangeIsSeenAndNoOther() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/config-full", withExtension: "json"))
        let defaults = DaemonConfig(environment: ["HOME": "/home/w"])
        var full = try DaemonConfig.load(path: url.path, environment: ["HOME": "/home/w"])
        // The fixture sets these two to their defaults.
        #expect(
            defaults.keysChanged(in: full)
                == DaemonConfig.keys.filter { $0 != "allowRemoteGPSD" && $0 != "nmea" })
        full.allowRemoteGPSD = true
        full.nmea = "/dev/ttyACM0"
        #expect(defaults.keysChanged(in: full) == DaemonConfig.keys)
        #expect(full.keysChanged(in: full).isEmpty)
        var keys = full
        keys.buttons?.thisIsIt = 4
        #expect(full.keysChanged(in: keys) == ["buttons"])
        #expect(DaemonConfig.keys.allSatisfy { full.value(of: $0) != nil })
        #expect(DaemonConfig.reloadableKeys.isSubset(of: DaemonConfig.keys))
    }

    @Test func anUnknownKeyIsAnErrorNamingIt() {
        var config = DaemonConfig(environment: [:])
        #expect(throws: DaemonConfigError.self) {
            try config.apply(file: Data(#"{"gpds": "127.0.0.1:2947"}"#.utf8), path: "c.json")
        }
        do {
            try config.apply(file: Data(#"{"gpds": "127.0.0.1:2947"}"#.utf8), path: "c.json")
        } catch {
            #expect(error.key == "gpds")
            #expect(error.description.hasPrefix("c.json: key \"gpds\": unknown key"))
        }
    }

    @Test(arguments: [
        ("baro", #""sonar""#), ("baud", "1234"), ("mic", #""yes""#), ("qnh", "5"), ("gpsd", #""nohost""#),
        ("gpsd", #""127.0.0.1:0""#), ("lastStretchMetres", "-1"), ("logLevel", #""loud""#),
        ("memory", #""""#),
        ("socket", "\"/\(String(repeating: "s", count: 120))\""), ("nmea", "3"), ("allowRemoteGPSD", "1"),
    ])
    func aBadValueIsAnErrorNamingTheKey(key: String, value: String) {
        var config = DaemonConfig(environment: [:])
        let before = config
        do {
            try config.apply(file: Data("{\"\(key)\": \(value)}".utf8), path: "c.json")
            Issue.record("\(key) = \(value) was accepted")
        } catch {
            #expect(error.key == key)
            #expect(error.origin == "c.json")
        }
        #expect(config == before, "a refused value changes nothing")
    }

    @Test(arguments: [
        (#"5"#, "buttons"), (#""""#, "buttons"), (#"{"notHere": "KEY_N"}"#, "buttons.device"),
        (#"{"device": "/dev/input/event0", "notHere": "KEY_NOPE"}"#, "buttons.notHere"),
        (#"{"device": "/dev/input/event0", "thisIsIt": 0}"#, "buttons.thisIsIt"),
        (#"{"device": "/dev/input/event0", "repeat": 4.5}"#, "buttons.repeat"),
        (#"{"device": "/dev/input/event0", "yes": "KEY_Y"}"#, "buttons.yes"),
        (#"{"device": "/dev/input/event0", "notHere": "KEY_Y"}"#, "buttons"),
        (#"{"device": ["/dev/input/event0", 3]}"#, "buttons.device"),
        // Before, "buttons.device": missing — the misspelt key went unnamed.
        (#"{"devices": "/dev/input/x"}"#, "buttons.devices"),
    ])
    func aBadButtonsValueNamesItsKey(value: String, key: String) {
        var config = DaemonConfig(environment: [:])
        do {
            try config.apply(file: Data("{\"buttons\": \(value)}".utf8), path: "c.json")
            Issue.record("buttons = \(value) was accepted")
        } catch {
            #expect(error.key == key, "\(error)")
            #expect(error.description.hasPrefix("c.json: key \"\(key)\": "))
        }
        #expect(config.buttons == nil)
    }

    @Test func buttonsByPathNamesOrCodes() throws {
        var config = DaemonConfig(environment: [:])
        try config.set("buttons", .string("/dev/input/event3"), origin: "--buttons")
        var expected = ButtonMap(devices: ["/dev/input/event3"])
        #expect(config.buttons == expected)
        #expect((expected.notHere, expected.thisIsIt, expected.repeatLast) == (49, 21, 19))
        try config.apply(
            file: Data(
                #"{"buttons": {"device": ["/dev/input/a", "/dev/input/b"], "notHere": "key_kp1", "thisIsIt": "BTN_0", "repeat": 28}}"#
                    .utf8), path: "c.json")
        expected = ButtonMap(devices: ["/dev/input/a", "/dev/input/b"])
        (expected.notHere, expected.thisIsIt, expected.repeatLast) = (79, 256, 28)
        #expect(config.buttons == expected)
        // A flag's path over the file's keys changes only the devices.
        try config.set("buttons", .string("/dev/input/c,/dev/input/d"), origin: "--buttons")
        expected.devices = ["/dev/input/c", "/dev/input/d"]
        #expect(config.buttons == expected)
        #expect(KeyNames.name(of: 49) == "KEY_N" && KeyNames.name(of: 700) == "700")
        try config.set("buttons", .null, origin: "c.json")
        #expect(config.buttons == nil)
    }

    @Test func malformedJSONAndNonObjectsNameTheFile() {
        var config = DaemonConfig(environment: [:])
        for text in ["{\"baro\": ", "[1, 2]"] {
            do {
                try config.apply(file: Data(text.utf8), path: "/etc/c.json")
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.key == nil)
                #expect(error.description.hasPrefix("/etc/c.json: "))
            }
        }
    }

    /// Before, a lone surrogate said "field logLevel: expected an object".
    @Test func aLoneSurrogateIsNamedAsOne() {
        var config = DaemonConfig(environment: [:])
        do {
            try config.apply(file: Data(#"{"logLevel": "\ud800"}"#.utf8), path: "c.json")
            Issue.record("a lone surrogate was accepted")
        } catch {
            #expect(
                error.description.contains("field logLevel: a \\u escape is half of a UTF-16 surrogate pair"),
                "\(error)")
        }
    }

    @Test func aRemoteGPSDIsRefusedUnlessAllowed() throws {
        var config = DaemonConfig(environment: [:])
        try config.set("gpsd", .string("192.168.1.5:2947"), origin: "--gpsd")
        #expect(throws: DaemonConfigError.self) { try config.validate() }
        do { try config.validate() } catch { #expect(error.key == "gpsd") }
        config.allowRemoteGPSD = true
        try config.validate()
        config.allowRemoteGPSD = false
        config.nmea = "/dev/ttyACM0"
        try config.validate()  // gpsd is not used at all
    }

    @Test(arguments: [
        "127.0.0.1:2947", "127.8.0.1:1", "localhost:2947", "[::1]:2947", "LOCALHOST:2947",
        "[0:0:0:0:0:0:0:1]:2947",
    ])
    func loopbackGPSDIsAccepted(address: String) throws {
        var config = DaemonConfig(environment: [:])
        try config.set("gpsd", .string(address), origin: "--gpsd")
        #expect(config.gpsd.isLoopback)
        try config.validate()
    }

    /// A bare `::1` says which host but no port: refused, saying how to write one. Before: read
    /// as host ":" port 1, then refused as a remote gpsd.
    @Test func aBareIPv6GPSDIsRefusedSayingToUseBrackets() {
        var config = DaemonConfig(environment: [:])
        do {
            try config.set("gpsd", .string("::1"), origin: "--gpsd")
            Issue.record("a bare ::1 was accepted as \(config.gpsd)")
        } catch {
            #expect(error.description.contains("[::1]:2947"), "\(error)")
        }
    }

    /// A host without a port is told a port is needed, with no word of IPv6 (before: "is not
    /// HOST:PORT (an IPv6 address in brackets: [::1]:2947)" for `localhost`).
    @Test(arguments: ["localhost", "gps.example", "127.0.0.1"])
    func aHostWithoutAPortIsRefusedWithoutTheIPv6Hint(address: String) {
        var config = DaemonConfig(environment: [:])
        do {
            try config.set("gpsd", .string(address), origin: "--gpsd")
            Issue.record("\(address) was accepted as \(config.gpsd)")
        } catch {
            #expect(error.description.hasSuffix("is not HOST:PORT"), "\(error)")
            #expect(!error.description.contains("IPv6"), "\(error)")
        }
    }

    @Test(arguments: ["10.0.0.1:2947", "gps.example:2947", "128.0.0.1:2947", "[fe80::1]:2947", "[::2]:2947"])
    func otherHostsAreNotLoopback(address: String) throws {
        let endpoint = try #require(DaemonConfig.Endpoint(address))
        #expect(!endpoint.isLoopback)
    }

    /// Before, paths were used as written: `~` literally, a relative path from wherever the
    /// daemon was started.
    @Test func pathsInAFileAreFromHomeAndTheFilesFolder() throws {
        var config = DaemonConfig(environment: [:])
        try config.apply(
            file: Data(
                #"""
                {"memory": "~/pf/memory.json", "doors": "doors.db", "gazetteer": "../g.sqlite",
                 "socket": "/run/pf.sock", "speakWav": "~", "nmea": "rec/walk.nmea",
                 "buttons": {"device": ["~/fifo", "/dev/input/event0"]}}
                """#.utf8), path: "/etc/pf/c.json", environment: ["HOME": "/home/w/"])
        #expect(config.memory == "/home/w/pf/memory.json")
        #expect(config.doors == "/etc/pf/doors.db" && config.gazetteer == "/etc/pf/../g.sqlite")
        #expect(config.socket == "/run/pf.sock" && config.speakWav == "/home/w")
        #expect(config.nmea == "/etc/pf/rec/walk.nmea")
        #expect(config.buttons?.devices == ["/home/w/fifo", "/dev/input/event0"])
        // "@name" is an abstract socket for the socket alone; elsewhere a file named "@…" in
        // the config's folder (before, in this stop: left relative to the working folder).
        try config.apply(
            file: Data(#"{"socket": "@pf", "memory": "@m.json"}"#.utf8), path: "/etc/pf/c.json",
            environment: ["HOME": "/home/w"])
        #expect(config.socket == "@pf" && config.memory == "/etc/pf/@m.json")
        // A flag is the user's, relative to the working directory as usual.
        try config.set("memory", .string("rel/m.json"), origin: "--memory")
        #expect(config.memory == "rel/m.json")
        do {
            try config.apply(file: Data(#"{"memory": "~bob/m.json"}"#.utf8), path: "/etc/pf/c.json")
            Issue.record("~bob was accepted")
        } catch {
            #expect(error.key == "memory")
            #expect(error.description.contains("not ~user"), "\(error)")
        }
    }

    /// Before, the default path from a long $XDG_RUNTIME_DIR passed, and bind failed with exit
    /// 1 ("File name too long"): systemd restarted the daemon in a loop.
    @Test func aDefaultSocketPathTooLongIsABadSettingNamingWhereItCameFrom() {
        let config = DaemonConfig(environment: [
            "XDG_RUNTIME_DIR": "/run/" + String(repeating: "u", count: 100)
        ])
        do {
            try config.validate()
            Issue.record("a \(config.socket.utf8.count)-byte socket path was accepted")
        } catch {
            #expect(error.key == "socket")
            #expect(error.origin.contains("$XDG_RUNTIME_DIR"), "\(error)")
            #expect(error.message.contains("must be shorter than 108"), "\(error)")
        }
    }

    /// Before: /dev/zero was "a device … (a serial receiver: `fixes --device` reads one)", and
    /// a dangling link at the default path meant "no config" (`fileExists` follows links). A
    /// pipe is read, as `--config <(…)` and `/dev/stdin` give one (refused for a moment in
    /// stop 43, a review found).
    @Test func onlyARegularFileIsAConfigAndADanglingDefaultIsAnError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-config-\(UUID())").path
        try FileManager.default.createDirectory(
            atPath: dir + "/.config/pathfinder", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/config.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // The pipe's writer (a load without one would wait for it, as `cat` does).
        let writer = Thread {
            for _ in 0..<50 {
                usleep(100_000)
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 {
                    _ = write(fd, "{}", 2)
                    close(fd)
                    return
                }
            }
        }
        writer.start()
        #expect(try DaemonConfig.load(path: fifo, environment: ["HOME": dir]).file == fifo)
        for (path, expected) in [("/dev/zero", "is a character device, not a regular file")] {
            do {
                _ = try DaemonConfig.load(path: path, environment: ["HOME": dir])
                Issue.record("\(path) was read as a config")
            } catch {
                #expect(error.description == "\(path): cannot read the config file: \(expected)")
            }
        }
        let link = dir + "/.config/pathfinder/config.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir + "/gone.json")
        do {
            _ = try DaemonConfig.load(path: nil, environment: ["HOME": dir])
            Issue.record("a dangling default config was taken as none")
        } catch {
            #expect(
                error.description
                    == "\(link): cannot read the config file: is a symbolic link to \(dir)/gone.json, which does not exist"
            )
        }
    }

    @Test func anExplicitConfigMustExistButTheDefaultMayNot() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-config-\(UUID())").path
        #expect(throws: DaemonConfigError.self) {
            try DaemonConfig.load(path: dir + "/missing.json", environment: ["HOME": dir])
        }
        let config = try DaemonConfig.load(path: nil, environment: ["HOME": dir])
        #expect(config == DaemonConfig(environment: ["HOME": dir]))
    }
}
