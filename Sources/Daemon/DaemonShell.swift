import Arrival
import Diagnostics
import EntranceIndex
import Foundation
import Geo
import Storage

/// The loop's hands: performs what `DaemonCore` decides (replies, the live event stream,
/// speech, memory writes, door lookups) and answers the requests that need a database
/// (`go {"query"}`, `where`). Lives on the loop, like the core.
struct Shell {
    let server: ControlServer
    let voice: DaemonVoice
    let lookups: DaemonLookups
    let continuation: AsyncStream<Daemon.Input>.Continuation
    /// The memory file and the outcomes of its writes, for the loop to hand back to the core.
    let memory: MemoryKeeper
    let log: DaemonLog

    /// The core's answer to `request`, after resolving a query or a place.
    /// - Parameter now: the loop's clock (`WalkClock`), never the wall clock: a walk's inputs all
    ///   come on one clock.
    func answer(
        _ request: ControlRequest, from client: ControlServer.ClientID, core: inout DaemonCore, now: Date
    )
        -> [DaemonCore.Action]
    {
        switch request {
        case .go(.query(let query, let far)):
            do {
                let answer = try lookups.destination(for: query, near: core.position?.coordinate, far: far)
                let destination = answer.chosen.destination
                log.info(
                    "go \"\(query)\": \(destination.name) at \(destination.center.latitude),\(destination.center.longitude) (\(answer.chosen.source))"
                )
                return go(destination, from: client, core: &core, now: now).map { action in
                    // The reply also says what matched and what else did, for a companion app.
                    guard case .reply(let to, .object(var fields)) = action, to == client,
                        fields["ok"] == .bool(true)
                    else { return action }
                    fields["match"] = answer.chosen.json
                    fields["alternatives"] = .array(answer.alternatives.map(\.json))
                    var notes = [
                        answer.areaNote, answer.streetNote(query), Self.namedDoorNote(query, fields),
                    ]
                    .compactMap { $0 }
                    if let form = answer.matchedQuery {
                        notes.append(
                            "nothing matches \"\(query)\"; found by \"\(form)\""
                                + (answer.matchedIn.isEmpty
                                    ? "" : " in " + answer.matchedIn.joined(separator: " or "))
                                + (answer.notMatchedIn.isEmpty
                                    ? "" : "; none in " + answer.notMatchedIn.joined(separator: " or ")))
                    }
                    if !answer.nearFix {
                        notes.append("no position yet: the best match by name, not by distance")
                    }
                    if !notes.isEmpty { fields["note"] = .string(notes.joined(separator: "; ")) }
                    return .reply(to, .object(fields))
                }
            } catch {
                var fields: [String: JSONValue] = ["ok": .bool(false), "error": .string("go: \(error)")]
                if !error.alternatives.isEmpty { fields["alternatives"] = .array(error.alternatives) }
                return [.reply(client, .object(fields))]
            }
        case .whereAmI:
            guard let position = core.position else { return core.handle(request, from: client, now: now) }
            var fields: [String: JSONValue] = ["ok": .bool(true), "position": .from(position.coordinate)]
            do {
                let place = try lookups.place(at: position.coordinate)
                fields["place"] = place
                guard let said = lookups.spokenPlace(place) else { return [.reply(client, .object(fields))] }
                let prompt = FinalApproach.Prompt(said)
                return [
                    .reply(client, .object(fields)), .event(DaemonCore.line(for: .say(prompt))), .say(prompt),
                ]
            } catch {
                fields["place"] = .null
                fields["placeError"] = .string("\(error)")
                return [.reply(client, .object(fields))]
            }
        case .go(.destination(let destination)):
            log.info(
                "go: \(destination.name) at \(destination.center.latitude),\(destination.center.longitude)"
                    + (destination.door.map {
                        ", named door at \($0.coordinate.latitude),\($0.coordinate.longitude)"
                    }
                        ?? ""))
            return go(destination, from: client, core: &core, now: now)
        default:
            return core.handle(request, from: client, now: now)
        }
    }

