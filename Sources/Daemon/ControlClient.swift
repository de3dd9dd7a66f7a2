// <linux/input.h> (the buttons) pulls in `struct timeval`; Swift then wants its module named.
import CInput
import Diagnostics
import Foundation
import Glibc
import SystemCalls

/// A blocking client of the control socket, for the `pathfinder go|status|stop|where`
/// commands and tests: one request line out, reply lines in.
package final class ControlClient: @unchecked Sendable {
    // Safe: one thread at a time uses a client; handing it to another thread (a test's
    // reader) is a transfer, after which the first never touches it.
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Why talking to the daemon failed.
    package enum Failure: Error, CustomStringConvertible, Equatable {
        /// Nothing listens at the path (no file, or a stale one).
        case notRunning(String)
        /// The path names a file of another kind (`kind`: "a regular file", "a directory"):
        /// bad input, not a daemon that is down.
        case notASocket(String, kind: String)
        /// A part of the path's folder is a file of another kind (`reason`: "/x/notes.txt is a
        /// regular file, not a folder"): no socket can be there, bad input too.
        case notInAFolder(String, reason: String)
        case io(String)

        package var description: String {
            switch self {
            case .notRunning(let path): "the pathfinder daemon is not running (no answer on \(path))"
            case .notASocket(let path, let kind):
                "\(path): is \(kind), not a socket (the daemon's control socket is given by --socket or the config's \"socket\")"
            case .notInAFolder(let path, let reason):
                "\(path): \(reason), so no socket is there (the daemon's control socket is given by --socket or the config's \"socket\")"
            case .io(let message): message
            }
        }
    }

    /// Whether `path` fits a socket address (under 108 bytes): the daemon refuses a longer
    /// one as bad usage, and so do its clients.
    package static func fits(_ path: String) -> Bool { unixAddress(path) != nil }

    /// Connects to the daemon's socket.
    /// - Throws: `Failure.notRunning` when there is no socket or nobody answers on it.
    package init(path: String) throws(Failure) {
        let connected: Int32
        do {
            connected = try connectUnixStream(path)
        } catch {
            // connect(2) says ECONNREFUSED of a file that is no socket too (before: "not
            // running" for /etc/passwd).
            if let kind = Self.kindIfNoSocket(path) { throw .notASocket(path, kind: kind) }
            // Below a file (before: "connect: Not a directory", exit 1).
            if error.code == ENOTDIR, !path.hasPrefix("@"),
                let reason = FileDiagnostics.partThatIsNoFolder(of: path)
            {
                throw .notInAFolder(path, reason: reason)
            }
            if [ENOENT, ECONNREFUSED, ENOTSOCK].contains(error.code) { throw .notRunning(path) }
            throw .io("\(path): \(error)")
        }
        // Only this account's daemon hears the walker's destinations: in a shared folder
        // (`/tmp`) another user could make the socket first and answer in its place (before,
        // a query went to it and its "ok" was printed).
        // `struct ucred` (pid, uid, gid: three 32-bit fields), which Glibc's module hides
        // behind _GNU_SOURCE.
        var credentials: [UInt32] = [0, 0, 0]
        var size = socklen_t(MemoryLayout<UInt32>.size * 3)
        guard getsockopt(connected, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else {
            let code = errno
            try? closeDescriptor(connected)
            throw .io("\(path): getsockopt SO_PEERCRED: \(String(cString: strerror(code)))")
        }
        let (peerPID, peerUID) = (Int32(bitPattern: credentials[0]), uid_t(credentials[1]))
        // Root may talk to another user's daemon in a folder no one else can write in (`sudo
        // pathfinder stop --socket /run/user/1000/pathfinder.sock`); in a shared one (/tmp)
        // anyone could have made the socket, root's default included.
        let rootInPrivateFolder =
            geteuid() == 0 && ControlServer.folderStatus(of: path).map { $0.st_mode & 0o022 == 0 } == true
        guard peerUID == geteuid() || rootInPrivateFolder else {
            try? closeDescriptor(connected)
            throw .io(
                "\(path): served by another user's process (uid \(peerUID), pid \(peerPID)), not this account's pathfinder daemon; not sending to it"
            )
        }
        fd = connected
    }

    deinit { try? closeDescriptor(fd) }

    /// What is at `path` (its link followed, as `connect` follows it) when it is there and no
    /// socket; nil for a socket, nothing there, or an abstract name.
    private static func kindIfNoSocket(_ path: String) -> String? {
        if path.hasPrefix("@") { return nil }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK else { return nil }
        return FileDiagnostics.kind(ofMode: info.st_mode) ?? "a regular file"
    }

    /// Gives up reading after `seconds` without data (`readLine` then returns nil).
    package func setReadTimeout(seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = try? retryingOnInterrupt("setsockopt") {
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Writes raw bytes (a test may send something that is not a line).
    package func write(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { raw in
                Result { () throws(SystemCallError) in
                    try retryingOnInterrupt("send") {
                        Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                    }
                }
            }
            switch sent {
            case .success(let n) where n > 0: offset += n
            case .success: throw .io("send: the daemon accepted nothing")
            case .failure(let error): throw .io("\(error)")
            }
        }
    }

    /// Sends one line (a newline is added).
    package func send(_ line: String) throws(Failure) { try write(Array((line + "\n").utf8)) }

    /// The next line from the daemon, without its newline; nil at end or on time-out.
    package func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = chunk.withUnsafeMutableBytes { raw in
                (try? retryingOnInterrupt("recv") { recv(fd, raw.baseAddress, raw.count, 0) }) ?? 0
            }
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Sends one request line and returns the reply line.
    /// - Throws: `Failure.io` if the daemon closes the connection without replying.
    package func request(_ line: String) throws(Failure) -> String {
        try send(line)
        guard let reply = readLine() else { throw .io("the daemon closed the connection without a reply") }
        return reply
    }
}
