public import Foundation
public import Geo

/// The last stretch as a pure state machine: events in, effects out.
///
/// It leads one walk at a time to the plan's entrance (or the building's centre), speaks
/// guidance, hears the walker's two answers while the last stretch is active, and changes
/// the ``EntranceMemory`` it holds, emitting ``Effect/saveMemory(_:)`` after every change.
/// No I/O and no clock: the time comes with each event, so a recorded walk replays to the
/// same effects every time.
public struct FinalApproach: Sendable {
    /// One GPS position, as the approach needs it (not tied to any receiver's types).
    public struct Position: Sendable, Hashable {
        /// When the fix was taken.
        public var time: Date
        public var coordinate: Coordinate
        /// 1σ horizontal accuracy, metres, if the receiver says.
        public var horizontalAccuracy: Double?
        /// Speed over ground, m/s.
        public var speed: Double?
        /// Course over ground, degrees from true north.
        public var course: Double?

        public init(
            time: Date, coordinate: Coordinate, horizontalAccuracy: Double? = nil, speed: Double? = nil,
            course: Double? = nil
        ) {
            self.time = time
            self.coordinate = coordinate
            self.horizontalAccuracy = horizontalAccuracy
            self.speed = speed
            self.course = course
        }
    }

    /// What happens to the approach.
    public enum Event: Sendable, Hashable {
        /// Start a walk to a building (ends any walk in progress).
        case go(Destination)
        /// Start again a walk that was under way when the daemon stopped: as ``go(_:)`` (the plan
        /// made from the memory as it is now), saying that guidance resumes.
        case resume(Destination)
        /// End the walk.
        case stop
        /// A GPS fix.
        case position(Position)
        /// The receiver reported no fix.
        case noFix
        /// The barometer's absolute altitude, with its accuracy (kept ``BarometricAltitude/rounded``).
        case altitude(BarometricAltitude)
        /// An answer: spoken (the Listener's decision), typed or a button (see ``Heard``).
        case heard(Heard)
        /// OSM's ranked doors for the walk's destination, answering ``Effect/requestDoors(_:)``,
        /// with the building's outline when the door index has it: a walk with no door leads to
        /// the building's walls and arrives there (docs/ARCHITECTURE.md, ArrivalPlan).
        case doorsArrived([Door], outline: BuildingOutline? = nil)
        /// OSM's answer to ``Effect/requestDoors(_:)`` when it knows no building at the
        /// destination (none within 50 m of its centre: a city, a square): `entrances`, the
        /// ranked entrance nodes near the centre (often none), lead this walk only. Nothing is
        /// remembered: no building answered, and doors remembered at this centre would stand
        /// for every building within ``EntranceMemory/sameVenueMetres`` of it for 30 days.
        case noBuilding(entrances: [Door])
        /// Time passes (about once a second).
        case tick
        /// Say the last prompt again. Said again, the arrival question (or "다시 한 번 말해줘")
        /// opens the answer window again, until ``Settings/answerWindowSeconds`` after it is heard.
        case repeatLast
        /// The shell is done with a prompt an ``Effect/say(_:)`` gave it: played to its end, or let
        /// go unplayed (the device failed, the queue dropped it). The answer window runs from the
        /// end of the question that opened it, so the time the walker spends hearing it, and the
        /// prompts queued before it, is not taken from their answer. A shell reports every prompt:
        /// the daemon when its voice has played it, replay and demo at the end their model of the
        /// voice gives it (``Replayer``), a shell with no voice at once.
        case spoken(Prompt)
        /// The shell wrote the memory of the last ``Effect/saveMemory(_:)``.
        case memorySaved
        /// The shell could not write the memory (the reason, for the log). The change stays in
        /// ``memory``, so the next save carries it again.
        case memoryFailed(String)
        /// The memory file, unreadable until now or replaced by another program, was read and
        /// merged with this memory (``EntranceMemory/merging(_:base:)``): the memory the shell
        /// wrote, which becomes this memory (before, merged here again by the old rule, which
        /// laid this memory over a family's correction).
        case memoryFileRead(EntranceMemory)
    }

    /// Why a walk ended.
    public enum WalkEnd: String, Sendable, Hashable, Codable {
        /// "여기가 입구야": the door is remembered.
        case confirmed
        /// "여기 아니야": this walk ends, a walk to the next door starts.
        case rejected
        /// `stop`.
        case stopped
        /// A new `go` replaced it.
        case replaced
    }

