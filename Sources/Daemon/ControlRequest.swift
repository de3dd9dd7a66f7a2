package import Arrival
import Diagnostics
import EntranceIndex
package import Foundation
import Geo

/// One request on the control socket, as CONTRACT.md spells it: `{"cmd": …, …}`.
package enum ControlRequest: Sendable, Equatable {
    /// Walk to a building: a Destination object, or a query for the gazetteer and door index.
    case go(GoTarget)
    case status
    case stop
    /// Where the walker is: reverse geocoded, spoken.
    case whereAmI
    /// The last prompt again.
    case repeatLast
    /// Text as if spoken by the walker.
    case heard(String)
    /// From now on, the event log's lines, live.
    case subscribe

    package enum GoTarget: Sendable, Equatable {
        case destination(Destination)
        /// A name or address; `far` accepts a match more than 50 km from the walker.
        case query(String, far: Bool = false)
    }

    /// The reply to a line holding nothing but spaces, tabs or a carriage return.
    package static let blankLineMessage =
        #"empty request line: expected one JSON object a line, e.g. {"cmd": "status"}"#

    /// Every command name, for the "unknown command" message.
    package static let commands = ["go", "status", "stop", "where", "repeat", "heard", "subscribe"]

    /// Parses one request line.
    /// - Returns: the request, or a message for an `{"ok": false, "error": …}` reply.
    package static func parse(_ line: Data) -> Result<ControlRequest, ControlRequestError> {
        // Every line is answered, a blank one too: a client that sent it is not left waiting.
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            return .failure(.init(Self.blankLineMessage))
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: line)
        } catch {
            return .failure(.init("malformed JSON: \(Self.describe(error, in: line))"))
        }
        guard case .object(let object) = value else {
            return .failure(.init("expected a JSON object with \"cmd\", found \(value.kind)"))
        }
        guard let cmdValue = object["cmd"] else { return .failure(.init("missing \"cmd\"")) }
        guard let cmd = cmdValue.stringValue else { return .failure(.init("\"cmd\" must be a string")) }
        switch cmd {
        case "go":
            // Two destinations cannot both be walked to, and which was meant cannot be told
            // (before, `query` won and `destination` was dropped unsaid); `pathfinder go`
            // refuses the same, before sending.
            if object["query"] != nil, object["destination"] != nil {
                return .failure(.init(#"go: expected "destination" or "query", not both"#))
            }
            if object["far"] != nil, object["destination"] != nil {
                return .failure(
                    .init(
                        #"go: "far" goes with "query", not with "destination" (a destination is walked to wherever it is)"#
                    ))
            }
            if let query = object["query"] {
                // Spaces around it are not the query (audit 11 A11-6: before, counted in its length).
                guard let text = query.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines),
                    !text.isEmpty
                else {
                    return .failure(.init("go: \"query\" must be a non-empty string"))
                }
                // As the door index searches it: a pasted page froze the daemon for seconds.
                guard text.count <= DoorIndex.longestQuery else {
                    return .failure(
                        .init(
                            "go: \"query\" is \(text.count) characters: at most \(DoorIndex.longestQuery) (a name or an address)"
                        ))
                }
                var far = false
                if let value = object["far"] {
                    guard case .bool(let flag) = value else {
                        return .failure(.init("go: \"far\" must be true or false"))
                    }
                    far = flag
                }
                return .success(.go(.query(text, far: far)))
            }
            guard let destination = object["destination"] else {
                return .failure(.init("go: needs \"destination\" (a Destination object) or \"query\""))
            }
            do {
                let decoded = try destination.decode(Destination.self)
                guard decoded.center.isValid else {
                    return .failure(.init("go: destination.center is not a valid coordinate"))
                }
                if let door = decoded.door, !door.coordinate.isValid {
                    return .failure(.init("go: destination.door is not a valid coordinate"))
                }
                return .success(.go(.destination(decoded)))
            } catch {
                return .failure(.init("go: destination: \(Self.describe(error, in: nil))"))
            }
        case "status": return .success(.status)
        case "stop": return .success(.stop)
        case "where": return .success(.whereAmI)
        case "repeat": return .success(.repeatLast)
        case "heard":
            guard let text = object["text"]?.stringValue else {
                return .failure(.init("heard: needs \"text\" (a string)"))
            }
            return .success(.heard(text))
        case "subscribe": return .success(.subscribe)
        default:
            return .failure(
                .init("unknown command \"\(cmd)\" (known: \(commands.joined(separator: ", ")))"))
        }
    }

    /// The shared JSON wording without a line number (a request is one line); `data` is the
    /// request when the error came from parsing it, so bytes that are not UTF-8 are named.
    private static func describe(_ error: any Error, in data: Data?) -> String {
        if let data, let fault = JSONDiagnostics.encodingFault(in: data) {
            return JSONDiagnostics.describe(line: nil, field: nil, reason: fault.reason)
        }
        guard let error = error as? DecodingError else { return "not valid JSON" }
        let fault = JSONDiagnostics.fault(error, in: data ?? Data())
        return JSONDiagnostics.describe(line: nil, field: fault.field, reason: fault.reason)
    }
}

/// Why a request was refused, sent back as `{"ok": false, "error": message}`.
package struct ControlRequestError: Error, Equatable, Sendable {
    package let message: String
    package init(_ message: String) { self.message = message }
}