    /// When `query` named a door of the building (the destination's `door`) and the walk's
    /// plan (the reply's `fields`) does not lead there first, why (`ArrivalPlan.make`'s order):
    /// the walker rejected it, or the walker's confirmed door leads. Nil otherwise.
    static func namedDoorNote(_ query: String, _ fields: [String: JSONValue]) -> String? {
        guard let named = try? fields["destination"]?.decode(Destination.self).door,
            let plan = try? fields["plan"]?.decode(ArrivalPlan.self)
        else { return nil }
        func isNamed(_ door: Door) -> Bool {
            door.coordinate.distance(to: named.coordinate) <= EntranceMemory.sameDoorMetres
        }
        if plan.entrance.map(isNamed) == true { return nil }
        let which = named.label.map { "door \($0)" } ?? "a door"
        let why =
            plan.doors.contains(where: isNamed)
            ? "the walker's confirmed door leads" : "the walker rejected it"
        return "\"\(query)\" names \(which) (\(named.coordinate.latitude),\(named.coordinate.longitude)): "
            + "not led there first, \(why)"
    }

    /// The core's answer to a `go` to `destination`; the walk under way asked for again
    /// (``DaemonCore/isRepeatedGo(_:now:)``) is said so in the log.
    private func go(
        _ destination: Destination, from client: ControlServer.ClientID, core: inout DaemonCore, now: Date
    ) -> [DaemonCore.Action] {
        if core.isRepeatedGo(destination, now: now) {
            log.info(
                "go: the same destination again within \(Int(DaemonCore.sameGoSeconds)) s; the walk goes on")
        }
        return core.handle(.go(.destination(destination)), from: client, now: now)
    }

    func perform(_ actions: [DaemonCore.Action]) {
        for action in actions {
            switch action {
            case .reply(let client, let value): server.send(value.text, to: client)
            case .subscribe(let client): server.subscribe(client)
            case .event(let value):
                logWalk(value)
                broadcast(value)
            case .say(let prompt):
                log.info("say: \(prompt.text)")
                voice.say(prompt)
            case .saveMemory(let memory):
                // Synchronous on the loop: a SIGTERM arriving now is handled after the
                // rename, so a stop never leaves a half-written file. The outcome goes back
                // to the core before the next input (`MemoryKeeper.next()`): the promise
                // "기억할게" is said only after the write succeeded.
                self.memory.save(memory, log: log)
            case .requestDoors(let destination):
                // The index answers in milliseconds; the doors come back through the input
                // stream so they arrive as their own step, as they would from a slow source.
                do {
                    let answer = try lookups.doors(for: destination)
                    switch answer {
                    case .building(let doors, _):
                        log.info("door index: \(doors.count) doors for \(destination.name)")
                    case .noBuilding(let entrances):
                        // Said, but remembered as no building's doors (before: stored as a
                        // door-less building, which then stood for every one within 120 m).
                        log.info(
                            "door index: no building within \(Int(DoorIndex.nearestOutlineMetres)) m of \(destination.name)'s centre; "
                                + "\(entrances.count) entrances within \(Int(DoorsInFile.radiusMetres)) m for this walk, "
                                + "not remembered as a building's doors")
                    }
                    continuation.yield(.doors(destination, answer))
                } catch {
                    log.warning("\(error); walking to the centre of \(destination.name) and remembered doors")
                }
            }
        }
    }

    /// The walk's story at `info`, one line per step worth reading in the journal: arrived,
    /// heard (text, meaning, source), rejected, confirmed, memory saved or failed.
    private func logWalk(_ value: JSONValue) {
        guard let fields = value.objectValue, let event = fields["event"]?.stringValue else { return }
        func door(_ value: JSONValue?) -> String {
            guard let door = value?.objectValue, let lat = door["lat"]?.numberValue,
                let lon = door["lon"]?.numberValue
            else { return "the centre" }
            return Self.door(label: door["label"]?.stringValue, lat: lat, lon: lon)
        }
        switch event {
        case "arrived":
            let at = fields["goal"]?.stringValue == "walls" ? "the building's walls" : door(fields["door"])
            log.info("arrived: \(at), \(fields["metres"]?.numberValue ?? 0) m from it")
        case "heard":
            var text =
                "heard: \"\(fields["text"]?.stringValue ?? "")\" meaning \(fields["meaning"]?.stringValue ?? "none")"
            if let source = fields["source"]?.stringValue { text += ", from \(source)" }
            if let confidence = fields["confidence"]?.numberValue { text += ", confidence \(confidence)" }
            log.info(text)
        case "rejected": log.info("rejected: \(door(fields["door"]))")
        case "confirmed": log.info("confirmed: \(door(fields["door"]))")
        case "memorySaved":
            log.info(
                "memory saved: \(memory.path) (\(Int(fields["buildings"]?.numberValue ?? 0)) buildings)"
                    + memory.takeSavedNote())
        case "memoryFailed": log.error("memory not saved: \(fields["reason"]?.stringValue ?? "")")
        default: break
        }
    }

