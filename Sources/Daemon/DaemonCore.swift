package import Arrival
package import Foundation

/// The daemon's state and its answer to each input: a value, changed only by the one
/// serial loop in `Daemon.run`, returning actions that the loop performs. Tests drive it
/// directly, without sockets or threads.
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
        case say(String)
    }

    /// Where the walk stands.
    package enum State: String, Sendable {
        case idle, walking
    }

    package private(set) var state = State.idle
    package private(set) var destination: Destination?
    /// The last prompt spoken, for `repeat`.
    package private(set) var lastSaid: String?

    package init() {}

    /// Answers one control request from `client`.
    package mutating func handle(
        _ request: ControlRequest, from client: ControlServer.ClientID, now: Date
    ) -> [Action] {
        switch request {
        case .subscribe:
            return [.reply(client, ok(["subscribed": .bool(true)])), .subscribe(client)]
        case .status:
            var fields: [String: JSONValue] = ["state": .string(state.rawValue)]
            fields["destination"] = destination.map { JSONValue.from($0) } ?? .null
            fields["position"] = .null
            return [.reply(client, ok(fields))]
        case .stop:
            guard state != .idle else { return [.reply(client, ok(["state": .string("idle")]))] }
            state = .idle
            destination = nil
            return [
                .reply(client, ok(["state": .string("idle")])),
                .event(.object(["event": .string("walkEnded"), "reason": .string("stop")])),
            ]
        case .go(.destination(let target)):
            state = .walking
            destination = target
            return [.reply(client, ok(["state": .string("walking"), "destination": .from(target)]))]
        case .go(.query(let query)):
            return [.reply(client, failure("go: cannot resolve \"\(query)\": no gazetteer is loaded"))]
        case .whereAmI:
            return [.reply(client, failure("where: no position yet"))]
        case .repeatLast:
            guard let lastSaid else { return [.reply(client, failure("repeat: nothing has been said yet"))] }
            return [.reply(client, ok(["text": .string(lastSaid)])), .say(lastSaid)]
        case .heard(let text):
            let meaning = ArrivalWords.meaning(of: text)
            let meaningValue = meaning.map { JSONValue.string($0.rawValue) } ?? .null
            var actions: [Action] = [.reply(client, ok(["meaning": meaningValue]))]
            if state == .walking {
                actions.append(
                    .event(
                        .object(["event": .string("heard"), "text": .string(text), "meaning": meaningValue])))
            }
            return actions
        }
    }

    /// The reply to a request that could not be parsed.
    package func refuse(_ error: ControlRequestError, client: ControlServer.ClientID) -> [Action] {
        [.reply(client, failure(error.message))]
    }

    private func ok(_ fields: [String: JSONValue]) -> JSONValue {
        .object(fields.merging(["ok": .bool(true)]) { a, _ in a })
    }

    private func failure(_ message: String) -> JSONValue {
        .object(["ok": .bool(false), "error": .string(message)])
    }
}
