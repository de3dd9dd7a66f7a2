import Dispatch
import Foundation
import Glibc

/// The long-running process: the control socket, signals and systemd notification around
/// one serial loop that owns all state (`DaemonCore`).
package final class Daemon: Sendable {
    /// Everything that reaches the loop, in arrival order.
    enum Input: Sendable {
        case control(ControlServer.Incoming)
        case terminate(Int32)
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
        let server = ControlServer(path: config.socket) { continuation.yield(.control($0)) }
        do {
            try server.start()
        } catch {
            log.error("\(error)")
            return 1
        }
        let signals = [SIGTERM, SIGINT].map { number in
            // The default action would kill the process mid-write; the loop decides instead.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(.terminate(number)) }
            source.resume()
            return source
        }
        signal(SIGPIPE, SIG_IGN)
        log.info("listening on \(config.socket)")
        SystemdNotify.send("READY=1")

        var core = DaemonCore()
        loop: for await input in inputs {
            switch input {
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
            case .event(var value):
                if case .object(var fields) = value {
                    fields["t"] = .string(Self.timestamp(Date()))
                    value = .object(fields)
                }
                server.broadcast(value.text)
            case .say(let text):
                log.info("say: \(text)")
            }
        }
    }

    /// ISO 8601 with zone and milliseconds, for the live event stream's wall-clock `t`.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