    /// A door as the log names it: "door A at 60.1,24.9" ("door at …" without a label).
    static func door(label: String?, lat: Double, lon: Double) -> String {
        "\(label.map { "door \($0)" } ?? "door") at \(lat),\(lon)"
    }

    /// A door of a plan as the log names it; "the centre" when there is none.
    static func door(_ door: Door?) -> String {
        guard let door else { return "the centre" }
        return Self.door(label: door.label, lat: door.coordinate.latitude, lon: door.coordinate.longitude)
    }

    /// The info line of a walk re-planned because a merged memory file changed its building
    /// (`plan` `memoryMerged`): the building, the first door before and after; a door kept
    /// because the walker stands at it (`atDoor`), asked, says so.
    static func replanned(_ name: String, from old: Door?, to plan: ArrivalPlan, atDoor: Bool) -> String {
        let text = "memory merged: \(name), where the walk under way leads, changed; re-planned: "
        guard FinalApproach.isAnotherDoor(old, plan.entrance) else {
            let next = plan.alternatives.first.map { "next \(door($0))" } ?? "no other door"
            let why = atDoor ? "stays first (the walker is at it, asked)" : "still first"
            return text + "first \(door(plan.entrance)) \(why); \(next)"
        }
        return text + "first \(door(old)) → \(door(plan.entrance))"
    }

    private func broadcast(_ value: JSONValue) {
        var value = value
        if case .object(var fields) = value {
            fields["t"] = .string(Daemon.timestamp(Date()))
            value = .object(fields)
        }
        log.debug("event: \(value.text)")
        server.broadcast(value.text)
    }
}

/// The memory file on the loop: writes it (``MemoryStore``: never over a file that could not be
/// read) and keeps each write's outcome until the loop hands it to the core. A memory whose
/// write failed (a full disk, a read-only folder) is written again by itself, with backoff
/// (``retryIfDue(now:log:)``, on the loop's tick), and once more at the stop
/// (``saveAtStop(log:)``): before, it waited for the next change, which may never come (the
/// walk ends after "입구를 기억하지 못했어."), and a stop dropped it unsaid. Used only on the loop.
final class MemoryKeeper {
    private var store: MemoryStore
    private var pending: [FinalApproach.Event] = []
    /// The memory whose write failed, to be written again; nil while the file holds what the
    /// daemon holds.
    private var unsaved: EntranceMemory?
    /// Writes tried since the last that succeeded (the failed change's own included).
    private var attempts = 0
    /// When the first of those failed (the wall clock, for the log).
    private var unsavedSince: Date?
    /// When the unsaved memory is written again (the walk file's failed writes keep the same
    /// schedule).
    private var retry = RetrySchedule()
    /// The last failure logged (its reason and when), so a retry that keeps failing is logged
    /// when its reason changes or ``failureLogSeconds`` have passed, not every time.
    private var logged: (reason: String, at: ContinuousClock.Instant)?
    /// Set by a write that succeeded after failed ones, for its `memory saved` line.
    private var savedNote: String?

    /// A retry that keeps failing for the same reason is logged again after this long.
    static let failureLogSeconds = 600.0
    /// The daemon's locks on the memory (nil: its folder could not be made or locked at start).
    private let hold: MemoryFile.DaemonHold?
    /// Why nothing may be saved now: another daemon took the memory's folder, made again at its
    /// path after this one's was removed. Nil while the daemon holds it.
    private var lost: MemoryFileError?
    /// The last ``MemoryFile/DaemonHold/Verification/unlocked(_:)`` said, so it is said once.
    private var unlockedSaid: String?

