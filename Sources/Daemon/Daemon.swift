import Arrival
import Dispatch
import Foundation
import Glibc
import Storage

/// The long-running process: the control socket, signals and systemd notification around
/// one serial loop that owns all state (`DaemonCore`).
package final class Daemon: Sendable {
    /// Everything that reaches the loop, in arrival order.
    enum Input: Sendable {
        case control(ControlServer.Incoming)
        case terminate(Int32)
        /// Once a second: FinalApproach's timers (walk end, no-fix warning) run on it.
        case tick
    }

    package let config: DaemonConfig
    package let log: DaemonLog

    package init(config: DaemonConfig, log: DaemonLog) {
        self.config = config
        self.log = log
    }

    /// Runs until SIGTERM or SIGINT.
    /// - Returns: the exit code: 0 after a signal, 1 if the socket cannot be served.
    package func run() async -> Int32 {
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        // Signals are caught before the socket exists, so a client that sees the socket
        // can always stop the daemon cleanly.
        let signals = [SIGTERM, SIGINT].map { number in
            // The default action would kill the process mid-write; the loop decides instead.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(.terminate(number)) }
            source.resume()
            return source
        }
        signal(SIGPIPE, SIG_IGN)
        let server = ControlServer(path: config.socket) { continuation.yield(.control($0)) }
        do {
            try server.start()
        } catch {
            log.error("\(error)")
            signals.forEach { $0.cancel() }
            return 1
        }
        log.info("listening on \(config.socket)")
        SystemdNotify.send("READY=1")

        let loaded = MemoryFile.load(path: config.memory)
        if let warning = loaded.warning { log.warning("\(warning)") }
        var settings = FinalApproach.Settings()
        settings.lastStretchMetres = config.lastStretchMetres
        var core = DaemonCore(memory: loaded.memory, settings: settings)
        let ticks = DispatchSource.makeTimerSource(queue: .global())
        ticks.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        ticks.setEventHandler { continuation.yield(.tick) }
        ticks.resume()
        log.warning("no position source is wired in this build yet (gpsd client and NMEA source pending)")
        loop: for await input in inputs {
            switch input {
            case .tick:
                perform(core.handle(.tick, now: Date()), server: server)
            case .terminate(let number):
                log.info("\(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
                break loop
            case .control(.line(let client, let line)):
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                let actions: [DaemonCore.Action]
                switch ControlRequest.parse(line) {
                case .success(let request):
                    log.debug("client \(client): \(String(decoding: line.prefix(200), as: UTF8.self))")
                    actions = core.handle(request, from: client, now: Date())
                case .failure(let error):
                    log.info("client \(client): refused: \(error.message)")
                    actions = core.refuse(error, client: client)
                }
                perform(actions, server: server)
            case .control(.oversized(let client)):
                log.info("client \(client): request line over \(server.maxLineBytes) bytes, discarded")
                server.send(
                    JSONValue.object([
                        "ok": .bool(false),
                        "error": .string("request line longer than \(server.maxLineBytes) bytes"),
                    ]).text, to: client)
            case .control(.closed(let client)):
                log.debug("client \(client): gone")
            }
        }
        SystemdNotify.send("STOPPING=1")
        signals.forEach { $0.cancel() }
        ticks.cancel()
        server.stop()
        continuation.finish()
        log.info("stopped")
        return 0
    }

    private func perform(_ actions: [DaemonCore.Action], server: ControlServer) {
        for action in actions {
            switch action {
            case .reply(let client, let value): server.send(value.text, to: client)
            case .subscribe(let client): server.subscribe(client)
            case .event(let value):
                broadcast(value, server: server)
            case .say(let text):
                log.info("say: \(text)")
            case .saveMemory(let memory):
                // Synchronous on the loop: a SIGTERM arriving now is handled after the
                // rename, so a stop never leaves a half-written file.
                do {
                    try MemoryFile.save(memory, path: config.memory)
                    broadcast(
                        .object(["event": "memorySaved", "path": .string(config.memory)]), server: server)
                } catch {
                    log.error("\(error)")
                }
            case .requestDoors(let destination):
                log.warning("no door index in this build: cannot look up doors near \(destination.name)")
            }
        }
    }

    private func broadcast(_ value: JSONValue, server: ControlServer) {
        var value = value
        if case .object(var fields) = value {
            fields["t"] = .string(Self.timestamp(Date()))
            value = .object(fields)
        }
        log.debug("event: \(value.text)")
        server.broadcast(value.text)
    }

    /// ISO 8601 with zone and milliseconds, for the live event stream's wall-clock `t`.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