    /// Why the plan was (re-)made.
    public enum PlanReason: String, Sendable, Hashable, Codable {
        /// `go`.
        case start
        /// OSM's doors arrived.
        case doorsArrived
        /// The walker rejected a door.
        case rejected
        /// The memory file another program changed (a family's correction moved in, `memory
        /// confirm|reject|osm` on it), merged, changed the building the walk leads to.
        case memoryMerged
    }

    /// Something said, and whether it is a guidance callout: an unspoken callout is replaced by
    /// a newer one instead of being queued stale (see ``PromptQueue``).
    public struct Prompt: Sendable, Hashable {
        public var text: String
        public var isCallout: Bool

        public init(_ text: String, isCallout: Bool = false) {
            self.text = text
            self.isCallout = isCallout
        }
    }

    /// A fact for the event log that no other effect carries.
    public enum Record: Sendable, Hashable {
        /// An answer received, with its meaning, confidence and source.
        case heard(Heard)
        /// The walker rejected this door.
        case rejected(Door)
        /// The walker confirmed this door (as stored).
        case confirmed(Door)
        /// Arrived at the door (or, when `nil`, the building: its walls when its outline is known,
        /// `toWalls`, else its centre), this far from it (metres).
        case arrived(Door?, metres: Double, toWalls: Bool = false)
        /// The level check's answer with the two altitudes compared.
        case level(LevelCheck, door: BarometricAltitude, walker: BarometricAltitude)
        /// GPS trouble or its end.
        case gps(GPSState)
        /// The memory was written; it holds this many buildings.
        case memorySaved(buildings: Int)
        /// The memory could not be written, and why.
        case memoryFailed(reason: String)
    }

    /// GPS conditions worth saying.
    public enum GPSState: Sendable, Hashable {
        /// No fix for ``Settings/noFixSeconds`` after one came in the walk.
        case lost
        /// No fix for ``Settings/noFixSeconds`` and none yet in the walk: GPS is awaited.
        case waiting
        /// A fix again after ``lost`` (or the first after ``waiting``).
        case back
        /// Horizontal accuracy worse than ``Settings/poorAccuracyMetres``, metres.
        case poor(accuracy: Double)
    }

    /// What the shell must do.
    public enum Effect: Sendable, Hashable {
        /// Speak.
        case say(Prompt)
        /// The plan was made or changed.
        case plan(ArrivalPlan, PlanReason)
        /// Ask OSM (the door index) for the destination's doors; answer with
        /// ``Event/doorsArrived(_:)``, or ``Event/noBuilding(entrances:)`` when OSM knows no
        /// building there.
        case requestDoors(Destination)
        /// Write the memory (it changed); answer with ``Event/memorySaved`` or
        /// ``Event/memoryFailed(_:)``.
        case saveMemory(EntranceMemory)
        /// The walk ended.
        case walkEnded(WalkEnd)
        /// Log a fact.
        case log(Record)
    }

    /// One walk in progress.
    struct Walk: Sendable, Hashable {
        var destination: Destination
        var plan: ArrivalPlan
        var started: Date
        var inLastStretch = false
        var arrived = false
        /// The level check's answer said at this door (the last: "same" once reached), nil
        /// before one; and how many readings in a row have since compared "same" after "above"
        /// or "below" (``LevelCheck/readingsToReach``).
        var levelSaid: LevelCheck?
        var levelSameReadings = 0
        /// Whether the level at this door was decided (told, or found inconclusive): it is
        /// decided once, at arrival, never again by a later reading (``decideLevel(now:)``).
        var levelDecided = false
        /// When the walker last arrived at the door.
        var arrivedAt: Date?
        /// Set by "여기가 입구야": the walk ends then, and hears nothing more.
        var endsAt: Date?
        var lastCallout: Callout?
        /// When "다른 입구는 모르겠어. 입구를 찾으면 …" was said: an arrival without a door within
        /// ``Settings/noDoorLeftQuietSeconds`` of it says nothing more (the sentence asked the
        /// same; audit 13 A13-4: before, both back to back at the wall of the door rejected).
        var noDoorLeftSaidAt: Date?
        var lastPoorAccuracyWarning: Date?
        var noFixSaid = false
        /// A fix came during this walk (or the walks before it, for the next door after "여기
        /// 아니야"): a silence after it is a signal lost, before it a signal awaited.
        var hadFix = false
        /// OSM's entrances near the centre when it knows no building there
        /// (``Event/noBuilding(entrances:)``): not in the memory, so kept here for every plan
        /// the walk re-makes.
        var entrancesWithoutBuilding: [Door]?
        /// OSM's doors of the building as this walk knows them (read for it, or remembered fresh
        /// when it started), kept for every plan the walk re-makes: the memory may not keep them
        /// (200 walker-taught buildings trim a building of OSM's doors alone at once), and they
        /// may pass 30 days during the walk.
        var osmDoors: [Door]?
        /// The doors rejected on this walk and the walks it led on to, dropped from every plan
        /// it re-makes, whether or not the memory kept the rejection.
        var rejected: [Coordinate] = []
        /// The doors rejected so (as they were planned: their labels, levels and notes), for a
        /// "여기가 입구야" said at one of them after all.
        var rejectedDoors: [Door] = []
        /// The building's outline, from OSM's answer (the door index's): with no door to lead
        /// to, the walk leads to the nearest point of its walls (``FinalApproach/goal(of:from:)``);
        /// set only when it has points.
        var outline: BuildingOutline?

