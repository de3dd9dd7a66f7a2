import Arrival
import Dispatch
import Foundation
import Geo
import Glibc
import Positioning
import Storage
import SystemCalls

/// The long-running process: the control socket, signals and systemd notification around
/// one serial loop that owns all state (`DaemonCore`).
package final class Daemon: Sendable {
    /// Everything that reaches the loop, in arrival order.
    enum Input: Sendable {
        case control(ControlServer.Incoming)
        case terminate(Int32)
        /// SIGHUP: "reload" by Unix convention (`systemctl reload`, `kill -HUP`, log rotators).
        case hangUp
        /// Once a second: FinalApproach's timers (walk end, no-fix warning) run on it.
        case tick
        /// From the GPS source (gpsd or NMEA).
        case position(PositionEvent)
        /// From the IIO barometer.
        case pressure(PressureReading)
        /// The GPS source's stream ended (an NMEA file at its end, a device gone).
        case sourceEnded
        /// OSM's answer for a walk's destination, from the door index: the building's doors, or,
        /// with no building there, the entrances near the centre.
        case doors(Destination, OSMAnswer)
        /// An answer the microphone heard (the Listener's decision).
        case heard(Heard)
        /// A button pressed (`buttons`).
        case button(ButtonReader.Press)
        /// The microphone cannot hear: its model refused, its device gone or silent.
        case cannotHear
        /// The microphone that failed delivers audio again.
        case hearsAgain
        /// The voice is done with a prompt (played, failed or let go): the walk's answer window
        /// runs from the end of its question.
        case spoken(FinalApproach.Prompt)
    }

    /// Reads the config again as the start read it: the same file, the same flags over it.
    /// - Throws: what the start would have refused (``DaemonConfigError``), said as an error.
    package typealias ConfigReader = @Sendable () throws -> DaemonConfig

    package let config: DaemonConfig
    package let log: DaemonLog
    /// How SIGHUP reads the config again; nil: it is not read again (only the door indexes
    /// and the gazetteer are opened again).
    package let readConfig: ConfigReader?

    package init(config: DaemonConfig, log: DaemonLog, readConfig: ConfigReader? = nil) {
        self.config = config
        self.log = log
        self.readConfig = readConfig
    }

    /// Runs until SIGTERM or SIGINT.
    /// - Returns: the exit code: 0 after a signal, 1 if the socket cannot be served (at start,
    ///   or later when `poll` keeps failing: systemd then restarts the daemon).
    package func run() async -> Int32 {
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        // Signals are caught before the socket exists, so a client that sees the socket
        // can always stop the daemon cleanly.
        // The default action would kill the process mid-write; the loop decides instead.
        let signals: SignalWatcher
        do {
            // SIGHUP is caught too: its default action killed the daemon with its socket left
            // behind and no STOPPING=1. It is "reload", not "stop": a stop with exit 0 left the
            // daemon down for good under the unit's Restart=on-failure.
            signals = try SignalWatcher([SIGTERM, SIGINT, SIGHUP], queue: .global()) { number in
                continuation.yield(number == SIGHUP ? .hangUp : .terminate(number))
            }
        } catch {
            log.error("\(error)")
            return 1
        }
        signal(SIGPIPE, SIG_IGN)
        /// A start that cannot go on: said, and what it began let go (exit 1).
        func refused(_ error: any Error, _ feed: PositionFeed? = nil) -> Int32 {
            log.error("\(error)")
            signals.cancel()
            feed?.stop()
            return 1
        }
        // Everything it writes is the walker's alone — the memory, the socket, and the prompts
        // in `speakWav`, which name destinations — under systemd (its unit's UMask=0077) or
        // started from a shell with a umask of 022 alike (before: prompt files 0644 there).
        umask(0o077)
        // Pathfinder's own directories exist before the first write; missing files are
        // warned about now, once, not at first use.
        // The door indexes the check opens go straight to the lookups, their only holder: a
        // second reference kept here for the daemon's life held a replaced index open, deleted,
        // after the lookups had let it go.
        let lookups = DaemonLookups(
            doors: config.doors, gazetteer: config.gazetteer, opened: DaemonStartup.check(config, log: log),
            warn: { [log] in log.warning($0) },
            info: { [log] in log.info($0) })
        // A position source that cannot even be opened (a wrong NMEA path) stops the start
        // before the socket exists; gpsd being away does not (it is waited for).
        let feed: PositionFeed
        do {
            feed = try PositionFeed(config: config, log: log)
        } catch {
            return refused(error)
        }
        let server = ControlServer(path: config.socket) { continuation.yield(.control($0)) }
        // A second daemon on this socket is told that first, before its memory (the same one,
        // when the two share a config) is tried; nothing at the path is changed yet.
        do {
            try server.refuseIfTaken()
        } catch {
            return refused(error, feed)
        }
        // For the daemon's life: a `pathfinder memory` change beside it is refused, not lost at
        // the daemon's next save of what it holds, and so is a second daemon on this memory.
        // Before the socket, so a client only ever reaches a daemon that holds its memory
        // (before, a second daemon on a memory another held listened for a moment, and closed
        // unanswered what connected, before its exit 1). Not between bind and listen: a socket
        // bound and not listening is refused like a stale one, and another daemon starting on
        // the path would remove it.
        // A folder that cannot be made or locked takes no other writer either: the daemon runs,
        // and each save that fails is said (memoryFailed), as before.
        let memoryHold: MemoryFile.DaemonHold?
        do {
            let hold = try MemoryFile.DaemonHold(path: config.memory)
            if let problem = hold.claimProblem { log.warning("\(problem)") }
            memoryHold = hold
        } catch  where error.kind == .inUse || error.kind == .hardLinked {
            return refused(error, feed)
        } catch {
            log.warning("\(error)")
            memoryHold = nil
        }
        do {
            try server.start()
        } catch {
            // The memory's hold goes with it at the return: a daemon that will not run holds
            // nothing.
            return refused(error, feed)
        }
        log.info("listening on \(config.socket)")
        SystemdNotify.send("READY=1")

        let memory = MemoryKeeper(path: config.memory, hold: memoryHold)
        let loaded = memory.load()
        if let warning = loaded.warning {
            log.warning(
                "\(warning)"
                    + (warning.mustNotWriteOver
                        ? "; nothing is saved until it can be \(warning.untilItCanBe)"
                        : ""))
        }
        var settings = FinalApproach.Settings()
        settings.lastStretchMetres = config.lastStretchMetres
        var core = DaemonCore(memory: loaded.memory, settings: settings)
        // FinalApproach's clock: monotonic during a walk (a wall-clock jump on a Pi without
        // RTC must not end or stall it); the event stream's `t` stays the wall clock.
        var clock = WalkClock()
        func now() -> Date { clock.now(walking: core.approach.isWalking) }
        var exitCode: Int32 = 0
        /// The config in force: the start's, with what a reload (SIGHUP) applied.
        var running = config
        // DispatchSource timers run on the monotonic clock.
        let ticks = DispatchSource.makeTimerSource(queue: .global())
        ticks.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        ticks.setEventHandler { continuation.yield(.tick) }
        ticks.resume()

        log.info("positions from \(feed.name)")
        let feedTask = Task {
            for await event in feed.events { continuation.yield(.position(event)) }
            continuation.yield(.sourceEnded)
        }
        let barometerTask = feed.barometer.map { readings in
            Task { for await reading in readings { continuation.yield(.pressure(reading)) } }
        }
        let voice = DaemonVoice(device: config.speaker, wavDirectory: config.speakWav, log: log) {
            continuation.yield(.spoken($0))
        }
        voice.checkDevice()
        let ears = DaemonEars(
            device: config.micDevice, gate: voice.gate, log: log, buttons: config.buttons != nil,
            heard: { continuation.yield(.heard($0)) }, deaf: { continuation.yield(.cannotHear) },
            hears: { continuation.yield(.hearsAgain) })
        /// The walker was told this last stretch that the microphone cannot hear them.
        var cannotHearSaid = false
        if !config.mic {
            // Said as DaemonEars says it: the buttons are a way to answer too (before, this line
            // said "only via `heard` requests", and the next one "buttons on …").
            log.info(
                "microphone off (mic: false); answers only via \(config.buttons != nil ? "buttons and `heard` requests" : "`heard` requests")"
            )
        }
        let buttons = (config.buttons?.devices ?? []).map { device in
            ButtonReader(map: config.buttons!, device: device, log: log) { continuation.yield(.button($0)) }
        }
        if let map = config.buttons {
            log.info(
                "buttons on \(map.devices.joined(separator: ", ")): \(KeyNames.name(of: map.notHere)) not here, \(KeyNames.name(of: map.thisIsIt)) this is it, \(KeyNames.name(of: map.repeatLast)) repeat"
            )
            for reader in buttons { reader.start() }
        }
        let shell = Shell(
            server: server, voice: voice,
            lookups: lookups,
            continuation: continuation, memory: memory, log: log)
        // A walk under way when the daemon last stopped (a crash, SIGKILL, SIGTERM) goes on,
        // said so (before: `status` said idle and the walker was left in silence).
        let walkKeeper = WalkKeeper(memory: config.memory, log: log)
        walkKeeper.mayWrite = { memory.holdsMemory }
        if let walk = walkKeeper.walkToResume(now: Date()) { shell.perform(core.resume(walk, now: now())) }
        walkKeeper.keep(core.activeWalk)
        core.barometer = DaemonBarometer(config: config, start: Date())
        for note in core.barometer.startNotes { log.warning(note) }
        /// The source's problem as logged: once per outage and once per change of its cause. The
        /// walker hears of it by FinalApproach's one no-fix rule (20 s without a fix), as in a
        /// replay; before, it was said at the first tick of the problem, so each gpsd restart of a
        /// second was said.
        var outage = PositionOutage()

        /// Each memory write's outcome reaches the core before the next input (a stop
        /// included), so the promise or the failure is said at once; then the walk file follows
        /// the walk: kept on `go`, removed when it ends or stops (once the memory holds what it
        /// taught). With `holdingSpeech`, what they say (prompts and their `say` lines) is
        /// returned instead of performed: a `go` may replace the walk it speaks of.
        @discardableResult
        func handOver(holdingSpeech: Bool = false) -> [DaemonCore.Action] {
            var held: [DaemonCore.Action] = []
            while let outcome = memory.next() {
                // A walk that ended keeps its file while what it taught is not in the memory.
                if core.activeWalk == nil {
                    if case .memoryFailed = outcome { walkKeeper.answerUnsaved = true }
                    if case .memorySaved = outcome { walkKeeper.answerUnsaved = false }
                }
                // On the walk's clock, as every input of the loop (before, the wall clock: stepped
                // an hour ahead during a walk, the save after "여기 아니야" found the last fix an
                // hour old, and a false "GPS 신호가 끊겼어" was said); after the walk, on its clock
                // carried on, as the failure it may follow was timed (audit 9 A9-1).
                let time = core.approach.isWalking ? now() : clock.lastWalkNow()
                let plan = core.approach.plan
                var actions = core.handle(outcome, now: time)
                // A merged file that changed the walk's building re-planned it: said at info.
                if case .memoryFileRead = outcome, let name = core.approach.leadingTo?.name,
                    let new = core.approach.plan, new != plan
                {
                    log.info(
                        Shell.replanned(name, from: plan?.entrance, to: new, atDoor: core.approach.hasArrived)
                    )
                }
                if holdingSpeech {
                    held += actions.filter(DaemonCore.isSpeech)
                    actions.removeAll(where: DaemonCore.isSpeech)
                }
                shell.perform(actions)
            }
            walkKeeper.keep(core.activeWalk)
            return held
        }
        /// Clients closed as idle, told one line at a time (as busy refusals are).
        var idleCloses = IdleCloses()
        /// Ticks since the start, for the checks made every few ticks.
        var tickCount = 0

        loop: for await input in inputs {
            switch input {
            case .tick:
                shell.perform(core.handle(.tick, now: now()))
                tickCount += 1
                // Files replaced under the open indexes are let go now, not at the next lookup,
                // which a walk planned from remembered doors never makes.
                if tickCount % DaemonLookups.checkEveryTicks == 0 { lookups.letGoOfReplacedFiles() }
                // The memory's folder removed or replaced takes the locks with it: taken again
                // before a second daemon can start on the one made at the path.
                if tickCount % MemoryKeeper.checkEveryTicks == 0 { memory.checkHold(log: log) }
                // A memory whose write failed is written again by itself (with backoff).
                memory.retryIfDue(now: .now, log: log)
                if let line = idleCloses.due(idleSeconds: server.idleSeconds) { log.info(line) }
                if let line = outage.line(for: feed.problem, source: feed.name) { log.warning(line) }
            case .position(let event):
                let measured = core.barometer.observe(event, received: .now)
                for note in measured.notes { log.info(note) }
                let now = now()
                feed.observe(event)
                switch event {
                case .fix(let fix):
                    if outage.positionsAgain() { log.info("\(feed.name): positions again") }
                    let position = FinalApproach.Position(
                        time: fix.time, coordinate: fix.coordinate,
                        horizontalAccuracy: fix.horizontalAccuracy,
                        speed: fix.speed, course: fix.course)
                    shell.perform(core.moved(position, now: now))
                case .noFix:
                    shell.perform(core.handle(.noFix, now: now))
                case .pressure:
                    // Pressure in the NMEA stream counts only when the config says it is the barometer.
                    if let altitude = measured.altitude {
                        shell.perform(core.handle(.altitude(altitude), now: now))
                    }
                }
            case .pressure(let reading):
                let measured = core.barometer.observe(iio: reading, received: .now)
                for note in measured.notes { log.info(note) }
                if let altitude = measured.altitude {
                    shell.perform(core.handle(.altitude(altitude), now: now()))
                }
            case .sourceEnded:
                log.warning(
                    "\(feed.name): the input ended\(feed.problem.map { ": \($0)" } ?? ""); no more positions")
                // Said: the next tick must not say "waiting for it" of an input that ended
                // (before, a file without a date was said to have ended, then to be awaited).
                outage.ended(feed.problem)
            case .doors(let destination, let answer):
                shell.perform(core.doorsFound(answer, for: destination, now: now()))
            case .heard(let answer):
                log.info("microphone heard: \(answer.text)")
                shell.perform(core.handle(.heard(answer), now: now()))
            case .spoken(let prompt):
                shell.perform(core.handle(.spoken(prompt), now: now()))
            case .button(let press):
                log.info("button \(press.key): \(press.action.rawValue)")
                shell.perform(Self.pressed(press, core: &core, now: now()))
            case .cannotHear:
                // Once a last stretch: the walker is about to be asked to answer aloud.
                if !cannotHearSaid, core.approach.isInLastStretch {
                    cannotHearSaid = true
                    shell.perform(core.cannotHear(buttons: config.buttons != nil))
                }
            case .hearsAgain:
                // Said to a walker told it could not hear (before, never: they did not answer
                // aloud); a new fault is then said again.
                if cannotHearSaid, core.approach.isInLastStretch {
                    cannotHearSaid = false
                    shell.perform(core.hearsAgain())
                }
            case .terminate(let number):
                log.info("\(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
                break loop
            case .hangUp:
                Self.reload(readConfig, running: &running, core: &core, lookups: lookups, log: log)
                // A memory file replaced since (a family's correction) is read too.
                if memory.mergeIfReplaced(core.approach.memory, log: log) { handOver() }
            case .control(.line(let client, let line)):
                switch ControlRequest.parse(line) {
                case .success(let request):
                    log.debug("client \(client): \(String(decoding: line.prefix(200), as: UTF8.self))")
                    let leading = core.approach.leadingTo
                    if config.mic { core.microphone = ears.status }
                    if request == .status {
                        core.world = ["positions": feed.status, "memory": memory.status]
                    }
                    // A memory file replaced since (a family's correction, a restored backup) is
                    // merged before the walk is planned, so it plans with it. What the merge has
                    // said of the walk under way (its new door) waits for the go's answer.
                    var merged: [DaemonCore.Action] = []
                    if case .go = request, memory.mergeIfReplaced(core.approach.memory, log: log) {
                        merged = handOver(holdingSpeech: true)
                    }
                    var actions = shell.answer(request, from: client, core: &core, now: now())
                    if leading != nil && DaemonCore.replacesWalk(actions) {
                        // Never said of a walk this go replaces: the walker would hear a door of
                        // the walk it ended, then the new walk's start.
                        for case .say(let prompt) in merged {
                            log.debug("dropped, walk replaced: \(prompt.text)")
                        }
                    } else {
                        shell.perform(merged)
                    }
                    // Before the reply: a client told "walking" (or "idle") finds the file so;
                    // but a walk that ended with a save keeps its file until the save is done
                    // (below, after the outcome): a kill during the save then resumes the walk.
                    let saves = actions.contains { if case .saveMemory = $0 { true } else { false } }
                    if core.activeWalk != nil || !saves { walkKeeper.keep(core.activeWalk) }
                    if request == .stop || (leading != nil && DaemonCore.replacesWalk(actions)) {
                        // `stop`, and a `go` that replaces the walk under way, silence what waits
                        // to be said: the old walk's building and door (before, only `stop` did,
                        // and its "…에 거의 다 왔어" was said after the change). The request's own
                        // prompt comes next.
                        let index = actions.firstIndex { if case .say = $0 { true } else { false } }
                        var prompt: FinalApproach.Prompt?
                        if let index, case .say(let said) = actions[index] {
                            prompt = said
                            actions.remove(at: index)
                        }
                        if let prompt { log.info("say: \(prompt.text)") }
                        // A go's drops are logged as such (before, "dropped by stop:", no stop sent).
                        voice.interrupt(with: prompt, because: request == .stop ? .stop : .walkReplaced)
                    }
                    shell.perform(actions)
                case .failure(let error):
                    log.info("client \(client): refused: \(error.message)")
                    shell.perform(core.refuse(error, client: client))
                }
            case .control(.oversized(let client)):
                log.info("client \(client): request line over \(server.maxLineBytes) bytes, discarded")
                server.send(
                    JSONValue.object([
                        "ok": .bool(false),
                        "error": .string("request line longer than \(server.maxLineBytes) bytes"),
                    ]).text, to: client)
            case .control(.closed(let client)):
                log.debug("client \(client): gone")
            case .control(.dropped(let client, let unread)):
                // A warning: a family's dashboard that stalled loses its event stream (before,
                // at debug, as a hang-up).
                log.warning(
                    "client \(client): dropped: \(unread / 1024) KiB of output unread (a subscriber or client that stopped reading)"
                )
            case .control(.idle(let client)):
                if let line = idleCloses.closed(client, idleSeconds: server.idleSeconds) { log.info(line) }
            case .control(.busy), .control(.foreign):
                if case .control(let refusal) = input, let line = Self.refusalLine(refusal, server: server) {
                    log.warning(line)
                }
            case .control(.failed(let message)):
                // Never a half-alive daemon without its socket: exit 1, systemd restarts it.
                log.error("\(message); exiting so the service manager restarts the daemon")
                exitCode = 1
                break loop
            }
            handOver()
            // The microphone is open exactly during the last stretch.
            if config.mic {
                if core.approach.isInLastStretch, !ears.isOpen { ears.open() }
                if !core.approach.isInLastStretch, ears.isOpen {
                    ears.close()
                    cannotHearSaid = false
                }
            }
        }
        // A change whose write failed is written once more, or the log says what is lost
        // (before, the stop dropped it unsaid). Subscribers still hear `memorySaved`.
        if memory.saveAtStop(log: log) { handOver() }
        ears.close()
        for reader in buttons { reader.stop() }
        feed.stop()
        feedTask.cancel()
        barometerTask?.cancel()
        SystemdNotify.send("STOPPING=1")
        signals.cancel()
        ticks.cancel()
        // Refusals counted since the last report are logged, not dropped with the server.
        for refusal in server.stop() {
            if let line = Self.refusalLine(refusal, server: server) { log.warning(line) }
        }
        if let line = idleCloses.due(idleSeconds: server.idleSeconds, all: true) { log.info(line) }
        continuation.finish()
        log.info("stopped")
        withExtendedLifetime(memory) {}
        return exitCode
    }

    /// The log line of refused connections (`busy`, `foreign`); nil for anything else. A
    /// count of another user's connections names their uids, not a pid: they may come from
    /// several processes (before, the count came under the pid of the one that happened to
    /// come last).
    static func refusalLine(_ refusal: ControlServer.Incoming, server: ControlServer) -> String? {
        switch refusal {
        case .busy(let refused):
            return
                "control socket: \(server.maxClients) clients connected (the limit); refused \(refused) connection\(refused == 1 ? "" : "s") with \"busy\""
        case .foreign(let uids, let pid, let refused):
            let users = uids.map { $0 == uid_t.max ? "an unknown user" : "uid \($0)" }.joined(separator: ", ")
            let who =
                "only uid \(geteuid())\(geteuid() == 0 ? "" : " and root") may use it; closed unanswered"
            if let pid {
                return "control socket: refused a connection from \(users) (pid \(pid)): \(who)"
            }
            return
                "control socket: refused \(refused) more connection\(refused == 1 ? "" : "s") from \(users) since the last such line: \(who)"
        default:
            return nil
        }
    }

    /// A button press, exactly as the answer it stands for: not here / this is it go in as
    /// `Heard.button` (heeded only in the last stretch, like a heard phrase), repeat as `repeat`.
    /// Its own `button` line goes first on the event stream.
    static func pressed(
        _ press: ButtonReader.Press, core: inout DaemonCore, now: Date
    ) -> [DaemonCore.Action] {
        let line: DaemonCore.Action = .event(
            .object([
                "event": "button", "key": .string(press.key), "code": .number(Double(press.code)),
                "action": .string(press.action.rawValue),
            ]))
        switch press.action {
        case .notHere: return [line] + core.handle(.heard(.button(.notHere, key: press.key)), now: now)
        case .thisIsIt: return [line] + core.handle(.heard(.button(.thisIsIt, key: press.key)), now: now)
        case .repeatLast: return [line] + core.handle(.repeatLast, now: now)
        }
    }

    /// ISO 8601 with zone and milliseconds, for the live event stream's wall-clock `t`.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
