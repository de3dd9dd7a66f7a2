import Arrival
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
    let memoryPath: String
    let log: DaemonLog

    /// The core's answer to `request`, after resolving a query or a place.
    func answer(
        _ request: ControlRequest, from client: ControlServer.ClientID, core: inout DaemonCore,
        now: Date = Date()
    )
        -> [DaemonCore.Action]
    {
        switch request {
        case .go(.query(let query)):
            do {
                let destination = try lookups.destination(for: query)
                log.info(
                    "go \"\(query)\": \(destination.name) at \(destination.center.latitude),\(destination.center.longitude)"
                )
                return core.handle(.go(.destination(destination)), from: client, now: now)
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
        default:
            return core.handle(request, from: client, now: now)
        }
    }

    func perform(_ actions: [DaemonCore.Action]) {
        for action in actions {
            switch action {
            case .reply(let client, let value): server.send(value.text, to: client)
            case .subscribe(let client): server.subscribe(client)
            case .event(let value): broadcast(value)
            case .say(let prompt):
                log.info("say: \(prompt.text)")
                voice.say(prompt)
            case .saveMemory(let memory):
                // Synchronous on the loop: a SIGTERM arriving now is handled after the
                // rename, so a stop never leaves a half-written file.
                do {
                    try MemoryFile.save(memory, path: memoryPath)
                    broadcast(DaemonCore.line(for: .saveMemory(memory)))
                } catch {
                    log.error("\(error)")
                }
            case .requestDoors(let destination):
                // The index answers in milliseconds; the doors come back through the input
                // stream so they arrive as their own step, as they would from a slow source.
                do {
                    let doors = try lookups.doors(for: destination)
                    log.info("door index: \(doors.count) doors for \(destination.name)")
                    continuation.yield(.doors(destination, doors))
                } catch {
                    log.warning("\(error); walking to the centre of \(destination.name) and remembered doors")
                }
            }
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
