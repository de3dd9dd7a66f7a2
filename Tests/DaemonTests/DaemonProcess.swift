import Daemon
import Foundation
import Glibc
import TestSupport
import Testing

/// The built `pathfinder` binary run as `pathfinder daemon …` in a subprocess, as a service
/// manager would run it; its standard error goes to a file for assertions.
final class DaemonProcess {
    let process = Process()
    let socket: String
    let stderrPath: String

    /// Writes `dir/config.json` for a daemon with its socket, memory and WAVs in `dir`, no
    /// microphone or barometer, gpsd at 127.0.0.1:29471; `extra` adds keys
    /// (`, "buttons": …`). Returns its path.
    static func writeConfig(_ dir: TempDir, _ extra: String = "") throws -> String {
        let path = dir.path + "/config.json"
        try """
        {"socket": "\(dir.path)/pf.sock", "memory": "\(dir.path)/memory.json", "mic": false,
         "speakWav": "\(dir.path)/wav", "gpsd": "127.0.0.1:29471", "baro": "none"\(extra)}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The user that owns a file the daemon must not be able to read (`nobody`).
    static let unprivileged: uid_t = 65534

    /// `setpriv` arguments that keep root but drop the two capabilities that let root read
    /// any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): a file of another user with mode
    /// 0600 then fails with EACCES, while the build directory, fixtures and temporary
    /// directories stay reachable wherever the checkout lies (even under a 0700 home).
    static let withoutReadOverride = [
        "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search", "--",
    ]

    /// A daemon on `writeConfig(dir)`'s config, listening (the test stops at once if it does not).
    static func listening(in dir: TempDir) throws -> DaemonProcess {
        let daemon = try DaemonProcess(
            arguments: ["--config", try writeConfig(dir)], socket: dir.path + "/pf.sock", dir: dir)
        try #require(daemon.waitUntilListening(), "daemon did not start: \(daemon.stderr)")
        return daemon
    }

    /// Starts the daemon; does not wait for it. `asUnprivileged`: through `setpriv` without
    /// root's power to read any file (``withoutReadOverride``) when the tests run as root.
    init(
        arguments: [String], socket: String, dir: TempDir, environment: [String: String] = [:],
        asUnprivileged: Bool = false, workingDirectory: String? = nil
    ) throws {
        self.socket = socket
        stderrPath = dir.path + "/daemon-\(UUID().uuidString.prefix(4)).log"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        if asUnprivileged, getuid() == 0 {
            // setpriv execs the daemon in place: the pid stays the daemon's.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                Self.withoutReadOverride + [try BuiltExecutable.pathfinder().path, "daemon"] + arguments
        } else {
            process.executableURL = try BuiltExecutable.pathfinder()
            process.arguments = ["daemon"] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = dir.path  // no stray user config is read
        env["XDG_CONFIG_HOME"] = nil
        env["NOTIFY_SOCKET"] = nil
        env.merge(environment) { _, new in new }
        process.environment = env
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits (bounded, 20 s) until the socket answers; false if the daemon died or never listened.
    func waitUntilListening() -> Bool {
        for _ in 0..<2000 {
            if !process.isRunning { return false }
            if (try? ControlClient(path: socket)) != nil { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits (bounded, 20 s) until the daemon's log holds `text`; whether it came.
    func logs(_ text: String) -> Bool {
        for _ in 0..<2000 {
            if stderr.contains(text) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits (bounded, 20 s) for the process to end; its exit code, or nil if it is still running.
    func waitForExit() -> Int32? {
        for _ in 0..<2000 {
            if !process.isRunning { return process.terminationStatus }
            usleep(10_000)
        }
        return nil
    }

    /// ``waitForExit()`` for a daemon that should end by itself: one still running after it is
    /// killed (SIGKILL), so a failing test leaves no daemon behind; nil then.
    func waitForExitOrKill() -> Int32? {
        let code = waitForExit()
        if code == nil { signal(SIGKILL) }
        return code
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// The built `pathfinder` run as a family member runs a client command (`go`, `heard`, …)
    /// with `HOME` at `home` (no stray user config): its exit status, stdout and stderr.
    static func runClient(
        _ arguments: [String], home: String
    ) throws -> (status: Int32, out: String, err: String) {
        try runBinary(arguments, environment: ["HOME": home])
    }

    /// Runs `pathfinder ARGS` to its end with `environment` over this process's (without its
    /// `XDG_CONFIG_HOME`): its exit status, stdout and stderr.
    static func runBinary(
        _ arguments: [String], environment: [String: String]
    ) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = try BuiltExecutable.pathfinder()
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = nil
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both are a few lines: well under a pipe's buffer, so neither blocks the other.
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    /// A connected client with a bounded read time-out.
    func client() throws -> ControlClient {
        let client = try ControlClient(path: socket)
        client.setReadTimeout(seconds: 20)
        return client
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// The network sockets (TCP/UDP over IPv4/IPv6) a process holds, from /proc: its `fd`
/// directory names socket inodes, `net/{tcp,tcp6,udp,udp6}` map inodes to addresses.
struct ProcessSockets {
    /// Every socket inode among the process's descriptors.
    var inodes: Set<String> = []
    /// (protocol, local "ADDR:PORT" hex, remote "ADDR:PORT" hex) of each network socket.
    var network: [(proto: String, local: String, remote: String)] = []
    /// Paths of the process's Unix sockets that have one.
    var unixPaths: [String] = []

    init(pid: Int32) {
        // readdir and readlink one descriptor at a time: a descriptor the process closes during
        // the scan (its threads open and close files: ALSA, the door index) is skipped, where
        // `contentsOfDirectory` could fail the whole listing and see no socket at all (a CI
        // run saw the daemon hold none).
        let fdDir = "/proc/\(pid)/fd"
        if let dir = opendir(fdDir) {
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard name != ".", name != ".." else { continue }
                var buffer = [CChar](repeating: 0, count: 256)
                let count = readlink("\(fdDir)/\(name)", &buffer, buffer.count - 1)
                guard count > 0 else { continue }
                let target = String(
                    decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard target.hasPrefix("socket:[") else { continue }
                inodes.insert(String(target.dropFirst(8).dropLast()))
            }
        }
        for proto in ["tcp", "tcp6", "udp", "udp6"] {
            let table = Self.whole("/proc/\(pid)/net/\(proto)")
            for line in table.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                guard columns.count > 9, inodes.contains(String(columns[9])) else { continue }
                network.append((proto, String(columns[1]), String(columns[2])))
            }
        }
        let unix = Self.whole("/proc/\(pid)/net/unix")
        for line in unix.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ")
            guard columns.count > 7, inodes.contains(String(columns[6])) else { continue }
            unixPaths.append(String(columns[7]))
        }
    }

    /// A /proc file read to its end ("" when it cannot be read). `String(contentsOfFile:)`
    /// reads one that says its size is 0 only as far as its first 4 KiB, and the socket tables
    /// list the whole namespace's: on a busy machine the daemon's lines come later.
    static func whole(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// "0100007F:0B83" (little-endian IPv4 hex, port hex) as ("127.0.0.1", 2947).
    static func decodeIPv4(_ text: String) -> (String, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 8, let raw = UInt32(parts[0], radix: 16),
            let port = Int(parts[1], radix: 16)
        else { return nil }
        let bytes = (0..<4).map { (raw >> (8 * $0)) & 0xFF }
        return (bytes.map(String.init).joined(separator: "."), port)
    }
}

/// The names made in one folder (`IN_CREATE`, from an inotify watch): a file that is there
/// only for a moment, made and removed between two looks, is seen all the same.
final class FolderWatch {
    private let fd: Int32

    init(_ folder: String) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(fd >= 0, "inotify_init1: \(String(cString: strerror(errno)))")
        try #require(
            inotify_add_watch(fd, folder, UInt32(IN_CREATE)) >= 0,
            "inotify_add_watch \(folder): \(String(cString: strerror(errno)))")
    }

    /// The names made in the folder since the watch began (or since the last call), in order.
    func created() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let header = MemoryLayout<inotify_event>.size
        while case let count = read(fd, &buffer, buffer.count), count > 0 {
            var offset = 0
            while offset + header <= count {
                let event = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                }
                let name = buffer[(offset + header)..<(offset + header + Int(event.len))].prefix { $0 != 0 }
                if event.mask & UInt32(IN_CREATE) != 0 { names.append(String(decoding: name, as: UTF8.self)) }
                offset += header + Int(event.len)
            }
        }
        return names
    }

    deinit { close(fd) }
}
