import Arrival
import Daemon
import Foundation
import Geo
import Testing

@Suite struct ControlRequestTests {
    private func parse(_ text: String) -> Result<ControlRequest, ControlRequestError> {
        ControlRequest.parse(Data(text.utf8))
    }

    @Test func everyCommandOfTheContractParses() throws {
        #expect(try parse(#"{"cmd": "status"}"#).get() == .status)
        #expect(try parse(#"{"cmd": "stop"}"#).get() == .stop)
        #expect(try parse(#"{"cmd": "where"}"#).get() == .whereAmI)
        #expect(try parse(#"{"cmd": "repeat"}"#).get() == .repeatLast)
        #expect(try parse(#"{"cmd": "subscribe"}"#).get() == .subscribe)
        #expect(try parse(#"{"cmd": "heard", "text": "여기 아니야"}"#).get() == .heard("여기 아니야"))
        #expect(try parse(#"{"cmd": "go", "query": "HEL"}"#).get() == .go(.query("HEL")))
        #expect(
            try parse(#"{"cmd": "go", "query": "Paris", "far": true}"#).get()
                == .go(.query("Paris", far: true)))
        let destination = Destination(
            name: "Rautatieasema", center: Coordinate(latitude: 60.1711, longitude: 24.9414),
            door: Door(coordinate: Coordinate(latitude: 60.1709, longitude: 24.942), label: "A"))
        #expect(
            try parse(
                #"{"cmd": "go", "destination": {"name": "Rautatieasema", "center": {"lat": 60.1711, "lon": 24.9414}, "door": {"lat": 60.1709, "lon": 24.942, "label": "A"}}}"#
            ).get() == .go(.destination(destination)))
    }

    @Test(arguments: [
        ("{nope", "malformed JSON"),
        ("[1]", "expected a JSON object"),
        (#"{"command": "status"}"#, "missing \"cmd\""),
        (#"{"cmd": 3}"#, "\"cmd\" must be a string"),
        (#"{"cmd": "fly"}"#, "unknown command \"fly\""),
        (#"{"cmd": "go"}"#, "go: needs \"destination\""),
        (#"{"cmd": "go", "query": "  "}"#, "go: \"query\" must be a non-empty string"),
        (#"{"cmd": "go", "query": "Paris", "far": "yes"}"#, "go: \"far\" must be true or false"),
        // A pasted page of numbers froze the daemon for seconds (20 KB: 4.5 s, 1.85 GB).
        (
            #"{"cmd": "go", "query": "\#(String(repeating: "1 ", count: 100))k"}"#,
            "go: \"query\" is 201 characters: at most 200 (a name or an address)"
        ),
        // Before, `query` won and the destination was dropped; `far` beside one meant nothing.
        (
            #"{"cmd": "go", "query": "HEL", "destination": {"name": "X", "center": {"lat": 60, "lon": 24}}}"#,
            #"go: expected "destination" or "query", not both"#
        ),
        (
            #"{"cmd": "go", "far": true, "destination": {"name": "X", "center": {"lat": 60, "lon": 24}}}"#,
            #"go: "far" goes with "query", not with "destination""#
        ),
        (#"{"cmd": "go", "destination": {"name": "X"}}"#, "go: destination: field center is missing"),
        (
            #"{"cmd": "go", "destination": {"name": "X", "center": {"lat": 95, "lon": 0}}}"#,
            "is outside −90…90"
        ),
        (#"{"cmd": "heard"}"#, "heard: needs \"text\""),
        // In an array too (a review found "field n: expected an object").
        (#"{"cmd": "heard", "text": "x", "n": [1, 2, 1e400]}"#, "1e400 is too large"),
        (#"{"cmd": "heard", "text": "x", "n": ["\ud800"]}"#, "surrogate"),
        // Every line is answered, a blank one too (before, no reply at all).
        ("", "empty request line"),
        (" \t\r", "empty request line"),
        // A number beyond a Double is named as one. Before: "field
        // destination.center.lat: expected an object".
        (
            #"{"cmd": "go", "destination": {"name": "X", "center": {"lat": 1e400, "lon": 24.94}}}"#,
            "field destination.center.lat: the number 1e400 is too large (at most ±1.7976931348623157e+308)"
        ),
        (#"{"cmd": "heard", "text": -1e-400}"#, "the number -1e-400 is too close to 0"),
        // A lone UTF-16 surrogate is no character. Before: "field text: expected an object".
        (#"{"cmd": "heard", "text": "\ud800 아니야"}"#, "surrogate"),
        // Before, accepted: a walk to a door at 0, 0 for a building in Helsinki, and a name
        // the walker would hear as nothing.
        (
            #"{"cmd": "go", "destination": {"name": "X", "center": {"lat": 60.17, "lon": 24.95}, "door": {"lat": 0, "lon": 0}}}"#,
            "field door: the door is 7026 km from the centre (at most 2000 m): a pin for another place?"
        ),
        // Before: "the door is 2 km from the centre (at most 2000 m)".
        (
            #"{"cmd": "go", "destination": {"name": "X", "center": {"lat": 60.17, "lon": 24.95}, "door": {"lat": 60.1881, "lon": 24.95}}}"#,
            "field door: the door is 2013 m from the centre (at most 2000 m)"
        ),
        (
            #"{"cmd": "go", "destination": {"name": " ", "center": {"lat": 60.17, "lon": 24.95}}}"#,
            "the name is empty"
        ),
    ])
    func badRequestsAreRefusedWithAReason(line: String, reason: String) {
        switch parse(line) {
        case .success(let request): Issue.record("\(line) parsed as \(request)")
        case .failure(let error): #expect(error.message.contains(reason), "\(error.message)")
        }
    }
}
