public import Arrival
public import Foundation
public import Geo
public import Positioning

/// Replays a recorded walk through ``FinalApproach`` on a virtual clock taken from the trace.
///
/// Deterministic: the same inputs give the same effects, in the same order, at the same
/// trace times — no wall clock, no threads. The prompts are said by a model of the daemon's
/// voice (``ReplayVoice``), whose ends the walk hears, so the answer window opens as it would
/// on the device. The walk starts (`go`) at the trace's first time;
/// `.tick` comes every whole second of trace time until a few seconds after the last input,
/// so a walk ending a little after its answer is seen to end.
public struct Replayer: Sendable {
    /// An answer heard at `t` seconds from the trace's start.
    public struct Heard: Sendable, Hashable {
        public var t: Double
        public var answer: Arrival.Heard
        public init(t: Double, answer: Arrival.Heard) {
            self.t = t
            self.answer = answer
        }
        /// Typed text (a `--heard` line): the ``ArrivalWords`` rules decide, as for the socket.
        public init(t: Double, text: String) {
            self.init(t: t, answer: .typed(text, source: .socket))
        }
    }

    /// A fix of the walk, for the map.
    public struct TrackPoint: Sendable, Hashable {
        /// Seconds from the trace's start.
        public var t: Double
        public var coordinate: Coordinate
        public var horizontalAccuracy: Double?
    }

    /// What a replay produced.
    public struct Result: Sendable {
        /// The event log, one line per effect, in order.
        public var lines: [FinalApproach.LogLine]
        /// The memory as the walk left it.
        public var memory: EntranceMemory
        /// Every fix, in order.
        public var track: [TrackPoint]
        /// The trace's first time (t = 0).
        public var start: Date
        /// The NMEA parser's counts (lines, fixes, bad checksums…).
        public var stats: NMEAParser.Stats
    }

    /// OSM's answer arrives this long (seconds of trace time) after it was asked: late, as a
    /// door index lookup on a slow card or a network answer would be.
    public static let doorsDelaySeconds = 3.0
    /// Ticks go on this long (seconds) after the last input, for the walk's delayed end.
    public static let tailSeconds = 5.0
    /// How long after the trace's last fix an answer may come (the walker stands at the door
    /// and the receiver stopped logging); later is a mistake in the input, not a walk.
    public static let answersAfterTraceSeconds = 600.0
    /// The longest trace replayed: a day and a night of walking. Longer is two walks joined or
    /// a wrong date (a GPS week rollover puts one fix 19.6 years off), and a tick a second up
    /// to it took gigabytes (before: 2 GB allocated, then a crash).
    public static let maximumSpanSeconds = 48 * 3600.0

    public var destination: Destination
    public var memory: EntranceMemory
    /// OSM's answer for the destination, or `nil` when none is given (the request then goes
    /// unanswered): the building's ranked doors, or, when OSM knows no building there, the
    /// entrances near its centre, delivered as ``FinalApproach/Event/noBuilding(entrances:)``
    /// and not remembered, as the daemon does (``OSMAnswer/event``).
    public var doors: OSMAnswer?
    public var heard: [Heard]
    /// How long (seconds of trace time) OSM's doors take to arrive after they are asked for;
    /// ``doorsDelaySeconds`` unless set (`replay --doors-after`).
    public var doorsDelay = Replayer.doorsDelaySeconds
    public var settings: FinalApproach.Settings
    /// Writes the memory at each ``FinalApproach/Effect/saveMemory(_:)``, at once, as the
    /// daemon does; a thrown error (its description is the reason) becomes `memoryFailed`
    /// and the failure prompt. The default keeps the memory in the result only.
    public var saveMemory: @Sendable (EntranceMemory) throws -> Void

    public init(
        destination: Destination, memory: EntranceMemory = EntranceMemory(), doors: OSMAnswer? = nil,
        heard: [Heard] = [], settings: FinalApproach.Settings = .init(),
        saveMemory: @escaping @Sendable (EntranceMemory) throws -> Void = { _ in }
    ) {
        self.destination = destination
        self.memory = memory
        self.doors = doors
        self.heard = heard
        self.settings = settings
        self.saveMemory = saveMemory
    }

    /// An input at a trace time; `rank` orders inputs of the same time (trace first).
    private struct Item {
        var time: Date
        var rank: Int
        var sequence: Int
        var event: FinalApproach.Event
    }

