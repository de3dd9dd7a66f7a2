import Arrival
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
    func answer(
        _ request: ControlRequest, from client: ControlServer.ClientID, core: inout DaemonCore,
        now: Date = Date()
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
                return core.handle(.go(.destination(destination)), from: client, now: now).map { action in
                    // The reply also says what matched and what else did, for a companion app.
                    guard case .reply(let to, .object(var fields)) = action, to == client,
                        fields["ok"] == .bool(true)
                    else { return action }
                    fields["match"] = answer.chosen.json
                    fields["alternatives"] = .array(answer.alternatives.map(\.json))
                    var notes: [String] = []
                    if let form = answer.matchedQuery {
                        notes.append("nothing matches \"\(query)\"; found by \"\(form)\"")
                    }
                    if !answer.nearFix {
                        notes.append("no position yet: the best match by name, not by distance")
                    }
                    if !notes.isEmpty { fields["note"] = .string(notes.joined(separator: "; ")) }
                    return .reply(to, .object(fields))
                }
            } catch {
                return [.reply(client, .object(["ok": .bool(false), "error": .string("go: \(error)")]))]
            }
        case .whereAmI:
            guard let position = core.position else { return core.handle(request, from: client, now: now) }
            var fields: [String: JSONValue] = ["ok": .bool(true), "position": .from(position.coordinate)]
            do {
                let place = try lookups.place(at: position.coordinate)
                fields["place"] = place
                let names = ["city", "region", "country"].compactMap {
                    place.objectValue?[$0]?.objectValue?["name"]?.stringValue
                }
                guard !names.isEmpty else { return [.reply(client, .object(fields))] }
                let prompt = FinalApproach.Prompt("여기는 \(names.joined(separator: ", "))이야.")
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
            return core.handle(request, from: client, now: now)
        default:
            return core.handle(request, from: client, now: now)
        }
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
                    let found = try lookups.doors(for: destination)
                    if found.building {
                        log.info("door index: \(found.doors.count) doors for \(destination.name)")
                    } else {
                        // Said, but remembered as no building's doors (before: stored as a
                        // door-less building, which then stood for every one within 120 m).
                        log.info(
                            "door index: no building within \(Int(DoorIndex.nearestOutlineMetres)) m of \(destination.name)'s centre; "
                                + "\(found.doors.count) entrances within \(Int(DoorsInFile.radiusMetres)) m for this walk, "
                                + "not remembered as a building's doors")
                    }
                    continuation.yield(.doors(destination, found.doors, building: found.building))
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
            let label = door["label"]?.stringValue.map { "door \($0)" } ?? "door"
            return "\(label) at \(lat),\(lon)"
        }
        switch event {
        case "arrived":
            log.info("arrived: \(door(fields["door"])), \(fields["metres"]?.numberValue ?? 0) m from it")
        case "heard":
            var text =
                "heard: \"\(fields["text"]?.stringValue ?? "")\" meaning \(fields["meaning"]?.stringValue ?? "none")"
            if let source = fields["source"]?.stringValue { text += ", from \(source)" }
            if let confidence = fields["confidence"]?.numberValue { text += ", confidence \(confidence)" }
            log.info(text)
        case "rejected": log.info("rejected: \(door(fields["door"]))")
        case "confirmed": log.info("confirmed: \(door(fields["door"]))")
        case "memorySaved":
            log.info("memory saved: \(memory.path) (\(Int(fields["buildings"]?.numberValue ?? 0)) buildings)")
        case "memoryFailed": log.error("memory not saved: \(fields["reason"]?.stringValue ?? "")")
        default: break
        }
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
/// read) and keeps each write's outcome until the loop hands it to the core. Used only on the
/// loop.
final class MemoryKeeper {
    private var store: MemoryStore
    private var pending: [FinalApproach.Event] = []
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

    /// Loads the memory once, at start.
    func load() -> (memory: EntranceMemory, warning: MemoryFileError?) { store.load() }

    /// Writes `memory`; the outcome waits in ``next()``.
    func save(_ memory: EntranceMemory, log: DaemonLog) {
        // Never into a folder another daemon holds (it would write over this one, and this one
        // over it); the folder at the path locked again first when it is not the one held.
        if !checkHold(log: log), let lost {
            pending.append(.memoryFailed("\(lost)"))
            return
        }
        do {
            if let file = try store.save(memory) {
                log.info("memory \(store.path) can be read again: its buildings merged with this session's")
                pending.append(.memoryFileRead(file))
            }
            pending.append(.memorySaved)
        } catch {
            pending.append(.memoryFailed("\(error)"))
        }
    }

    /// The oldest outcome not yet handed to the core.
    func next() -> FinalApproach.Event? {
        pending.isEmpty ? nil : pending.removeFirst()
    }
}