    /// How often, in the daemon's 1 s ticks, ``checkHold(log:)`` runs between saves: as often as
    /// the socket's check, so a second daemon started after the folder was removed is refused.
    static let checkEveryTicks = 2

    /// False while another daemon holds the memory's folder (``checkHold(log:)``): nothing
    /// beside the memory is written then.
    var holdsMemory: Bool { lost == nil }

    init(path: String, hold: MemoryFile.DaemonHold? = nil) {
        store = MemoryStore(path: path)
        self.hold = hold
    }

    /// Whether the daemon still holds the memory's folder and lock file at the path, taking
    /// them again when they were removed or replaced (said as a warning); false while another
    /// daemon holds them (said once as an error, and once more when this one has them again).
    @discardableResult
    func checkHold(log: DaemonLog) -> Bool {
        guard let hold else { return true }
        switch hold.verify() {
        case .held:
            return lost == nil
        case .retaken(let note):
            if lost != nil {
                log.info("memory \(store.path): locked again (what held it has let go); saves resume")
                lost = nil
            } else {
                log.warning(note)
            }
            unlockedSaid = nil
            return true
        case .lost(let error):
            if lost == nil {
                log.error(
                    "memory \(error); this daemon saves nothing while it does: its memory folder was removed or replaced under it and then taken"
                )
            }
            lost = error
            return false
        case .unlocked(let error):
            if unlockedSaid != error.description { log.warning("memory \(error)") }
            unlockedSaid = error.description
            return true
        }
    }

    var path: String { store.path }

    /// Whether a change is in RAM only (its write failed, not yet retried with success).
    var hasUnsaved: Bool { unsaved != nil }

    /// The unsaved change for `status`: since when its writes fail (the wall clock), how many
    /// were tried, the last failure's reason; null while the file holds what the daemon holds.
    var status: JSONValue {
        guard unsaved != nil else { return .null }
        return .object([
            "unsavedSince": unsavedSince.map { .string(Daemon.timestamp($0)) } ?? .null,
            "attempts": .number(Double(attempts)),
            "reason": logged.map { .string($0.reason) } ?? .null,
        ])
    }

    /// Loads the memory once, at start.
    func load() -> (memory: EntranceMemory, warning: MemoryFileError?) {
        store.load()
    }

    /// At `go` and at SIGHUP: a file another program put at the path since the daemon last read
    /// or wrote it (``MemoryStore/changedOnDisk``) is merged with `memory` and written now, as at
    /// a save, so the walk about to be planned uses it (audit 10 A10-3: before, only the next
    /// save read it, and the walk was planned without the family's door). The outcome waits in
    /// ``next()``. Returns whether it was.
    @discardableResult
    func mergeIfReplaced(_ memory: EntranceMemory, log: DaemonLog) -> Bool {
        guard store.changedOnDisk else { return false }
        save(memory, log: log)
        return true
    }

    /// Writes `memory` (a change); the outcome waits in ``next()``. A failure is the core's
    /// `memoryFailed` (said, logged); the memory is then retried by itself.
    func save(_ memory: EntranceMemory, log: DaemonLog, now: ContinuousClock.Instant = .now) {
        do {
            try write(memory, log: log)
        } catch {
            failed(memory)
            retry.changeFailed(now: now)  // a new change: soon again
            logged = ("\(error)", now)  // the core's memoryFailed logs it
            pending.append(.memoryFailed("\(error)"))
        }
    }

    /// Writes the unsaved memory again when its retry is due (called on the loop's tick). A
    /// success is handed to the core as `memorySaved`; a failure is logged only when its reason
    /// changed or ``failureLogSeconds`` passed since the last such line.
    func retryIfDue(now: ContinuousClock.Instant, log: DaemonLog) {
        guard let memory = unsaved, retry.isDue(now: now) else { return }
        do {
            try write(memory, log: log)
        } catch {
            failed(memory)
            retry.retryFailed(now: now)
            let reason = "\(error)"
            if let logged, logged.reason == reason,
                now - logged.at < .seconds(Self.failureLogSeconds)
            {
                return
            }
            self.logged = (reason, now)
            log.error(
                "memory still not saved after \(attempts) attempts since \(Self.time(unsavedSince)): \(reason); "
                    + "trying again every \(Int(RetrySchedule.maxSeconds)) s at most")
        }
    }

