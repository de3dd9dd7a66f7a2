package import Arrival
package import Foundation
import Geo
package import Storage

/// The daemon's state and its answer to each input: a value, changed only by the one
/// serial loop in `Daemon.run`, wrapping the same `FinalApproach` the replay uses and
/// turning its effects into actions the loop performs. Tests drive it directly, without
/// sockets or threads.
package struct DaemonCore: Sendable {
    /// What the loop does for the core.
    package enum Action: Sendable, Equatable {
        /// One reply line to one client.
        case reply(ControlServer.ClientID, JSONValue)
        /// The client receives the event log from now on.
        case subscribe(ControlServer.ClientID)
        /// One event-log line for every subscriber (the loop adds the wall-clock `t`).
        case event(JSONValue)
        /// Speak a prompt (device or WAV).
        case say(FinalApproach.Prompt)
        /// Write the memory file (atomically), then emit `memorySaved`.
        case saveMemory(EntranceMemory)
        /// Look up OSM's doors around the destination and feed them back as `doorsArrived`.
        case requestDoors(Destination)
    }

    package private(set) var approach: FinalApproach
    package private(set) var destination: Destination?
    /// When `go` set ``destination`` (the loop's clock; kept when a walk is resumed).
    private var walkSince: Date?
    /// The last position fed in, for `status` and `where`.
    package private(set) var position: FinalApproach.Position?
    /// When that position came (the loop's clock), so `status` can say how old it is.
    private var positionReceived: Date?
    /// The position source and the memory file as the loop sees them (`positions`, `memory`),
    /// set before a `status` is answered: a family member sees a failing world there, not
    /// only in the journal (before, `status` said nothing of gpsd gone or a memory unsaved).
    package var world: [String: JSONValue] = [:]
    /// The altimeter and its feed; `status` says its altitude and calibration.
    package var barometer = DaemonBarometer(source: .none)
    /// When the last altitude was handed to the walk (the loop's clock), so `status` can say
    /// how old it is: the walk takes one only for ``FinalApproach/altitudeFreshSeconds`` (longer
    /// from a barometer slower than 1 Hz).
    private var altitudeReceived: Date?
    /// The microphone as `status` shows it (`DaemonEars.status`), set by the loop before each
    /// request: `{"device", "state", "problem"}`; null when `mic` is off.
    package var microphone: JSONValue = .null

    package init(memory: EntranceMemory, settings: FinalApproach.Settings = .init()) {
        approach = FinalApproach(memory: memory, settings: settings)
    }

    /// The walk's numbers (``FinalApproach/settings``); a change holds from the next event on,
    /// for the walk under way too.
    package var settings: FinalApproach.Settings {
        get { approach.settings }
        set { approach.settings = newValue }
    }

    /// "idle", "walking" or "lastStretch".
    package var state: String {
        approach.isInLastStretch ? "lastStretch" : approach.isWalking ? "walking" : "idle"
    }

    /// Answers one control request from `client`.
    package mutating func handle(
        _ request: ControlRequest, from client: ControlServer.ClientID, now: Date
    ) -> [Action] {
        switch request {
        case .subscribe:
            return [.reply(client, ok(["subscribed": .bool(true)])), .subscribe(client)]
        case .status:
            return [.reply(client, ok(status(now: now)))]
        case .stop:
            let effects = approach.handle(.stop, now: now)
            if !approach.isWalking { destination = nil }
            return [.reply(client, ok(["state": .string(state)]))] + actions(for: effects)
        case .go(.destination(let target)):
            // The walk under way, asked for again: answered with it, and it goes on.
            if isRepeatedGo(target, now: now) {
                return [.reply(client, ok(goFields(target).merging(["again": .bool(true)]) { a, _ in a }))]
            }
            // The walk under way, replaced: named in the reply (audit 10 A10-8: before, it
            // stopped unsaid, and the family's `go` said nothing of the walk it ended).
            let replaced = approach.leadingTo?.name
            destination = target
            walkSince = now
            let effects = approach.handle(.go(target), now: now)
            var fields = goFields(target)
            if let replaced { fields["replaced"] = .string(replaced) }
            return [.reply(client, ok(fields))] + actions(for: effects)
        case .go(.query(let query, _)):
            return [.reply(client, failure("go: cannot resolve \"\(query)\": no gazetteer is loaded"))]
        case .whereAmI:
            guard let position else { return [.reply(client, failure("where: no position yet"))] }
            return [.reply(client, ok(["position": .from(position.coordinate)]))]
        case .repeatLast:
            let effects = approach.handle(.repeatLast, now: now)
            guard case .say(let prompt)? = effects.last(where: { if case .say = $0 { true } else { false } })
            else {
                return [.reply(client, failure("repeat: nothing has been said yet"))] + actions(for: effects)
            }
            return [.reply(client, ok(["text": .string(prompt.text)]))] + actions(for: effects)
        case .heard(let text):
            let answer = Heard.typed(text, source: .socket)
            let meaning = answer.meaning.map { JSONValue.string($0.rawValue) } ?? .null
            // The walk's timers due by now first: what they do (the walk's end, "no fix") is the
            // clock's, not the words' (before, a timer due with words that mean nothing made them
            // `heeded`).
            let due = approach.handle(.tick, now: now)
            let effects = approach.handle(.heard(answer), now: now)
            // Heeded: the last stretch did something with it beyond logging it (acted, or asked
            // again) — not for words that mean nothing, outside the last stretch, or the same
            // answer said again.
            let heeded = effects.contains { if case .log(.heard) = $0 { false } else { true } }
            var fields: [String: JSONValue] = ["meaning": meaning, "heeded": .bool(heeded)]
            if !heeded { fields["reason"] = .string(notHeeded(answer.meaning)) }
            return [.reply(client, ok(fields))] + actions(for: due + effects)
        }
    }

    /// Why a typed answer was not acted on, for the family who sent it from afar (audit 10
    /// A10-5: before, a bare `"heeded": false`, and `pathfinder heard` exited 0 unsaid).
    private func notHeeded(_ meaning: ArrivalWords?) -> String {
        guard meaning != nil else { return Self.notAnAnswer }
        guard approach.isWalking else { return "no walk: the daemon is idle" }
        guard approach.leadingTo != nil else {
            return "the walk is ending: 여기가 입구야 was already taken"
        }
        guard approach.isInLastStretch else {
            let begins = "the last stretch begins at \(Int(settings.lastStretchMetres.rounded())) m"
            guard let position, let plan = approach.plan,
                let goal = approach.metresToGoal(from: position.coordinate)
            else {
                return "not in the last stretch: no position yet (\(begins))"
            }
            let metres = Int(goal.rounded())
            let to =
                plan.entrance != nil
                ? "the door" : approach.leadsToWalls ? "the building's walls" : "the building's centre"
            return "not in the last stretch: \(metres) m from \(to) (\(begins))"
        }
        return "the same answer again within \(Int(settings.sameAnswerSeconds.rounded())) s of acting on it"
    }

    /// How the socket's far refusal says what to do (`go {"query"}` beyond 50 km);
    /// `pathfinder go` says `use --far` in its place (audit 10 A10-9).
    package static let farHint = #"send "far": true to walk there anyway"#

    /// The reason for words that are neither answer (`ArrivalWords`): the socket's reply and
    /// `pathfinder heard`, which refuses them before sending, say the same.
    package static let notAnAnswer =
        "not an answer Pathfinder knows: say 여기 아니야 or 여기가 입구야 (spaces may differ; no other punctuation inside)"

    /// A `go` for the destination already being led, arriving at most this many seconds after
    /// that walk's `go`, is the same request again (a double tap, a client that sent it twice):
    /// it is answered with the walk under way, which goes on. Before, the walk began again and
    /// the walker heard "안내를 시작할게…" twice. Later, the same `go` begins the walk again, as
    /// a walker who asks again after a while may mean.
    package static let sameGoSeconds = 10.0

    /// Whether a `go` to `target` at `now` asks again for the walk under way, within
    /// ``sameGoSeconds`` of its `go` (a resumed walk's began before the restart: not so).
    package func isRepeatedGo(_ target: Destination, now: Date) -> Bool {
        guard approach.leadingTo == target, let walkSince else { return false }
        let age = now.timeIntervalSince(walkSince)
        return age >= 0 && age <= Self.sameGoSeconds
    }

    /// A `go`'s reply: the state, the destination and the plan under way.
    private func goFields(_ target: Destination) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["state": .string(state), "destination": .from(target)]
        if let plan = approach.plan { fields["plan"] = .from(plan) }
        return fields
    }

    /// The walk to keep for a restart (``WalkFile``): the destination `go` set and when, while
    /// a walk leads there (not once "여기가 입구야" was stored: the walk only waits to end).
    package var activeWalk: ActiveWalk? {
        guard let leading = approach.leadingTo, let walkSince else { return nil }
        return ActiveWalk(destination: leading, since: walkSince)
    }

    /// Resumes `walk`, under way when the daemon stopped, as `go` would: the plan made again
    /// from the memory (which may have learnt doors since), OSM asked unless fresh, and the
    /// walker told that guidance resumes.
    package mutating func resume(_ walk: ActiveWalk, now: Date) -> [Action] {
        destination = walk.destination
        walkSince = walk.since
        return actions(for: approach.handle(.resume(walk.destination), now: now))
    }

    /// A position from the GPS source.
    package mutating func moved(_ position: FinalApproach.Position, now: Date) -> [Action] {
        self.position = position
        positionReceived = now
        return actions(for: approach.handle(.position(position), now: now))
    }

    /// OSM's answer (a building's doors, or the entrances near a centre with no building) found
    /// for `destination`: taken while the approach awaits them, that is, asked for by the last
    /// walk begun, even once it has ended (before, they were dropped when no walk went on, so
    /// a lookup slower than the 3 s after "여기가 입구야" was lost).
    package mutating func doorsFound(_ answer: OSMAnswer, for destination: Destination, now: Date) -> [Action]
    {
        guard approach.awaitsDoors(for: destination) else { return [] }
        return actions(for: approach.handle(answer.event, now: now))
    }

    /// Any other event (tick, noFix, altitude, doorsArrived).
    package mutating func handle(_ event: FinalApproach.Event, now: Date) -> [Action] {
        if case .altitude = event { altitudeReceived = now }
        return actions(for: approach.handle(event, now: now))
    }

    /// The reply to a request that could not be parsed.
    package func refuse(_ error: ControlRequestError, client: ControlServer.ClientID) -> [Action] {
        [.reply(client, failure(error.message))]
    }

    private func status(now: Date) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["state": .string(state)]
        fields["destination"] = destination.map { .from($0) } ?? .null
        fields["position"] = position.map { .from($0.coordinate) } ?? .null
        // Seconds since `time`, to the tenth; null when nothing came.
        let age = { (time: Date?) in
            time.map { JSONValue.number((max(0, now.timeIntervalSince($0)) * 10).rounded() / 10) } ?? .null
        }
        // Seconds since it came: a family member reading `status` during a GPS outage sees a
        // position minutes old, not one that looks current.
        fields["positionAge"] = age(positionReceived)
        fields["accuracy"] = position?.horizontalAccuracy.map { .number($0) } ?? .null
        // Likewise the altitude (audit 6 R1-3: a barometer that stopped showed its last altitude
        // as if current, while the walk had dropped it after 3 s).
        fields["altitudeAge"] = age(altitudeReceived)
        fields["door"] = approach.plan?.entrance.map { .from($0) } ?? .null
        // As the walker is told it: to the walls of a building without a door when its outline is
        // known (before, audit 13 A13-3, to its centre: 189 m while "건물까지 백삼십 미터" was said).
        if let position, let metres = approach.metresToGoal(from: position.coordinate) {
            fields["distance"] = .number((metres * 10).rounded() / 10)
        } else {
            fields["distance"] = .null
        }
        fields.merge(barometer.status) { a, _ in a }
        fields["microphone"] = microphone
        fields.merge(world) { a, _ in a }
        return fields
    }

    /// FinalApproach's effects as actions, each with its event-log line (`line(for:)`).
    private func actions(for effects: [FinalApproach.Effect]) -> [Action] {
        var actions: [Action] = []
        for effect in effects {
            switch effect {
            case .say(let prompt):
                actions += [.event(Self.line(for: effect)), .say(prompt)]
            case .requestDoors(let destination):
                actions += [.event(Self.line(for: effect)), .requestDoors(destination)]
            case .saveMemory(let memory):
                // Its line goes out only once the file is written (the loop does both).
                actions.append(.saveMemory(memory))
            case .plan, .walkEnded, .log:
                actions.append(.event(Self.line(for: effect)))
            }
        }
        return actions
    }

    /// Whether `action` is speech: a prompt, or its `say` line on the event stream.
    package static func isSpeech(_ action: Action) -> Bool {
        switch action {
        case .say: true
        case .event(let line): line.objectValue?["event"]?.stringValue == "say"
        default: false
        }
    }

    /// Whether `actions` replace the walk under way (a `go` during it): its `walkEnded`
    /// `replaced` line is among them.
    package static func replacesWalk(_ actions: [Action]) -> Bool {
        actions.contains(.event(line(for: .walkEnded(.replaced))))
    }

    /// The event-log line of one effect: the replay's own mapping (`FinalApproach.LogLine`),
    /// so `pathfinder replay` and the daemon print the same lines; the loop replaces the
    /// trace-relative `t` with the wall clock.
    package static func line(for effect: FinalApproach.Effect) -> JSONValue {
        .from(FinalApproach.LogLine(t: 0, effect: effect))
    }

    /// Says, in the last stretch, that the microphone cannot hear (its model refused, its
    /// device gone or silent): the walker is about to be asked to answer aloud, and would
    /// answer into nothing. With buttons, it says to use them.
    package func cannotHear(buttons: Bool) -> [Action] {
        saidInLastStretch(buttons ? Self.cannotHearButtonsText : Self.cannotHearText)
    }

    /// Says, in the last stretch, that the microphone that could not hear hears again: the
    /// walker told ``cannotHear(buttons:)`` can answer aloud again.
    package func hearsAgain() -> [Action] { saidInLastStretch(Self.hearsAgainText) }

    private func saidInLastStretch(_ text: String) -> [Action] {
        guard approach.isInLastStretch else { return [] }
        let prompt = FinalApproach.Prompt(text)
        return [.event(Self.line(for: .say(prompt))), .say(prompt)]
    }

    package static let cannotHearText = "마이크가 안 들려. 대답을 들을 수 없어."
    package static let cannotHearButtonsText = "마이크가 안 들려. 대답은 버튼으로 해줘."
    package static let hearsAgainText = "이제 마이크가 들려."

    private func ok(_ fields: [String: JSONValue]) -> JSONValue {
        .object(fields.merging(["ok": .bool(true)]) { a, _ in a })
    }

    private func failure(_ message: String) -> JSONValue {
        .object(["ok": .bool(false), "error": .string(message)])
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}
