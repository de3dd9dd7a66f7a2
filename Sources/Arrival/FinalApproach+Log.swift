import Foundation

extension FinalApproach {
    /// One line of the replay event log: an effect at a time, seconds from the trace's start.
    ///
    /// Every effect maps to exactly one line (`say`, `plan`, `doorsRequested`, `walkEnded`,
    /// and the records `heard`, `rejected`, `confirmed`, `arrived`, `level`, `gps`,
    /// `memorySaved`, `memoryFailed`), so the log is the effects, nothing added or lost —
    /// except ``Effect/saveMemory(_:)``: a request to the shell, whose outcome is the line
    /// (``isLogged`` is false; the shells leave it out).
    public struct LogLine: Sendable, Hashable, Encodable {
        /// Seconds from the start of the trace (or wall clock, live).
        public var t: Double
        public var effect: Effect

        public init(t: Double, effect: Effect) {
            self.t = t
            self.effect = effect
        }

        /// Whether the effect belongs in the event log: every one but ``Effect/saveMemory(_:)``,
        /// whose outcome (`memorySaved` or `memoryFailed`) is logged once the shell wrote it.
        public static func isLogged(_ effect: Effect) -> Bool {
            if case .saveMemory = effect { false } else { true }
        }

        /// The `event` field of the line.
        public var event: String {
            switch effect {
            case .say: "say"
            case .plan: "plan"
            case .requestDoors: "doorsRequested"
            case .saveMemory: "saveMemory"
            case .walkEnded: "walkEnded"
            case .log(.heard): "heard"
            case .log(.rejected): "rejected"
            case .log(.confirmed): "confirmed"
            case .log(.arrived): "arrived"
            case .log(.level): "level"
            case .log(.gps): "gps"
            case .log(.memorySaved): "memorySaved"
            case .log(.memoryFailed): "memoryFailed"
            }
        }

        enum Key: String, CodingKey {
            case t, event, text, callout, plan, reason, name, buildings, door, metres, goal, meaning, level,
                walker,
                state, accuracy, confidence, source, sure
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(t, forKey: .t)
            try c.encode(event, forKey: .event)
            switch effect {
            case .say(let prompt):
                try c.encode(prompt.text, forKey: .text)
                if prompt.isCallout { try c.encode(true, forKey: .callout) }
            case .plan(let plan, let reason):
                try c.encode(plan, forKey: .plan)
                try c.encode(reason, forKey: .reason)
            case .requestDoors(let destination): try c.encode(destination.name, forKey: .name)
            case .saveMemory(let memory): try c.encode(memory.buildings.count, forKey: .buildings)
            case .log(.memorySaved(let buildings)): try c.encode(buildings, forKey: .buildings)
            case .log(.memoryFailed(let reason)): try c.encode(reason, forKey: .reason)
            case .walkEnded(let reason): try c.encode(reason, forKey: .reason)
            case .log(.heard(let answer)):
                try c.encode(answer.text, forKey: .text)
                // null when neither answer, as the contract shows
                try c.encode(answer.meaning, forKey: .meaning)
                if let confidence = answer.confidence {
                    // Three decimals: enough to compare with the operating point, stable in golden files.
                    try c.encode((confidence * 1000).rounded() / 1000, forKey: .confidence)
                }
                try c.encode(answer.source, forKey: .source)
                // Why a middling answer asked or was ignored shows in the log.
                if !answer.sure, answer.meaning != nil { try c.encode(false, forKey: .sure) }
            case .log(.rejected(let door)), .log(.confirmed(let door)): try c.encode(door, forKey: .door)
            case .log(.arrived(let door, let metres, let toWalls)):
                try c.encode(door, forKey: .door)
                try c.encode(metres, forKey: .metres)
                // Without a door, what was arrived at: the building's walls or its centre.
                if door == nil { try c.encode(toWalls ? "walls" : "centre", forKey: .goal) }
            case .log(.level(let check, let door, let walker)):
                try c.encode(check, forKey: .level)
                try c.encode(door, forKey: .door)
                try c.encode(walker, forKey: .walker)
            case .log(.gps(let state)):
                switch state {
                case .lost: try c.encode("lost", forKey: .state)
                case .waiting: try c.encode("waiting", forKey: .state)
                case .back: try c.encode("back", forKey: .state)
                case .poor(let accuracy):
                    try c.encode("poor", forKey: .state)
                    try c.encode((accuracy * 10).rounded() / 10, forKey: .accuracy)
                }
            }
        }
    }
}