    /// At the stop: writes the unsaved memory once more, or the saved one when another program
    /// replaced the file since (merged, so neither is lost at the exit). Saved, it is handed to
    /// the core as `memorySaved`; still failing, the log says what is lost. Returns whether it
    /// wrote or tried to.
    @discardableResult
    func saveAtStop(log: DaemonLog) -> Bool {
        guard let memory = unsaved ?? (store.changedOnDisk ? store.base : nil) else { return false }
        do {
            try write(memory, log: log, atStop: true)
        } catch {
            let lost = Self.changes(from: store.base, to: memory)
            log.error(
                "memory not saved at stop: \(error); lost: "
                    + (lost.isEmpty ? "nothing the file lacks" : lost.joined(separator: ", ")) + " "
                    + "(unsaved since \(Self.time(unsavedSince)), \(attempts + 1) attempts)")
        }
        return true
    }

    /// The note for the `memory saved` line of the write that just succeeded: " (after N
    /// attempts)" when earlier ones failed, "" otherwise. Read once.
    func takeSavedNote() -> String {
        defer { savedNote = nil }
        return savedNote ?? ""
    }

    /// The oldest outcome not yet handed to the core.
    func next() -> FinalApproach.Event? {
        pending.isEmpty ? nil : pending.removeFirst()
    }

    /// Writes `memory`; a success is queued for the core and clears the unsaved state.
    private func write(_ memory: EntranceMemory, log: DaemonLog, atStop: Bool = false) throws {
        // Never into a folder another daemon holds (it would write over this one, and this one
        // over it); the folder at the path locked again first when it is not the one held. A
        // change refused so is retried as any failed write, and written once this daemon holds
        // the folder again.
        if !checkHold(log: log), let lost { throw lost }
        if let merge = try store.saveMerging(memory) {
            switch merge.cause {
            case .readAgain:
                log.info("memory \(store.path) can be read again: its buildings merged with this session's")
            case .replaced:
                log.warning(Self.replaced(merge, path: store.path, session: memory))
            }
            pending.append(.memoryFileRead(merge.merged))
        }
        let stop = atStop ? "at the stop" : ""
        if attempts > 0 {
            savedNote =
                " (\(stop)\(atStop ? ", " : "")after \(attempts + 1) attempts since \(Self.time(unsavedSince)))"
        } else if atStop {
            savedNote = " (\(stop))"
        }
        unsaved = nil
        attempts = 0
        unsavedSince = nil
        retry.written()
        logged = nil
        pending.append(.memorySaved)
    }

    private func failed(_ memory: EntranceMemory) {
        if unsaved == nil { unsavedSince = Date() }
        unsaved = memory
        attempts += 1
    }