        var door: Door? { plan.entrance }
        var target: Coordinate { plan.walkTo }
        /// With no door to lead to, the walk leads to the building's walls (its outline known),
        /// not to its centre.
        var leadsToWalls: Bool { door == nil && outline != nil }
    }

    /// The last guidance spoken: when, how far, and at which clock hour.
    struct Callout: Sendable, Hashable {
        var time: Date
        var metres: Double
        var hour: Int?
    }

    /// What is remembered; every change is also emitted as ``Effect/saveMemory(_:)``.
    public internal(set) var memory: EntranceMemory
    /// The numbers that shape the walk. Each rule reads them when it applies, so a change (the
    /// daemon's SIGHUP) holds from the next event on, for the walk under way too: a walk not yet
    /// in its last stretch enters it at the new `lastStretchMetres`; one in it stays (the last
    /// stretch is never left by distance).
    public var settings: Settings
    var walk: Walk?
    var lastPosition: Position?
    var lastFixTime: Date?
    /// The course over ground of the walk's last fix at walking speed, and when it came: the
    /// walker's heading for ``Settings/headingMemorySeconds`` after they stop.
    var lastCourse: (degrees: Double, at: Date)?
    /// The barometer's last altitude and when it came (see ``currentAltitude(now:)``).
    var altitude: BarometricAltitude?
    var altitudeTime: Date?
    /// Seconds between the barometer's last two altitudes (see ``altitudeFresh``).
    var altitudeInterval: Double?
    /// The barometer's altitudes of the last ``altitudeFresh`` seconds, oldest first, with
    /// their times: the level at arrival is their median.
    var recentAltitudes: [TimedAltitude] = []
    var lastSaid: String?
    /// "여기가 입구야" was stored and awaits its write: the promise ("기억할게…") is spoken only
    /// once the shell says the memory is written, and "입구를 기억하지 못했어." if it is not.
    var confirmationUnsaved = false
    /// When "입구를 기억하지 못했어." was said of the last confirmation, still unsaved: a later
    /// write of the memory (which carries it) within ``lateRememberedSeconds`` says
    /// "이제 입구를 기억했어." Cleared by that write, and by a new walk.
    var confirmationFailedAt: Date?
    /// A confirmation written this long (seconds) after its write failed is still said: the
    /// daemon's first retries (about 2, 6, 14 and 30 s after it) reach the walker at the door or
    /// near it; later they are elsewhere, on another errand, and the sentence would come from
    /// nowhere.
    public static let lateRememberedSeconds = 60.0
    /// The short dialogue around the two answers (see `FinalApproach+Answers.swift`).
    var dialogue = Dialogue()
    /// The destination whose doors OSM was asked for (``Effect/requestDoors(_:)``) and has not
    /// answered: its answer is remembered for it even once its walk has ended.
    var doorsAwaited: Destination?

    /// A stopped approach holding `memory`.
    public init(memory: EntranceMemory, settings: Settings = Settings()) {
        self.memory = memory
        self.settings = settings
    }

    /// An altitude is the walker's for this long after it came (seconds): the barometer gives
    /// one a second (the IIO sensor is read once a second, NMEA pressure comes with each 1 Hz
    /// epoch), so two missed readings still count; older, the walker may have walked 4 m or
    /// climbed half a storey (an escalator rises 0.5 m/s), and a barometer that stopped minutes
    /// ago would decide the level check and be stored with the door.
    public static let altitudeFreshSeconds = 3.0
    /// The longest an altitude counts, from a barometer slower than 1 Hz (seconds): pressure
    /// every 5–10 s (MDA from a weather instrument, XDR at 0.2 Hz) counts for 1.5 of its
    /// intervals, so one missed reading is not yet a stop; never longer than this, in which a
    /// walker climbs a storey.
    public static let slowestAltitudeFreshSeconds = 15.0