    /// Replays the NMEA bytes of a walk.
    /// - Throws: ``ReplayError/noFixes`` when the trace holds no dated fix.
    public func run(nmea: some Collection<UInt8>) throws(ReplayError) -> Result {
        let (events, stats) = NMEAParser.parse(nmea)
        guard let start = events.lazy.compactMap({ if case .fix(let f) = $0 { f.time } else { nil } }).first
        else {
            throw .noFixes(stats)
        }
        var items: [Item] = []
        var track: [TrackPoint] = []
        // Positioning's altimeter, fed in trace order with the trace's own times: pure, so the
        // replay stays deterministic.
        var altimeter = BarometricAltimeter()
        var last = start
        var fixes = 0
        // The time of the next fix at or after each event (nil after the last fix): a no-fix
        // epoch or pressure reading may move the clock only up to it.
        var nextFix: [Date?] = Array(repeating: nil, count: events.count)
        var following: Date?
        for (i, event) in events.enumerated().reversed() {
            if case .fix(let f) = event { following = f.time }
            nextFix[i] = following
        }
        for (i, event) in events.enumerated() {
            switch event {
            case .fix(let fix):
                fixes += 1
                // Fed in trace order, so time runs forward (before, a trace whose time went
                // back was sorted into another walk, with negative times, exit 0).
                if fix.time < last {
                    throw .timeWentBack(fix: fixes, at: fix.time, after: last)
                }
                if fix.time.timeIntervalSince(start) > Self.maximumSpanSeconds {
                    throw .tooLong(fix: fixes, at: fix.time, start: start)
                }
                last = fix.time
                altimeter.observe(fix)
                track.append(
                    TrackPoint(
                        t: fix.time.timeIntervalSince(start), coordinate: fix.coordinate,
                        horizontalAccuracy: fix.horizontalAccuracy))
                let position = FinalApproach.Position(
                    time: fix.time, coordinate: fix.coordinate, horizontalAccuracy: fix.horizontalAccuracy,
                    speed: fix.speed, course: fix.course)
                items.append(Item(time: fix.time, rank: 0, sequence: items.count, event: .position(position)))
            case .noFix(let time):
                last = Self.onTheClock(time, last: last, start: start, nextFix: nextFix[i])
                items.append(Item(time: last, rank: 0, sequence: items.count, event: .noFix))
            case .pressure(var reading):
                last = Self.onTheClock(reading.time, last: last, start: start, nextFix: nextFix[i])
                reading.time = last
                altimeter.observe(reading)
                if let altitude = Self.altitude(altimeter, reading, at: last) {
                    items.append(Item(time: last, rank: 0, sequence: items.count, event: .altitude(altitude)))
                }
            }
        }
        let span = last.timeIntervalSince(start)
        for h in heard {
            guard h.t <= span + Self.answersAfterTraceSeconds else {
                throw .answerAfterWalk(t: h.t, span: span)
            }
            items.append(Item(time: start + h.t, rank: 1, sequence: items.count, event: .heard(h.answer)))
        }
        let end = items.map(\.time).max() ?? start
        let seconds = Int(end.timeIntervalSince(start).rounded(.up) + Self.tailSeconds)
        for k in 1...max(1, seconds) {
            items.append(Item(time: start + Double(k), rank: 3, sequence: items.count, event: .tick))
        }
        items.sort { ($0.time, $0.rank, $0.sequence) < ($1.time, $1.rank, $1.sequence) }

        var approach = FinalApproach(memory: memory, settings: settings)
        var lines: [FinalApproach.LogLine] = []
        var doorsDue: Date?
        var voice = ReplayVoice(origin: start)
        func apply(_ event: FinalApproach.Event, at time: Date) {
            for effect in approach.handle(event, now: time) {
                if case .say(let prompt) = effect {
                    for unsaid in voice.say(prompt, at: time) {
                        _ = approach.handle(.spoken(unsaid), now: time)
                    }
                }
                if case .saveMemory(let memory) = effect {
                    // Written at once, as the daemon does; the outcome's lines (memorySaved or
                    // memoryFailed, and the promise or its failure) stand where the write was.
                    do {
                        try saveMemory(memory)
                        apply(.memorySaved, at: time)
                    } catch {
                        apply(.memoryFailed("\(error)"), at: time)
                    }
                    continue
                }
                lines.append(.init(t: Self.seconds(time.timeIntervalSince(start)), effect: effect))
                if case .requestDoors = effect, doors != nil { doorsDue = time + doorsDelay }
            }
        }
        /// The voice's prompts that end by `item` (at its time too: heard before it) are heard at
        /// their ends, in turn with OSM's doors when they are due.
        func hearPromptsEnded(before item: Item) {
            while let ends = voice.playing?.ends, ends <= item.time, doorsDue.map({ ends <= $0 }) ?? true {
                guard let (ended, at) = voice.finish() else { return }
                for prompt in ended { apply(.spoken(prompt), at: at) }
            }
        }
        apply(.go(destination), at: start)
        for item in items {
            hearPromptsEnded(before: item)
            if let due = doorsDue, let doors, due <= item.time, item.rank > 2 || due < item.time {
                doorsDue = nil
                apply(doors.event, at: due)
                hearPromptsEnded(before: item)
            }
            apply(item.event, at: item.time)
        }
        return Result(lines: lines, memory: approach.memory, track: track, start: start, stats: stats)
    }

