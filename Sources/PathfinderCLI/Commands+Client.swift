import Arrival
import Daemon
import EntranceIndex
import Foundation

extension Commands {
    static let go = Command(
        name: "go",
        summary: "tells the running daemon where to walk",
        help: """
            Usage: pathfinder go (--destination FILE | QUERY… [--far]) [--socket PATH]

            Sends {"cmd": "go", …} to the running daemon: a Destination JSON file
            ({"name", "center": {"lat", "lon"}, "door"?}), or a place name the daemon
            looks up near the walker: its door indexes first (a building name or address,
            "Siltavuorenpenger 10"), then its gazetteer ("Rautatieasema", "HEL"). A place more
            than 50 km from the walker is refused unless --far; before the walker's first
            fix, so is a name found as well in places more than 50 km apart, each named.
            Prints the reply: the destination, what matched and up to 3 alternatives; its
            note (a city's centre, not a building; a shorter form of the address; no position
            yet) also on stderr.
            \(socketHelp)
            """
    ) { arguments, console in
        var arguments = arguments
        let socket = try clientSocket(&arguments, console: console)
        let file = try arguments.option("--destination")
        let far = try arguments.flag("--far")
        let words = arguments.positionals()
        try arguments.finish()
        var request: [String: JSONValue] = ["cmd": .string("go")]
        let query = words.joined(separator: " ")
        switch (file, words.isEmpty) {
        case (nil, true):
            throw CLIError.usage(
                "pathfinder go: expected --destination FILE or a QUERY (a place name or address)")
        case (_?, false):
            throw CLIError.usage("pathfinder go: expected --destination FILE or a QUERY, not both")
        case (let file?, true):
            // A Destination file is walked to wherever it is: --far would change nothing.
            guard !far else {
                throw CLIError.usage("pathfinder go: --far goes with a QUERY, not with --destination FILE")
            }
            let destination: Destination
            do { destination = try JSONIO.read(Destination.self, from: file, what: "Destination") } catch let
                error
                as CLIError
            {
                throw error.naming("pathfinder go")
            }
            request["destination"] = .from(destination)
        case (nil, false):
            // Spaces around it are not the query (audit 11 A11-6: before, counted in its length).
            let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !query.isEmpty else {
                throw CLIError.usage("pathfinder go: the QUERY is blank; expected a place name or address")
            }
            // Longer than the daemon searches is bad input, as `doors search` says (before: sent,
            // and the daemon's refusal exited 1).
            guard query.count <= DoorIndex.longestQuery else {
                throw CLIError.usage(
                    "pathfinder go: the QUERY is \(query.count) characters: at most \(DoorIndex.longestQuery) (a name or an address)"
                )
            }
            request["query"] = .string(query)
            if far { request["far"] = .bool(true) }
        }
        // The walk this one replaced, and what the daemon notes of its choice (a city's centre,
        // a street's building, a shorter form of the address, no position yet), are said on
        // stderr too: the family reads them, not only an app.
        return try talk(
            JSONValue.object(request).text, socket: socket, command: "go", console: console,
            // The far refusal in the command line's words (before: the socket's, a JSON field).
            refusal: {
                $0.replacingOccurrences(of: DaemonCore.farHint, with: "use --far to walk there anyway")
            },
            notes: { reply in
                [
                    reply["replaced"]?.stringValue.map { "replaced the walk to \($0)" },
                    reply["note"]?.stringValue.map { "note: \($0)" },
                ].compactMap { $0 }
            })
    }