    /// How long an altitude counts (seconds): ``altitudeFreshSeconds``, or 1.5 times the
    /// barometer's interval when it is slower (at most ``slowestAltitudeFreshSeconds``). Before
    /// (audit 6 R1-10), 3 s whatever the source: pressure every 5 s was current only 3 s of
    /// every 5, and "여기가 입구야" then stored no altitude, unsaid.
    var altitudeFresh: Double {
        max(Self.altitudeFreshSeconds, min(1.5 * (altitudeInterval ?? 0), Self.slowestAltitudeFreshSeconds))
    }

    /// The walker's altitude at `now`: the barometer's last, unless older than
    /// ``altitudeFresh``.
    func currentAltitude(now: Date) -> BarometricAltitude? {
        guard let altitude, let altitudeTime, now.timeIntervalSince(altitudeTime) <= altitudeFresh
        else { return nil }
        return altitude
    }

    /// An altitude with the time it came.
    struct TimedAltitude: Sendable, Hashable {
        var altitude: BarometricAltitude
        var time: Date
    }

    /// Whether a walk is in progress.
    public var isWalking: Bool { walk != nil }
    /// Whether the walker has arrived at the door (or centre) the walk leads to, and is asked there.
    public var hasArrived: Bool { walk?.arrived == true }
    /// Whether the last stretch is active (the two answers are heard only then).
    public var isInLastStretch: Bool { walk?.inLastStretch == true && walk?.endsAt == nil }
    /// The current plan, if walking.
    public var plan: ArrivalPlan? { walk?.plan }
    /// How far the walk's goal is from `coordinate` (metres), measured as the walker is told:
    /// to the door; with none, to the building's walls (0 inside them) when OSM's answer gave
    /// its outline, else to its centre. Nil when idle. Before (audit 13 A13-3), `status` gave
    /// the distance to the centre while the walker heard "건물까지 백삼십 미터" (189 m).
    public func metresToGoal(from coordinate: Coordinate) -> Double? {
        walk.map { goal(of: $0, from: coordinate).metres }
    }
    /// Whether the walk, with no door to lead to, leads to the building's walls (its outline
    /// known), not to its centre.
    public var leadsToWalls: Bool { walk?.leadsToWalls ?? false }
    /// Where the walk under way leads: nil when idle, and once "여기가 입구야" was stored (the
    /// walk then only waits to end).
    public var leadingTo: Destination? { walk?.endsAt == nil ? walk?.destination : nil }
    /// Whether OSM's doors for `destination` are awaited: asked for by the last walk begun
    /// (which may have ended since) and not yet answered.
    public func awaitsDoors(for destination: Destination) -> Bool { doorsAwaited == destination }