    /// Where a no-fix epoch or a pressure reading stands on the replay's clock: at its own
    /// time when that is plausible (not before the input before it, not after the next fix,
    /// at most ``maximumSpanSeconds`` after the first fix), else at the input before it. A receiver
    /// starting cold says "no fix" under whatever date its clock holds (the bundled cold-boot
    /// log: 2006 and 1999 after a 2019 fix), so such a date is no reason to refuse the trace;
    /// but it must not move the clock either (before: a 1980 one between two walks joined let
    /// the second, earlier one through with negative times, exit 0, and a 2030 one ticked
    /// every second up to 2030 until the allocation aborted). Only fixes are refused for their
    /// times, so nothing else may stand after the next one (before: a `V` epoch a few seconds
    /// to an hour ahead moved the clock, and the next fix was refused as time going back).
    /// - Parameter nextFix: the time of the next fix in the trace; `nil` after the last.
    static func onTheClock(_ time: Date?, last: Date, start: Date, nextFix: Date?) -> Date {
        guard let time, time >= last, time.timeIntervalSince(start) <= maximumSpanSeconds,
            nextFix.map({ time <= $0 }) ?? true
        else { return last }
        return time
    }

    /// The walker's altitude at a pressure reading, once the altimeter is calibrated (the core
    /// rounds it, as it does the daemon's: ``BarometricAltitude/rounded``).
    static func altitude(
        _ altimeter: BarometricAltimeter, _ reading: PressureReading, at time: Date
    ) -> BarometricAltitude? {
        guard let a = altimeter.altitude(for: reading.hPa, at: reading.time ?? time) else { return nil }
        return BarometricAltitude(metres: a.metres, accuracy: a.accuracy)
    }

    /// Seconds rounded to the millisecond, so binary fractions never reach the log.
    static func seconds(_ t: Double) -> Double { (t * 1000).rounded() / 1000 }
}

/// Why a replay could not run.
public enum ReplayError: Error, Sendable, CustomStringConvertible {
    /// The trace has no dated fix to start the clock from.
    case noFixes(NMEAParser.Stats)
    /// An answer at `t` seconds, more than ``Replayer/answersAfterTraceSeconds`` after the
    /// trace's `span`.
    case answerAfterWalk(t: Double, span: Double)
    /// The `fix`th fix is earlier than the fix or epoch before it.
    case timeWentBack(fix: Int, at: Date, after: Date)
    /// The `fix`th fix is more than ``Replayer/maximumSpanSeconds`` after the first.
    case tooLong(fix: Int, at: Date, start: Date)

    public var description: String {
        switch self {
        case .noFixes(let s) where s.fixes == 0 && s.undated == 0 && s.notGNSS > 0:
            // Before: "no dated fix", pointing at a date the trace has.
            "no fix in the trace: \(NMEAParser.Stats.notGNSSReason): \(s.notGNSS) epochs (\(s.lines) lines, \(s.sentences) valid sentences, \(s.badChecksum) bad checksums)"
        case .noFixes(let s):
            "no dated fix in the trace (\(s.lines) lines, \(s.sentences) valid sentences, \(s.badChecksum) bad checksums)"
        case .answerAfterWalk(let t, let span):
            "an answer at \(t) s is after the walk: the NMEA trace spans \(Int(span.rounded(.up))) s, and answers may come up to \(Int(Replayer.answersAfterTraceSeconds)) s after its end"
        case .timeWentBack(let fix, let at, let after):
            "time goes back at fix \(fix): \(Self.time(at)) comes after \(Self.time(after)) (\(Self.span(after.timeIntervalSince(at))) earlier); a trace runs forward: two walks joined, or a wrong date?"
        case .tooLong(let fix, let at, let start):
            "fix \(fix) at \(Self.time(at)) is \(Self.span(at.timeIntervalSince(start))) after the first fix (\(Self.time(start))); a replay spans at most \(Int(Replayer.maximumSpanSeconds / 3600)) h: two walks joined, or a wrong date?"
        }
    }

    /// A fix's time as the trace's receiver would log it: ISO 8601, UTC.
    private static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    /// A duration in the largest unit that fits: "3500 s", "2 h", "20 days".
    private static func span(_ seconds: Double) -> String {
        if seconds < 10_000 { return "\(Int(seconds.rounded())) s" }
        if seconds < 3 * 86_400 { return "\(Int((seconds / 3600).rounded())) h" }
        return "\(Int((seconds / 86_400).rounded())) days"
    }
}