    /// `pathfinder heard TEXT`: an answer typed for the walker (no microphone, a helper at a
    /// distance, a test), as the socket's `heard` request.
    static let heardClient = Command(
        name: "heard",
        summary: "tells the running daemon what the walker answered (typed)",
        help: """
            Usage: pathfinder heard TEXT… [--socket PATH]

            Sends {"cmd": "heard", "text": TEXT} to the running daemon, as if the walker had
            said it (source "socket", the ArrivalWords rules: "여기 아니야", "여기가 입구야", …):
            for a daemon without a microphone ("mic": false), or someone answering for the
            walker. Prints the reply: "meaning" (notHere, thisIsIt or null) and "heeded"
            (whether the walk acted on it: false with no walk, outside the last stretch, and
            for the same answer again within 5 s of acting on it). Not acted on: its "reason"
            also on stderr, exit 1. Words that are neither answer (only spaces may differ:
            "this is it", "여기가, 입구야") are refused before sending, exit 2.
            \(socketHelp)
            """
    ) { arguments, console in
        var arguments = arguments
        let socket = try clientSocket(&arguments, console: console)
        let words = arguments.positionals()
        try arguments.finish()
        let text = words.joined(separator: " ")
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CLIError.usage("pathfinder heard: expected TEXT (e.g. 여기 아니야)")
        }
        // Words that are neither answer are bad input, said before anything is sent (the
        // daemon would not act on them): before, exit 0 and the family believed them taken.
        guard ArrivalWords.meaning(of: text) != nil else {
            throw CLIError.usage("pathfinder heard: \"\(text)\" is \(DaemonCore.notAnAnswer)")
        }
        let request = JSONValue.object(["cmd": "heard", "text": .string(text)])
        return try talk(request.text, socket: socket, command: "heard", console: console) { reply in
            // Understood but not acted on (no walk, outside the last stretch, said twice): a
            // run-time state, exit 1, the daemon's reason on stderr.
            guard reply["heeded"] == .bool(false) else { return nil }
            return "not acted on: \(reply["reason"]?.stringValue ?? "the daemon did not say why")"
        }
    }

    static let status = simpleClient(
        "status", summary: "asks the running daemon how the walk stands",
        detail: "Prints state, position, accuracy, destination, door and distance as JSON.")
    static let stop = simpleClient(
        "stop", summary: "ends the running daemon's walk", detail: "The daemon keeps running, idle.")

    /// `pathfinder where` with no coordinates: the daemon's reverse geocode of where the
    /// walker stands (the gazetteer's `where LAT LON` hands over here when given none).
    static let whereClient = simpleClient(
        "where", summary: "asks the running daemon where the walker is",
        detail: "Reverse geocodes the last fix; the daemon also speaks it.")

    static let socketHelp = """
        --socket PATH   the daemon's control socket (default: the config file's "socket",
                        else $XDG_RUNTIME_DIR/pathfinder.sock, else /tmp/pathfinder-UID.sock)
        Exit codes: 0 when the daemon says ok; 1 when it refuses (its reply still printed, the
        reason also on stderr) or is not running; 2 for bad usage (a socket path of 108 bytes
        or more, or one that names a file or folder that is no socket, among them).
        """

    private static func simpleClient(_ name: String, summary: String, detail: String) -> Command {
        Command(
            name: name, summary: summary,
            help: """
                Usage: pathfinder \(name) [--socket PATH]

                Sends {"cmd": "\(name)"} to the running daemon and prints its reply.
                \(detail)
                \(socketHelp)
                """
        ) { arguments, console in
            var arguments = arguments
            let socket = try clientSocket(&arguments, console: console)
            try arguments.finish()
            return try talk(
                JSONValue.object(["cmd": .string(name)]).text, socket: socket, command: name, console: console
            )
        }
    }

    /// `--socket`, else the default config file's `socket`, else the default path.
    /// A path that cannot be a socket address is bad usage, as the daemon says of it. Only the
    /// file's `socket` is read: a mistake elsewhere in it is the daemon's to refuse, and here
    /// a warning on stderr (before, any bad key stopped every client command).
    static func clientSocket(_ arguments: inout Arguments, console: Console) throws(CLIError) -> String {
        if let path = try arguments.option("--socket") {
            guard ControlClient.fits(path) else {
                throw .usage(
                    "\(arguments.command): --socket \(path): is \(path.utf8.count) bytes; a socket path must be shorter than 108"
                )
            }
            return path
        }
        let (socket, warning) = DaemonConfig.clientSocket()
        if let warning { console.error("\(arguments.command): warning: \(warning)") }
        guard ControlClient.fits(socket) else {
            // A long $XDG_RUNTIME_DIR: the daemon refuses the same path with exit 2.
            throw .usage(
                "\(arguments.command): the default socket path \(socket) is \(socket.utf8.count) bytes; a socket path must be shorter than 108 (give --socket PATH)"
            )
        }
        return socket
    }

    /// Sends one request, prints the reply; exit 0 for `"ok": true`, else 1 with the
    /// daemon's reason on stderr too (the JSON stays on stdout for scripts that read it).
    /// `failed`: for a reply that is `"ok": true`, why it still did not do what was asked
    /// (`heard` not acted on), nil when it did; said on stderr, exit 1. `refusal`: the daemon's
    /// reason in the command line's words (the JSON on stdout keeps the daemon's). `notes`: lines of such
    /// a reply to say on stderr as well, exit 0 (`go`'s `note`).
    static func talk(
        _ request: String, socket: String, command: String, console: Console,
        failed: ([String: JSONValue]) -> String? = { _ in nil },
        refusal: (String) -> String = { $0 },
        notes: ([String: JSONValue]) -> [String] = { _ in [] }
    ) throws(CLIError)
        -> Int32
    {
        let reply: String
        do {
            let client = try ControlClient(path: socket)
            client.setReadTimeout(seconds: 30)
            reply = try client.request(request)
        } catch {
            // A path that is no socket is bad input, said before anything is sent.
            switch error {
            case .notASocket, .notInAFolder: throw .usage("pathfinder \(command): \(error)")
            case .notRunning, .io: break
            }
            // Named like every other message of the command (before, "pathfinder: …").
            throw .runtime("pathfinder \(command): \(error)")
        }
        console.line(reply)
        let fields = (try? JSONDecoder().decode(JSONValue.self, from: Data(reply.utf8)))?.objectValue
        var reason: String
        if let fields, fields["ok"] == .bool(true) {
            guard let why = failed(fields) else {
                for note in notes(fields) { console.error("pathfinder \(command): \(oneLine(note))") }
                return 0
            }
            reason = why
        } else {
            reason = fields?["error"]?.stringValue ?? "the daemon refused: \(reply)"
        }
        // The daemon leads with the command ("go: no place called …"); said once.
        if reason.hasPrefix("\(command): ") { reason.removeFirst(command.count + 2) }
        console.error("pathfinder \(command): \(oneLine(refusal(reason)))")
        return 1
    }

    /// One line, whatever `text` quotes (a query with a newline in it).
    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
    }
}