    /// The warning for a file another program replaced, found and merged at a save: what it
    /// held that this daemon did not, or where it was set aside.
    static func replaced(_ merge: MemoryStore.Merge, path: String, session: EntranceMemory) -> String {
        var text =
            "memory \(path) changed on disk since this daemon last read or wrote it (replaced by another program: a restored backup, a sync tool?)"
        if let warning = merge.warning {
            text +=
                "; "
                + JSONDiagnostics.describe(line: warning.line, field: warning.field, reason: warning.reason)
            if let aside = warning.setAside {
                text += warning.kept == nil ? "; set aside as \(aside)" : "; copied to \(aside)"
            }
        }
        if merge.file.buildings.isEmpty {
            return text + "; nothing in it to merge: this daemon's memory saved"
        }
        // What the merge made of this daemon's memory, not the file as it was: a file holding a
        // building in an older version (the daemon's own backup) brings nothing (before: it was
        // listed, its older door as new or "changed").
        let new = changes(from: session, to: merge.merged)
        text +=
            "; its \(merge.file.buildings.count) buildings merged with this daemon's (new from it: "
            + (new.isEmpty ? "nothing" : new.joined(separator: ", ")) + ") and saved"
        // Which side won where both changed a building (audit 10 A10-1: before, "merged" was
        // said of a file whose changes the save then wrote over).
        for both in merge.bothChanged {
            var applied: [String] = []
            if let door = both.confirmed {
                applied.append(
                    "its door confirmed at \(door.coordinate.latitude),\(door.coordinate.longitude)")
            }
            let n = both.rejected.count
            if n > 0 { applied.append("its \(n) door\(n == 1 ? "" : "s") rejected") }
            if both.osm { applied.append("its newer OSM doors") }
            text +=
                "; \(both.name) changed both in the file and by this daemon: the file's kept, "
                + (applied.isEmpty
                    ? "nothing of this daemon's over it"
                    : "with " + applied.joined(separator: ", ") + " over it")
        }
        for name in merge.olderInFile {
            text += "; \(name) older in the file than this daemon's: this daemon's kept"
        }
        for edit in merge.editedFromOlder { text += "; " + editedFromOlder(edit) }
        return text
    }

    /// What the merge did with a building a person edited in a copy older than this daemon's
    /// version (audit 11 A11-1: before, the copy's older door replaced the walker's, unsaid).
    private static func editedFromOlder(_ edit: EntranceMemory.EditedFromOlder) -> String {
        // The mark is the lineage of the copy's edits (audit 13 A13-2), not the copy's version.
        let began =
            edit.basedOn == EntranceMemory.editedFromNothing
            ? "a file without it" : "its version of \(time(edit.basedOn))"
        var text =
            "\(edit.name) edited in the file from an older version than this daemon's (the file's edits of it go back to \(began); this daemon's version is of \(time(edit.daemons))): this daemon's kept"
            + (edit.kept.map { " (its door confirmed at \(at($0.coordinate)))" } ?? "")
            + " with what the file adds that does not contradict it"
        var left: [String] = []
        if let door = edit.confirmedNotTaken {
            left.append("the file's door confirmed at \(at(door.coordinate))")
        }
        let n = edit.rejectedNotTaken.count
        if n > 0 {
            left.append(
                "the file's \(n) door\(n == 1 ? "" : "s") rejected within \(Int(EntranceMemory.sameDoorMetres)) m of this daemon's confirmed door"
            )
        }
        if !left.isEmpty { text += "; not taken: " + left.joined(separator: ", ") }
        return text
    }

    /// A coordinate as the log writes it: "60.1,24.9".
    private static func at(_ c: Coordinate) -> String { "\(c.latitude),\(c.longitude)" }

    /// The wall-clock time of `date` for the log (ISO 8601), "?" when unknown.
    private static func time(_ date: Date?) -> String {
        date.map { Date.ISO8601FormatStyle().format($0) } ?? "?"
    }

    /// What `memory` holds that `saved` does not, one per building: "Siltavuorenpenger 10 (door
    /// confirmed at 60.1,24.9)", "Kamppi (1 door rejected)".
    static func changes(from saved: EntranceMemory, to memory: EntranceMemory) -> [String] {
        // As the file holds them (times to the second), so a building read back is no change.
        let saved = MemoryFile.asWritten(saved)
        let memory = MemoryFile.asWritten(memory)
        var lines: [String] = []
        for building in memory.buildings where !saved.buildings.contains(building) {
            let old = saved.buildings.first { $0.name == building.name && $0.center == building.center }
            var parts: [String] = []
            if let door = building.confirmed, door != old?.confirmed {
                parts.append("door confirmed at \(door.coordinate.latitude),\(door.coordinate.longitude)")
            }
            let rejected = building.rejected.filter { !(old?.rejected.contains($0) ?? false) }.count
            if rejected > 0 { parts.append("\(rejected) door\(rejected == 1 ? "" : "s") rejected") }
            if building.osm != nil, building.osm != old?.osm { parts.append("OSM's doors") }
            if parts.isEmpty { parts.append("changed") }
            lines.append("\(building.name) (\(parts.joined(separator: ", ")))")
        }
        return lines
    }
}
