package import Foundation
import Glibc
package import SystemCalls

/// The control socket: a Unix stream socket (mode 0600) speaking JSON lines, served by one
/// dedicated I/O thread with `poll(2)` over non-blocking descriptors.
///
/// Requests go out through `onIncoming` (the daemon's one serial loop); replies and
/// subscription events come back through `send`, `subscribe` and `broadcast`, which any
/// thread may call. No client can disturb another: a line longer than `maxLineBytes` is
/// reported and discarded up to its newline, a client whose unread output passes
/// `maxPendingBytes` (a subscriber that stopped reading) is dropped, a connection that sends
/// no complete request for `idleSeconds` is closed (subscribers excepted; a connection
/// waiting for a reply is never idle), at most `maxQueuedRequests` of one client's lines
/// wait for the loop at once (the rest stay unread in its socket), a client that hangs up
/// is forgotten once the lines it wrote are handed out (at most `maxQueuedRequests`, run,
/// their replies going nowhere), and a connection beyond `maxClients` is told `busy` and
/// closed, never left waiting in silence. Only the daemon's own user (and root) is served: a
/// connection of any other uid (`SO_PEERCRED`) is closed unanswered at accept.
///
/// Every line handed out (`.line`, `.oversized`) gets exactly one reply through `send`, in
/// order: that is how the server knows which lines are still waiting.
package final class ControlServer: @unchecked Sendable {
    // Safe: `clients`, `listenFD` and the descriptors are touched only by the I/O thread
    // (and by `start` before the thread exists); `outbox` only under `lock`; the thread, its
    // stop flag and the wake pipe are `worker`'s (thread-safe).

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
        /// A connection sent no complete request for `idleSeconds` and was closed.
        case idle(ClientID)
        /// A client whose output waiting unread passed `maxPendingBytes` (a subscriber that
        /// stopped reading, a client that floods requests and reads no reply) was dropped:
        /// `unread` bytes. Before, it came as `closed`, a hang-up like any other.
        case dropped(ClientID, unread: Int)
        /// Connections were refused at the client limit: `refused` since the last report
        /// (reported at most every `busyReportSeconds`, so a flood is not a log flood; what
        /// is counted meanwhile is reported once that time has passed, or at `stop`).
        case busy(refused: Int)
        /// Connections of another user were closed unanswered: `refused` since the last report,
        /// of `uids` (`uid_t.max`: credentials unknown). The first is reported at once with its
        /// `pid`; the rest are counted and reported as `busy` is (`pid` nil: they may come
        /// from several processes).
        case foreign(uids: [uid_t], pid: Int32?, refused: Int)
        /// `poll(2)` kept failing: the server has stopped serving. The daemon must exit
        /// (non-zero, so systemd restarts it) rather than live on without its socket.
        case failed(String)
    }

    /// Why the server could not start.
    package enum StartError: Error, CustomStringConvertible, Equatable {
        /// Another daemon answers on the socket.
        case alreadyRunning(String)
        /// The path exists and is not a socket: never delete what is not ours.
        case notASocket(String)
        /// A socket there belongs to another user: in a shared folder (`/tmp`) anyone may
        /// make one first, to take the family's requests; never serve beside it or remove it.
        case ownedByAnother(String, uid: uid_t)
        case system(String, SystemCallError)

        package var description: String {
            switch self {
            case .alreadyRunning(let path): "\(path): another pathfinder daemon is running there"
            case .notASocket(let path): "\(path): exists and is not a socket; not replacing it"
            case .ownedByAnother(let path, let uid):
                "\(path): a socket of another user (uid \(uid)) is there; not replacing it (choose a socket in a folder of your own: --socket, or set XDG_RUNTIME_DIR)"
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
        /// Bytes received and not yet handed out: at most one partial line, or, while
        /// `maxQueuedRequests` lines wait, what the last `recv` brought beyond them.
        var input: [UInt8] = []
        /// No newline in `input` before this index (so a long line is scanned once).
        var scanned = 0
        var output: [UInt8] = []
        var outputStart = 0
        var discarding = false
        var subscribed = false
        /// The lines handed out and not yet answered, oldest first: whether each was a
        /// request (a blank line or an oversized one is not: it restarts no idle clock).
        var unanswered: [Bool] = []
        /// The client shut down its writing side (`nc -N`, socat): it is answered what it
        /// asked, then closed.
        var readClosed = false
        /// When the last request line arrived or was answered (or the connection was accepted).
        var lastRequest: ContinuousClock.Instant
        var pending: Int { output.count - outputStart }
    }

    /// The socket's path.
    package let path: String
    /// The longest request line accepted, bytes (64 KiB).
    package let maxLineBytes: Int
    /// The most unread output kept per client before it is dropped, bytes.
    package let maxPendingBytes: Int
    /// The most clients at once; one more is told `busy` and closed at accept.
    package let maxClients: Int
    /// A connection that sends no complete request for this long is closed, seconds
    /// (subscribers excepted: they only listen).
    package let idleSeconds: Double
    /// The most lines of one client handed to the loop and not yet answered; more are read
    /// only as these are answered. A client that writes thousands of requests at once makes
    /// another wait for at most this many of them, not all (the loop is serial).
    package let maxQueuedRequests: Int
    /// Refusals at the limit are reported at most this often, seconds.
    static let busyReportSeconds = 10.0
    private let onIncoming: @Sendable (Incoming) -> Void
    /// `poll(2)`; a test substitutes one that fails.
    private let pollCall: @Sendable (UnsafeMutablePointer<pollfd>, nfds_t, Int32) -> Int32
    private var busyRefusals = Refusals()
    private var foreignRefusals = Refusals()
    /// What was counted and not yet reported when the I/O thread ended; `stop` returns it.
    private var unreported: [Incoming] = []

    /// Refusals of one kind: the first is reported at once, those within `busyReportSeconds`
    /// of a report are counted and reported together once that time has passed.
    private struct Refusals {
        var count = 0
        /// The users refused since the last report, in order.
        var uids: [uid_t] = []
        var lastReport: ContinuousClock.Instant?

        /// When the counted refusals are to be reported; nil when none wait.
        var due: ContinuousClock.Instant? {
            count > 0 ? (lastReport ?? .now) + .seconds(ControlServer.busyReportSeconds) : nil
        }

        /// Counts one refusal; whether it is to be reported now (none for a while).
        mutating func count(uid: uid_t? = nil, now: ContinuousClock.Instant) -> Bool {
            count += 1
            if let uid, !uids.contains(uid) { uids.append(uid) }
            return lastReport.map { now - $0 >= .seconds(ControlServer.busyReportSeconds) } ?? true
        }

        /// The refusals counted, and a fresh count from `now`.
        mutating func take(now: ContinuousClock.Instant) -> (count: Int, uids: [uid_t]) {
            defer { self = Refusals(lastReport: now) }
            return (count, uids)
        }
    }

    private var listenFD: Int32 = -1
    private var boundInode: ino_t = 0
    /// Any thread wakes `poll` through it; a failure to make it is reported by `start`.
    private let worker = WakeableThread()
    private var wakePipe: WakePipe { worker.wakePipe }
    private var clients: [ClientID: Client] = [:]
    private var nextID: ClientID = 1
    private let lock = NSLock()
    private var outbox: [Outgoing] = []

    package init(
        path: String, maxLineBytes: Int = 64 * 1024, maxPendingBytes: Int = 512 * 1024, maxClients: Int = 32,
        idleSeconds: Double = 30, maxQueuedRequests: Int = 8,
        poll: @escaping @Sendable (UnsafeMutablePointer<pollfd>, nfds_t, Int32) -> Int32 = {
            Glibc.poll($0, $1, $2)
        },
        onIncoming: @escaping @Sendable (Incoming) -> Void
    ) {
        self.path = path
        self.maxLineBytes = maxLineBytes
        self.maxPendingBytes = maxPendingBytes
        self.maxClients = maxClients
        self.idleSeconds = idleSeconds
        self.maxQueuedRequests = maxQueuedRequests
        self.pollCall = poll
        self.onIncoming = onIncoming
    }

    /// What `start` would refuse at `path` now (a live daemon answering there, a file that is
    /// not a socket, another user's socket), changing nothing: a stale socket is left for
    /// `start` to remove. The daemon asks before it takes its memory, which comes before
    /// `start`, so a second daemon on the same socket is told so, not that the memory is in use.
    /// - Throws: `StartError`, as `start` would.
    package func refuseIfTaken() throws(StartError) {
        try removeStaleSocket(removing: false)
    }

    /// Binds the socket (replacing a stale one safely) and starts the I/O thread.
    /// - Throws: `StartError.alreadyRunning` if a live daemon answers on `path`.
    package func start() throws(StartError) {
        if let failure = wakePipe.failure { throw .system(path, failure) }
        try removeStaleSocket(removing: true)
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
        worker.start(name: "pathfinder-control") { [self] in run() }
    }

    /// A socket file left by a daemon that died answers connect() with ECONNREFUSED: remove
    /// it (when `removing`). One that answers belongs to a live daemon: refuse to start.
    private func removeStaleSocket(removing: Bool) throws(StartError) {
        // An abstract socket has no file (a file named "@…" in the working folder is not it) and
        // is never stale: the kernel lets the name go with its last descriptor. One that answers
        // is a live daemon's (before, the name went unchecked here, and a second daemon on it and
        // on the same memory was told only that the memory was in use).
        if path.hasPrefix("@") {
            if let fd = try? connectUnixStream(path) {
                try? closeDescriptor(fd)
                throw .alreadyRunning(path)
            }
            return
        }
        var info = stat()
        guard (try? retryingOnInterrupt("lstat") { lstat(path, &info) }) != nil else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path) }
        guard info.st_uid == geteuid() || Self.folderIsPrivate(of: path) else {
            throw .ownedByAnother(path, uid: info.st_uid)
        }
        do {
            let fd = try connectUnixStream(path)
            try? closeDescriptor(fd)
            throw StartError.alreadyRunning(path)
        } catch let error as SystemCallError where error.code == ECONNREFUSED {
            if removing { _ = try? retryingOnInterrupt("unlink") { unlink(path) } }
        } catch let error as SystemCallError
            where error.code == EACCES && info.st_uid != geteuid() && Self.folderIsPrivate(of: path)
        {
            // Another user's socket (mode 0600) in our own folder cannot be tried: one left
            // by a daemon run as root there is ours to clear; one still bound (the kernel's
            // list of sockets names it) belongs to a daemon running (before, in this stop: it
            // was removed, and root's daemon exited).
            guard !Self.isBound(path) else { throw StartError.alreadyRunning(path) }
            if removing { _ = try? retryingOnInterrupt("unlink") { unlink(path) } }
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

    /// Queues one line (a newline is added) for `client`: the reply to its oldest line not
    /// yet answered (each line handed out gets one), after which its next line is read.
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
    /// - Returns: the refusals counted and not yet reported (`busy`, `foreign`), for the
    ///   caller to log: its loop no longer reads `onIncoming`.
    @discardableResult
    package func stop() -> [Incoming] {
        worker.stop()
        return lock.withLock {
            defer { unreported = [] }
            return unreported
        }
    }

    private func post(_ item: Outgoing) {
        lock.withLock { outbox.append(item) }
        wake()
    }

    private func wake() { worker.wake() }

    // MARK: The I/O thread

    /// The most consecutive `poll` failures retried (with a doubling pause from 10 ms)
    /// before the server gives up and reports `.failed`.
    package static let pollRetries = 6

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var failures = 0
        while true {
            let ids = Array(clients.keys)
            var fds = [pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0)]
            fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0))
            for id in ids {
                let client = clients[id]!
                // No POLLIN while its lines wait (they stay in its socket); hang-ups are
                // reported whatever is asked for.
                var events = wantsInput(client) ? Int16(POLLIN) : 0
                if client.pending > 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: client.fd, events: events, revents: 0))
            }
            // No idle deadline (-1, "forever") still wakes for the path check: before, with no
            // client connected, poll slept for good and a deleted socket went unnoticed.
            let idle = timeoutMilliseconds()
            var wait = idle < 0 ? Self.pathCheckMilliseconds : min(idle, Self.pathCheckMilliseconds)
            // Refusals counted since the last report are reported when their time comes,
            // whether or not another arrives (before, only with the next refusal).
            if let due = [busyRefusals.due, foreignRefusals.due].compactMap({ $0 }).min() {
                wait = min(wait, Self.milliseconds(until: due))
            }
            let ready = fds.withUnsafeMutableBufferPointer {
                pollCall($0.baseAddress!, nfds_t($0.count), wait)
            }
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                failures += 1
                guard failures > Self.pollRetries else {
                    usleep(useconds_t(10_000 << (failures - 1)))
                    continue
                }
                onIncoming(
                    .failed(
                        "control socket: \(SystemCallError(call: "poll", code: code)); \(failures) failures in a row"
                    ))
                break
            }
            failures = 0
            // The socket file deleted or replaced: no client can reach this daemon, and a
            // second one would start on the path (before, it ran on unreachable, unsaid).
            if !pathIsOurs() {
                onIncoming(
                    .failed("control socket \(path) was removed or replaced; no client can reach this daemon")
                )
                break
            }
            if fds[0].revents != 0 {
                wakePipe.drain()
                // The flag before the outbox: whatever was posted before `stop` is taken.
                let stop = worker.isStopping
                let items = lock.withLock {
                    defer { outbox.removeAll(keepingCapacity: true) }
                    return outbox
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
                // POLLHUP: the peer closed its socket (a half-close is only POLLIN and an
                // end of file). It reads no reply, but what it wrote before closing is still
                // what it asked (a script that writes `{"cmd": "stop"}` and closes): its lines
                // are read and run, at most `maxQueuedRequests` of them, so nobody behind it
                // waits longer than that; the rest is not read.
                if revents & Int16(POLLHUP | POLLERR) != 0 {
                    if revents & Int16(POLLIN) != 0 { readFrom(id, into: &buffer) }
                    drop(id, notify: true)
                    continue
                }
                if revents & Int16(POLLOUT) != 0 { flush(id) }
                if revents & Int16(POLLIN) != 0 { readFrom(id, into: &buffer) }
            }
            // After reading: a request that arrives just as its deadline passes is served.
            closeIdleClients()
            closeAnsweredHalfClosed()
            for report in dueRefusals(at: .now, all: false) { onIncoming(report) }
        }
        let left = dueRefusals(at: .now, all: true)
        lock.withLock { unreported = left }
        for id in Array(clients.keys) { drop(id, notify: false) }
        try? closeDescriptor(listenFD)
        var info = stat()
        // Remove the file only if it is still the socket we bound, not a successor's.
        if (try? retryingOnInterrupt("stat") { stat(path, &info) }) != nil, info.st_ino == boundInode {
            _ = try? retryingOnInterrupt("unlink") { unlink(path) }
        }
    }

    private func apply(_ item: Outgoing) {
        switch item {
        case .line(let id, let bytes):
            enqueue(bytes, for: id)
            answered(id)
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
            drop(id, notify: false)
            onIncoming(.dropped(id, unread: client.pending))
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
            guard (try? makeNonBlocking(fd)) != nil else {
                try? closeDescriptor(fd)
                continue
            }
            // Before anything else, the busy reply included: another user learns nothing.
            let peer = Self.peer(of: fd)
            guard let peer, Self.mayConnect(peer.uid) else {
                refuseForeign(fd, peer: peer)
                continue
            }
            guard clients.count < maxClients else {
                refuseBusy(fd)
                continue
            }
            clients[nextID] = Client(fd: fd, lastRequest: .now)
            nextID += 1
        }
    }

    /// The uid and pid of the process at the other end of `fd` (as it was at `connect`).
    private static func peer(of fd: Int32) -> (uid: uid_t, pid: Int32)? {
        // `struct ucred` (pid, uid, gid: three 32-bit fields), which Glibc's module hides
        // behind _GNU_SOURCE.
        var credentials: [UInt32] = [0, 0, 0]
        var size = socklen_t(MemoryLayout<UInt32>.size * 3)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return (uid_t(credentials[1]), Int32(bitPattern: credentials[0]))
    }

    /// Whether a process of `uid` may use the socket: this daemon's own user, and root. The
    /// socket hears where the walker is and where they go; its file's mode (0600) keeps
    /// others out of a path, but an abstract socket (`@name`) has no mode at all, and anyone
    /// on the machine could connect (before: `nobody` read the position and redirected the
    /// walk). Root may, as it may read the memory file and the daemon's own memory anyway
    /// (`sudo pathfinder stop --socket /run/user/1000/pathfinder.sock`).
    static func mayConnect(_ uid: uid_t) -> Bool { uid == geteuid() || uid == 0 }

    /// Closes another user's connection at once, saying nothing to it (no reply, not even
    /// `busy`), and reports it: the first at once, then at most every `busyReportSeconds`
    /// with the count since, so a flood of connections is not a flood of log lines.
    private func refuseForeign(_ fd: Int32, peer: (uid: uid_t, pid: Int32)?) {
        try? closeDescriptor(fd)
        let now = ContinuousClock.now
        // No credentials (getsockopt failed): reported as uid -1, never served.
        guard foreignRefusals.count(uid: peer?.uid ?? uid_t.max, now: now) else { return }
        let (count, uids) = foreignRefusals.take(now: now)
        onIncoming(.foreign(uids: uids, pid: count == 1 ? peer?.pid : nil, refused: count))
    }

    /// The refusals counted whose report is due at `now` (every one counted, with `all`).
    private func dueRefusals(at now: ContinuousClock.Instant, all: Bool) -> [Incoming] {
        var reports: [Incoming] = []
        if let due = busyRefusals.due, all || due <= now {
            reports.append(.busy(refused: busyRefusals.take(now: now).count))
        }
        if let due = foreignRefusals.due, all || due <= now {
            let (count, uids) = foreignRefusals.take(now: now)
            reports.append(.foreign(uids: uids, pid: nil, refused: count))
        }
        return reports
    }

    /// Milliseconds from now until `instant` (0 if it has passed), for `poll`.
    private static func milliseconds(until instant: ContinuousClock.Instant) -> Int32 {
        let left = instant - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Whether to read from `client` now: not while `maxQueuedRequests` of its lines wait
    /// (so one client's burst cannot fill the loop's queue), nor after its end of file.
    private func wantsInput(_ client: Client) -> Bool {
        !client.readClosed && client.unanswered.count < maxQueuedRequests
    }

    private func readFrom(_ id: ClientID, into buffer: inout [UInt8]) {
        while let client = clients[id], wantsInput(client) {
            let received = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemCallError) in
                    try retryingOnInterrupt("recv") { recv(client.fd, raw.baseAddress, raw.count, 0) }
                }
            }
            if case .failure(let error) = received, error.code == EAGAIN || error.code == EWOULDBLOCK {
                return
            }
            switch received {
            case .success(let n) where n > 0:
                clients[id]?.input += buffer[0..<n]
                handOut(id)
            case .success:
                // End of file: a half-close still waits for its replies (a line without its
                // newline is no request); `closeAnsweredHalfClosed` ends it once answered.
                clients[id]?.readClosed = true
                return
            case .failure:
                drop(id, notify: true)
                return
            }
        }
    }

    /// Hands `id`'s complete lines to the loop while fewer than `maxQueuedRequests` wait.
    /// A line over `maxLineBytes` is reported as `.oversized` and discarded up to its newline.
    private func handOut(_ id: ClientID) {
        guard var client = clients[id] else { return }
        var lines: [Incoming] = []
        var start = 0
        while client.unanswered.count < maxQueuedRequests {
            guard let newline = client.input[client.scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
                client.scanned = client.input.count
                if client.discarding {
                    start = client.input.count
                } else if client.input.count - start > maxLineBytes {
                    start = client.input.count
                    client.discarding = true
                    lines.append(.oversized(id))
                    client.unanswered.append(false)
                }
                break
            }
            let line = client.input[start..<newline]
            if client.discarding {
                client.discarding = false
            } else if line.count > maxLineBytes {
                lines.append(.oversized(id))
                client.unanswered.append(false)
            } else {
                // A blank line is answered (an error), but asks nothing: it keeps no
                // connection from being idle, or 32 clients sending "\n" would hold every slot.
                let blank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
                lines.append(.line(id, Data(line)))
                client.unanswered.append(!blank)
                if !blank { client.lastRequest = .now }
            }
            start = newline + 1
            client.scanned = start
        }
        if start > 0 {
            client.input.removeFirst(start)
            client.scanned -= start
        }
        clients[id] = client
        for line in lines { onIncoming(line) }
    }

    /// `id`'s oldest line was answered: a request's answer restarts its idle clock (it was
    /// not idle while waiting), and its next line may go to the loop.
    private func answered(_ id: ClientID) {
        guard var client = clients[id], !client.unanswered.isEmpty else { return }
        if client.unanswered.removeFirst() { client.lastRequest = .now }
        clients[id] = client
        handOut(id)
    }

    /// Closes each connection whose client shut down its writing side once everything it
    /// asked is answered and written.
    private func closeAnsweredHalfClosed() {
        for (id, client) in clients
        where client.readClosed && client.unanswered.isEmpty && client.pending == 0 {
            drop(id, notify: true)
        }
    }

    /// One line saying why, written without waiting (a fresh socket's buffer takes it), then
    /// the connection is closed: the client learns at once instead of hanging.
    private func refuseBusy(_ fd: Int32) {
        let reply =
            JSONValue.object([
                "ok": .bool(false),
                "error": .string("busy: \(maxClients) clients are connected (the limit); try again later"),
            ]).text + "\n"
        _ = Array(reply.utf8).withUnsafeBytes {
            Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        try? closeDescriptor(fd)
        let now = ContinuousClock.now
        guard busyRefusals.count(now: now) else { return }
        onIncoming(.busy(refused: busyRefusals.take(now: now).count))
    }

    private var idleLimit: Duration { .milliseconds(Int64(idleSeconds * 1000)) }

    /// How often, at least, the socket file is checked to be still ours, milliseconds.
    static let pathCheckMilliseconds: Int32 = 2_000

    /// Whether the folder holding `path` is this user's and no one else may write in it: a
    /// socket of another user there (root's, left by `sudo pathfinder daemon`) was put there
    /// by someone who could anyway, and is replaced when stale like our own (before: refused,
    /// and the daemon never started in its own runtime folder).
    static func folderIsPrivate(of path: String) -> Bool {
        guard let info = folderStatus(of: path) else { return false }
        return info.st_uid == geteuid() && info.st_mode & 0o022 == 0
    }

    /// Whether a socket is bound at `path` now: `/proc/net/unix` lists the path of every
    /// bound Unix socket, of every user (a stale file is not in it), read to its end (before,
    /// only its first page: on a machine with more than about 40 Unix sockets another user's
    /// live socket was taken for a stale one and replaced, and that daemon exited).
    package static func isBound(_ path: String) -> Bool {
        guard let table = try? kernelTable("/proc/net/unix") else { return true }
        return table.split(separator: "\n").contains { $0.hasSuffix(" " + path) }
    }

    /// `stat` of the folder holding `path` ("." for a bare name); nil when it fails, and for an
    /// abstract socket ("@name": no folder, and any user may take the name).
    static func folderStatus(of path: String) -> stat? {
        if path.hasPrefix("@") { return nil }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        var info = stat()
        return stat(folder.isEmpty ? "/" : folder, &info) == 0 ? info : nil
    }

    /// Whether `path` is still the socket this server bound (same inode).
    private func pathIsOurs() -> Bool {
        // An abstract socket ("@name") has no file to delete or replace (before: no file to
        // stat read as "removed", and the daemon exited 2 s after it started).
        if path.hasPrefix("@") { return true }
        var info = stat()
        guard (try? retryingOnInterrupt("stat") { stat(path, &info) }) != nil else { return false }
        return info.st_ino == boundInode
    }

    /// How long `poll` may sleep: until the first idle deadline (rounded up), else forever.
    private func timeoutMilliseconds() -> Int32 {
        let deadlines = clients.values.filter(mayBeIdle).map { $0.lastRequest + idleLimit }
        guard let first = deadlines.min() else { return -1 }
        return Self.milliseconds(until: first)
    }

    /// A subscriber only listens; a client waiting for a reply is not idle, however long
    /// the loop takes (its clock restarts when it is answered).
    private func mayBeIdle(_ client: Client) -> Bool { !client.subscribed && client.unanswered.isEmpty }

    /// Closes every connection (not a subscriber, none waiting for a reply) whose last
    /// complete request was sent or answered more than `idleSeconds` ago, telling it why.
    private func closeIdleClients() {
        let now = ContinuousClock.now
        for (id, client) in clients where mayBeIdle(client) && now - client.lastRequest >= idleLimit {
            enqueue(
                Array(
                    (JSONValue.object([
                        "ok": .bool(false),
                        "error": .string("idle: no request for \(Self.format(idleSeconds)) s; closing"),
                    ]).text + "\n").utf8), for: id)
            flush(id)
            drop(id, notify: false)
            onIncoming(.idle(id))
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }

    private func drop(_ id: ClientID, notify: Bool) {
        guard let client = clients.removeValue(forKey: id) else { return }
        try? closeDescriptor(client.fd)
        if notify { onIncoming(.closed(id)) }
    }
}
