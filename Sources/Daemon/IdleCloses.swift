/// The log of clients closed as idle, as busy refusals are told: the first at once (`client 5:
/// no request for 30 s; closed`), those within ``ControlServer/busyReportSeconds`` after a line
/// counted and told together once that time has passed (`closed 24 more idle clients (6, 7,
/// …) since the last such line: no request for 30 s`), or at the stop. Before, a line each:
/// 25 clients left silent made 25 lines in 0.1 s (audit 8 A8-6).
package struct IdleCloses {
    /// The clients closed since the last line, not yet told.
    private var clients: [ControlServer.ClientID] = []
    private var lastLine: ContinuousClock.Instant?
    /// At most this many clients are named in one line.
    static let named = 10

    package init() {}

    /// Counts `client` closed as idle; the line to log now, if any.
    package mutating func closed(
        _ client: ControlServer.ClientID, idleSeconds: Double, now: ContinuousClock.Instant = .now
    ) -> String? {
        if let lastLine, now - lastLine < .seconds(ControlServer.busyReportSeconds) {
            clients.append(client)
            return nil
        }
        lastLine = now
        return "client \(client): no request for \(Int(idleSeconds)) s; closed"
    }

    /// The line of the clients counted, once it is due (`all`: at the stop, whatever the time).
    package mutating func due(
        idleSeconds: Double, now: ContinuousClock.Instant = .now, all: Bool = false
    ) -> String? {
        guard !clients.isEmpty, let lastLine,
            all || now - lastLine >= .seconds(ControlServer.busyReportSeconds)
        else { return nil }
        defer {
            clients = []
            self.lastLine = now
        }
        let named =
            clients.prefix(Self.named).map(String.init).joined(separator: ", ")
            + (clients.count > Self.named ? ", …" : "")
        return
            "closed \(clients.count) more idle client\(clients.count == 1 ? "" : "s") (\(named)) since the last such line: no request for \(Int(idleSeconds)) s"
    }
}