    /// Handles one event at time `now`; returns the effects, in order.
    public mutating func handle(_ event: Event, now: Date) -> [Effect] {
        // A prompt's end is news of the dialogue only: the walk's timers keep to its own inputs
        // and ticks, so a replay's log does not move to the voice's model's times.
        if case .spoken(let prompt) = event {
            dialogue.heard(prompt.text, at: now)
            return []
        }
        var effects = timers(now: now)
        switch event {
        case .go(let destination):
            dialogue = Dialogue()
            confirmationFailedAt = nil
            effects += start(destination, now: now)
        case .resume(let destination):
            dialogue = Dialogue()
            confirmationFailedAt = nil
            effects += start(destination, now: now, resumed: true)
        case .stop:
            dialogue = Dialogue()
            if walk != nil {
                walk = nil
                effects += [.walkEnded(.stopped), .say(Prompt(Prompts.stopped))]
            }
        case .position(let position): effects += moved(position, now: now)
        case .noFix: break  // the timers above count the silence
        case .altitude(let altitude):
            // Rounded here, once, for every shell: before, the replay rounded its own and the
            // daemon logged and stored the altimeter's raw 20.88237995432807.
            self.altitude = altitude.rounded
            if let altitudeTime, now > altitudeTime { altitudeInterval = now.timeIntervalSince(altitudeTime) }
            altitudeTime = now
            recentAltitudes.append(TimedAltitude(altitude: altitude.rounded, time: now))
            let fresh = altitudeFresh
            recentAltitudes.removeAll { now.timeIntervalSince($0.time) > fresh }
            if walk?.arrived == true { effects += levelCheck(now: now) }
        case .heard(let answer): effects += heard(answer, now: now)
        case .doorsArrived(let doors, let outline):
            effects += doorsArrived(.building(doors: doors, outline: outline), now: now)
        case .noBuilding(let entrances): effects += doorsArrived(.noBuilding(entrances: entrances), now: now)
        case .tick: break
        case .repeatLast:
            // In the answer window, the question (audit 6 R1-5: a line said after it, the level,
            // was repeated instead, and the window not opened again); else the last line.
            let question =
                dialogue.pending == nil && isInLastStretch
                    && dialogue.isWindowOpen(at: now, seconds: settings.answerWindowSeconds)
                ? dialogue.question?.text : nil
            if let lastSaid = question ?? lastSaid {
                effects.append(.say(Prompt(lastSaid)))
                // Before, the window was not opened again: the walker who pressed repeat to hear
                // the question again had their middling answer after it ignored.
                dialogue.saidAgain(lastSaid)
            }
        case .spoken: break  // handled above
        case .memorySaved, .memoryFailed, .memoryFileRead: effects += memoryWritten(event, now: now)
        }
        for case .say(let prompt) in effects { lastSaid = prompt.text }
        // The arrival question opens the answer window, counted from when it has been heard.
        if let arrived = effects.firstIndex(where: { if case .log(.arrived) = $0 { true } else { false } }),
            case .say(let question)? = effects[arrived...].first(where: {
                if case .say = $0 { true } else { false }
            })
        {
            dialogue.ask(question.text)
        }
        return effects
    }

    /// The shell's answer to ``Effect/saveMemory(_:)`` (or its own retry of a failed one):
    /// logged, and the promise of a confirmation kept, or its failure said; a confirmation
    /// whose failure was said and that a later write stores, said too (within
    /// ``lateRememberedSeconds``).
    mutating func memoryWritten(_ event: Event, now: Date) -> [Effect] {
        let confirmation = confirmationUnsaved
        switch event {
        case .memorySaved:
            confirmationUnsaved = false
            // Not before the failure either: a `now` earlier than it is another clock's (before,
            // audit 9 A9-1, a negative interval passed, and the sentence came up to an hour late).
            let late =
                confirmationFailedAt.map {
                    (0...Self.lateRememberedSeconds).contains(now.timeIntervalSince($0))
                } ?? false
            confirmationFailedAt = nil
            let effects: [Effect] = [.log(.memorySaved(buildings: memory.buildings.count))]
            let said = confirmation ? Prompts.remembered : late ? Prompts.rememberedLater : nil
            return effects + (said.map { [.say(Prompt($0))] } ?? [])
        case .memoryFailed(let reason):
            // Before (audit 8 A8-3), forgotten here: the daemon's retry stored the door 2 s
            // later, and the walker, told it was not remembered, never heard otherwise.
            if confirmation { confirmationFailedAt = now }
            confirmationUnsaved = false
            let effects: [Effect] = [.log(.memoryFailed(reason: reason))]
            return effects + (confirmation ? [.say(Prompt(Prompts.notRemembered))] : [])
        case .memoryFileRead(let merged):
            // The shell's save merged the memory it was given, the one held now: no change can
            // come between a save and its outcome (the loop hands it over before the next input).
            let before = walk.flatMap { memory.building(near: $0.destination.center) }
            memory = merged
            return mergedMemory(changing: before, now: now)
        default:
            return []
        }
    }

    /// The walk's end after a confirmation, and the no-fix warning.
    mutating func timers(now: Date) -> [Effect] {
        guard var walk else { return [] }
        if let endsAt = walk.endsAt, now >= endsAt {
            self.walk = nil
            return [.walkEnded(.confirmed)]
        }
        var effects: [Effect] = []
        let since = max(lastFixTime ?? walk.started, walk.started)
        if !walk.noFixSaid, walk.endsAt == nil, now.timeIntervalSince(since) >= settings.noFixSeconds {
            walk.noFixSaid = true
            // No fix yet in the walk: none was lost (before, "GPS 신호가 끊겼어" was said of a
            // signal that never came, counted from the walk's start).
            effects =
                walk.hadFix
                ? [.log(.gps(.lost)), .say(Prompt(Prompts.noFix))]
                : [.log(.gps(.waiting)), .say(Prompt(Prompts.waitingForGPS))]
        }
        self.walk = walk
        return effects
    }
}
