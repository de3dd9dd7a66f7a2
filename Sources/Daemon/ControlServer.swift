package import Foundation
import Glibc
package import SystemCalls

/// The control socket: a Unix stream socket (mode 0600) speaking JSON lines, served by one
/// dedicated I/O thread with `poll(2)` over non-blocking descriptors.
///
/// Requests go out through `onIncoming` (the daemon's one serial loop); replies and
/// subscription events come back through `send`, `subscribe` and `broadcast`, which any
/// thread may call. No client can disturb another: a line longer than `maxLineBytes` is
/// reported and discarded up to its newline, and a client whose unread output passes
/// `maxPendingBytes` (a subscriber that stopped reading) is dropped.
package final class ControlServer: @unchecked Sendable {
    // Safe: `clients`, `listenFD` and the descriptors are touched only by the I/O thread
    // (and by `start` before the thread exists); `outbox`, `stopping` and `thread` only
    // under `lock`; the wake pipe is written by any thread, one byte at a time.

    /// Identifies one connection for the life of the server.
    package typealias ClientID = Int

    /// What the I/O thread hands to the daemon.
    package enum Incoming: Sendable, Equatable {
        /// One request line, without its newline.
        case line(ClientID, Data)
        /// A line longer than the limit arrived (and was discarded).
        case oversized(ClientID)
        /// The client went away or was dropped.
        case closed(ClientID)
    }

    /// Why the server could not start.
    package enum StartError: Error, CustomStringConvertible, Equatable {
        /// Another daemon answers on the socket.
        case alreadyRunning(String)
        /// The path exists and is not a socket: never delete what is not ours.
        case notASocket(String)
        case system(String, SystemCallError)

        package var description: String {
            switch self {
            case .alreadyRunning(let path): "\(path): another pathfinder daemon is running there"
            case .notASocket(let path): "\(path): exists and is not a socket; not replacing it"
            case .system(let path, let error): "\(path): \(error)"
            }
        }
    }

    private enum Outgoing {
        case line(ClientID, [UInt8])
        case subscribe(ClientID)
        case broadcast([UInt8])
        case close(ClientID)
    }

    private struct Client {
        let fd: Int32
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputStart = 0
        var discarding = false
        var subscribed = false
        var pending: Int { output.count - outputStart }
    }

    /// The socket's path.
    package let path: String
    /// The longest request line accepted, bytes (64 KiB).
    package let maxLineBytes: Int
    /// The most unread output kept per client before it is dropped, bytes.
    package let maxPendingBytes: Int
    /// The most clients at once; more are closed at accept.
    package let maxClients: Int
    private let onIncoming: @Sendable (Incoming) -> Void

    private var listenFD: Int32 = -1
    private var boundInode: ino_t = 0
    /// A self-pipe: any thread writes a byte to wake `poll`.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Why the wake pipe could not be made (reported by `start`).
    private let wakeFailure: SystemCallError?
    private var clients: [ClientID: Client] = [:]
    private var nextID: ClientID = 1
    private let lock = NSLock()
    private var outbox: [Outgoing] = []
    private var stopping = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    package init(
        path: String, maxLineBytes: Int = 64 * 1024, maxPendingBytes: Int = 512 * 1024, maxClients: Int = 32,
        onIncoming: @escaping @Sendable (Incoming) -> Void
    ) {
        self.path = path
        self.maxLineBytes = maxLineBytes
        self.maxPendingBytes = maxPendingBytes
        self.maxClients = maxClients
        self.onIncoming = onIncoming
        do {
            (wakeRead, wakeWrite) = try makePipe(nonBlocking: true)
            wakeFailure = nil
        } catch {
            (wakeRead, wakeWrite) = (-1, -1)
            wakeFailure = error
        }
    }

    deinit {
        if wakeRead >= 0 { try? closeDescriptor(wakeRead) }
        if wakeWrite >= 0 { try? closeDescriptor(wakeWrite) }
    }

    /// Binds the socket (replacing a stale one safely) and starts the I/O thread.
    /// - Throws: `StartError.alreadyRunning` if a live daemon answers on `path`.
    package func start() throws(StartError) {
        if let wakeFailure { throw .system(path, wakeFailure) }
        try removeStaleSocket()
        let fd: Int32
        do {
            fd = try retryingOnInterrupt("socket") {
                socket(
                    AF_UNIX,
                    Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                        | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch { throw .system(path, error) }
        guard let (initialAddress, length) = unixAddress(path) else {
            try? closeDescriptor(fd)
            throw .system(path, SystemCallError(call: "bind", code: ENAMETOOLONG))
        }
        var address = initialAddress
        // The socket is created 0600 from the start (umask), not chmod-ed after a window.
        let oldMask = umask(0o177)
        let bound = Result { () throws(SystemCallError) in
            try withUnsafePointer(to: &address) { (pointer) throws(SystemCallError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    (raw) throws(SystemCallError) in
                    try retryingOnInterrupt("bind") { bind(fd, raw, length) }
                }
            }
        }
        umask(oldMask)
        if case .failure(let error) = bound {
            try? closeDescriptor(fd)
            throw .system(path, error)
        }
        _ = try? retryingOnInterrupt("chmod") { chmod(path, 0o600) }
        var info = stat()
        if (try? retryingOnInterrupt("stat") { stat(path, &info) }) != nil { boundInode = info.st_ino }
        do {
            try retryingOnInterrupt("listen") { listen(fd, 16) }
        } catch {
            try? closeDescriptor(fd)
            _ = try? retryingOnInterrupt("unlink") { unlink(path) }
            throw .system(path, error)
        }
        listenFD = fd
        let thread = Thread { [self] in run() }
        thread.name = "pathfinder-control"
        lock.withLock { self.thread = thread }
        thread.start()
    }

    /// A socket file left by a daemon that died answers connect() with ECONNREFUSED: remove
    /// it. One that answers belongs to a live daemon: refuse to start.
    private func removeStaleSocket() throws(StartError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path) }
        do {
            let fd = try connectUnixStream(path)
            try? closeDescriptor(fd)
            throw StartError.alreadyRunning(path)
        } catch let error as SystemCallError where error.code == ECONNREFUSED {
            _ = try? retryingOnInterrupt("unlink") { unlink(path) }
        } catch let error as SystemCallError where error.code == ENOENT {
            return
        } catch let error as StartError {
            throw error
        } catch let error as SystemCallError {
            throw .system(path, error)
        } catch {
            throw .system(path, SystemCallError(call: "connect", code: EIO))
        }
    }

    /// Queues one line (a newline is added) for `client`.
    package func send(_ line: String, to client: ClientID) {
        post(.line(client, Array((line + "\n").utf8)))
    }

    /// From now on, `client` receives every `broadcast` line.
    package func subscribe(_ client: ClientID) { post(.subscribe(client)) }

    /// Queues one line for every subscribed client.
    package func broadcast(_ line: String) { post(.broadcast(Array((line + "\n").utf8))) }

    /// Closes `client`'s connection once what is queued for it is written (best effort).
    package func disconnect(_ client: ClientID) { post(.close(client)) }

    /// Stops the I/O thread, closes every connection and removes the socket file.
    package func stop() {
        let running: Bool = lock.withLock {
            guard thread != nil, !stopping else { return false }
            stopping = true
            return true
        }
        guard running else { return }
        wake()
        finished.wait()
    }

    private func post(_ item: Outgoing) {
        lock.withLock { outbox.append(item) }
        wake()
    }

    private func wake() {
        // A full pipe already guarantees a wake-up, so a failed write loses nothing.
        var one: UInt8 = 1
        _ = try? retryingOnInterrupt("write") { write(wakeWrite, &one, 1) }
    }

    // MARK: The I/O thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let ids = Array(clients.keys)
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0))
            for id in ids {
                let client = clients[id]!
                var events = Int16(POLLIN)
                if client.pending > 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: client.fd, events: events, revents: 0))
            }
            guard (try? retryingOnInterrupt("poll") { poll(&fds, nfds_t(fds.count), -1) }) != nil else {
                break
            }
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 256)
                while ((try? retryingOnInterrupt("read") { read(wakeRead, &drain, drain.count) }) ?? 0) > 0 {}
                let (items, stop) = lock.withLock {
                    defer { outbox.removeAll(keepingCapacity: true) }
                    return (outbox, stopping)
                }
                // What the loop sent before stopping still goes out (as far as the
                // sockets take it without waiting): the last events of a SIGTERM'd walk.
                for item in items { apply(item) }
                if stop { break }
            }
            if fds[1].revents & Int16(POLLIN) != 0 { acceptAll() }
            for (index, id) in ids.enumerated() {
                let revents = fds[index + 2].revents
                guard revents != 0, clients[id] != nil else { continue }
                if revents & Int16(POLLOUT) != 0 { flush(id) }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrom(id, into: &buffer) }
            }
        }
        for id in Array(clients.keys) { drop(id, notify: false) }
        try? closeDescriptor(listenFD)
        var info = stat()
        // Remove the file only if it is still the socket we bound, not a successor's.
        if (try? retryingOnInterrupt("stat") { stat(path, &info) }) != nil, info.st_ino == boundInode {
            _ = try? retryingOnInterrupt("unlink") { unlink(path) }
        }
        finished.signal()
    }

    private func apply(_ item: Outgoing) {
        switch item {
        case .line(let id, let bytes): enqueue(bytes, for: id)
        case .subscribe(let id): clients[id]?.subscribed = true
        case .broadcast(let bytes):
            for (id, client) in clients where client.subscribed { enqueue(bytes, for: id) }
        case .close(let id):
            flush(id)
            drop(id, notify: true)
        }
    }

    private func enqueue(_ bytes: [UInt8], for id: ClientID) {
        guard var client = clients[id] else { return }
        if client.outputStart > 0 && client.outputStart >= client.output.count / 2 {
            client.output.removeFirst(client.outputStart)
            client.outputStart = 0
        }
        client.output += bytes
        clients[id] = client
        if client.pending > maxPendingBytes {
            drop(id, notify: true)
        } else {
            flush(id)
        }
    }

    private func flush(_ id: ClientID) {
        guard var client = clients[id], client.pending > 0 else { return }
        defer { if clients[id] != nil { clients[id] = client } }
        while client.pending > 0 {
            let sent = client.output[client.outputStart...].withUnsafeBytes { raw in
                Result { () throws(SystemCallError) in
                    try retryingOnInterrupt("send") {
                        Glibc.send(client.fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                    }
                }
            }
            if case .success(let n) = sent, n > 0 {
                client.outputStart += n
            } else if case .failure(let error) = sent, error.code == EAGAIN || error.code == EWOULDBLOCK {
                return
            } else {
                clients[id] = client
                drop(id, notify: true)
                return
            }
        }
        client.output.removeAll(keepingCapacity: true)
        client.outputStart = 0
    }

    private func acceptAll() {
        while true {
            // EAGAIN: none left; anything else: try again at the next poll.
            guard let fd = try? retryingOnInterrupt("accept", { accept(listenFD, nil, nil) }) else { return }
            guard clients.count < maxClients, (try? makeNonBlocking(fd)) != nil else {
                try? closeDescriptor(fd)
                continue
            }
            clients[nextID] = Client(fd: fd)
            nextID += 1
        }
    }

    private func readFrom(_ id: ClientID, into buffer: inout [UInt8]) {
        while var client = clients[id] {
            let received = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemCallError) in
                    try retryingOnInterrupt("recv") { recv(client.fd, raw.baseAddress, raw.count, 0) }
                }
            }
            if case .failure(let error) = received, error.code == EAGAIN || error.code == EWOULDBLOCK {
                return
            }
            guard case .success(let n) = received, n > 0 else {
                drop(id, notify: true)
                return
            }
            var lines: [Incoming] = []
            for byte in buffer[0..<n] {
                if byte == UInt8(ascii: "\n") {
                    if client.discarding {
                        client.discarding = false
                    } else {
                        lines.append(.line(id, Data(client.input)))
                    }
                    client.input.removeAll(keepingCapacity: true)
                } else if !client.discarding {
                    client.input.append(byte)
                    if client.input.count > maxLineBytes {
                        client.input.removeAll()
                        client.discarding = true
                        lines.append(.oversized(id))
                    }
                }
            }
            clients[id] = client
            for line in lines { onIncoming(line) }
        }
    }

    private func drop(_ id: ClientID, notify: Bool) {
        guard let client = clients.removeValue(forKey: id) else { return }
        try? closeDescriptor(client.fd)
        if notify { onIncoming(.closed(id)) }
    }
}
