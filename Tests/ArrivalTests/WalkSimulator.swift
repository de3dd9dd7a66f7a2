import Arrival
import Foundation
import Geo

/// Walks a synthetic person through a FinalApproach: one fix and one tick a second, at a pace,
/// with seeded GPS noise; records every effect with its time.
struct WalkSimulator {
    var approach: FinalApproach
    var now: Date
    let start: Date
    /// Where the walker really is.
    var here: Coordinate
    var random: SeededRandom
    /// Walking speed, m/s.
    var pace = 1.3
    /// GPS noise, metres (1σ per axis).
    var noise = 3.0
    /// The horizontal accuracy the receiver reports, metres.
    var accuracy = 5.0
    /// Whether fixes are coming (false: GPS lost).
    var hasFix = true
    /// The barometer's altitude, sent every second before the fix; `nil`: none (no barometer,
    /// or it stopped).
    var barometer: BarometricAltitude?
    /// Every effect, with the time it came.
    var effects: [(time: Date, effect: FinalApproach.Effect)] = []

    init(from here: Coordinate, memory: EntranceMemory = EntranceMemory(), seed: UInt64 = 7) {
        approach = FinalApproach(memory: memory)
        start = Date(timeIntervalSince1970: 1_750_000_000)  // 2025-06-15, a fixed trace time
        now = start
        self.here = here
        random = SeededRandom(seed: seed)
    }

    /// When set, every memory write fails with this reason (a full disk, a read-only card).
    var saveFailure: String?
    /// How long each prompt takes to say (seconds), one after another as the daemon's voice
    /// says them; `nil`: each is said at once, its end reported as it is asked for.
    var speakingSeconds: (@Sendable (String) -> Double)?
    /// The prompts being said or waiting, each with when it ends.
    var speaking: [(prompt: FinalApproach.Prompt, ends: Date)] = []

    /// Sends `event`; each memory write is answered at once, as a shell does after writing, and
    /// each prompt's end is reported (``FinalApproach/Event/spoken(_:)``) when it comes.
    mutating func send(_ event: FinalApproach.Event) {
        hearPromptsEnded()
        let new = approach.handle(event, now: now)
        effects += new.map { (now, $0) }
        for effect in new {
            if case .say(let prompt) = effect {
                if let speakingSeconds {
                    let begins = max(now, speaking.last?.ends ?? now)
                    speaking.append((prompt, begins + speakingSeconds(prompt.text)))
                } else {
                    _ = approach.handle(.spoken(prompt), now: now)
                }
            }
            guard case .saveMemory = effect else { continue }
            send(saveFailure.map { .memoryFailed($0) } ?? .memorySaved)
        }
    }

    /// Reports the end of every prompt said by now, at its end.
    mutating func hearPromptsEnded() {
        while let first = speaking.first, first.ends <= now {
            speaking.removeFirst()
            _ = approach.handle(.spoken(first.prompt), now: first.ends)
        }
    }

    /// Walks straight to `target` (stopping there), one second per step.
    mutating func walk(to target: Coordinate, until stop: ((WalkSimulator) -> Bool)? = nil) {
        while here.distance(to: target) > 0.01 {
            let bearing = here.bearing(to: target)
            here = here.offset(metres: min(pace, here.distance(to: target)), bearing: bearing)
            second(course: bearing, speed: pace)
            if let stop, stop(self) { return }
        }
    }

    /// Stands still for `seconds`, fixes (if any) without speed.
    mutating func wait(_ seconds: Int) {
        for _ in 0..<seconds { second(course: nil, speed: 0) }
    }

    /// One second passes: the barometer's altitude if any, a fix (noisy) if there is one, else a
    /// no-fix report; then a tick.
    mutating func second(course: Double?, speed: Double) {
        now += 1
        if let barometer { send(.altitude(barometer)) }
        if hasFix {
            let north = random.gaussian() * noise
            let east = random.gaussian() * noise
            let measured = here.offset(metres: north, bearing: 0).offset(metres: east, bearing: 90)
            let heading = course.map { normalizedDegrees($0 + random.gaussian() * 5) }
            send(
                .position(
                    .init(
                        time: now, coordinate: measured, horizontalAccuracy: accuracy, speed: speed,
                        course: heading)))
        } else {
            send(.noFix)
        }
        send(.tick)
    }

    /// Everything said, in order.
    var said: [String] { effects.compactMap { if case .say(let p) = $0.effect { p.text } else { nil } } }
    /// Everything logged, in order.
    var records: [FinalApproach.Record] {
        effects.compactMap { if case .log(let r) = $0.effect { r } else { nil } }
    }
    var plans: [(ArrivalPlan, FinalApproach.PlanReason)] {
        effects.compactMap { if case .plan(let p, let r) = $0.effect { (p, r) } else { nil } }
    }
    var walkEnds: [FinalApproach.WalkEnd] {
        effects.compactMap { if case .walkEnded(let r) = $0.effect { r } else { nil } }
    }
    var saves: Int { effects.filter { if case .saveMemory = $0.effect { true } else { false } }.count }
    var arrivals: Int { records.filter { if case .arrived = $0 { true } else { false } }.count }

    /// The event log's lines as the replay writes them, sorted keys.
    var logBytes: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for (time, effect) in effects {
            data += try! encoder.encode(
                FinalApproach.LogLine(t: time.timeIntervalSince(start), effect: effect))
            data += Data("\n".utf8)
        }
        return data
    }
}

/// A building and its doors for the stories: a station-sized block in Helsinki.
enum Scene {
    static let center = Coordinate(latitude: 60.1712, longitude: 24.9413)
    /// OSM's main door, 60 m south of the centre.
    static let doorA = Door(
        coordinate: center.offset(metres: 60, bearing: 180), source: .osm, level: "0", label: "A")
    /// A second door, 60 m east, one level up with a note.
    static let doorB = Door(
        coordinate: center.offset(metres: 60, bearing: 90), source: .osm, level: "1", note: "2층 출발 홀",
        label: "B")
    static let destination = Destination(name: "Rautatieasema", center: center)
    /// 600 m south-west: outside the last stretch.
    static let startPoint = center.offset(metres: 600, bearing: 210)
}
