import Foundation
import Geo

/// The short dialogue where acoustics run out: when the walker is asked, what is waiting to be
/// confirmed, and what was last acted on.
///
/// The answer window is open from the moment a question is said (the arrival question, "다시 한
/// 번 말해줘", the request to say it again) until ``FinalApproach/Settings/answerWindowSeconds``
/// after the walker has heard it to its end (``FinalApproach/Event/spoken(_:)``). Before, it ran
/// from when the question was queued: at a `go` near the door, the start, the last stretch and
/// the question took 22.3 s to say, and the 20 s window had closed before the question ended.
struct Dialogue: Sendable {
    /// The question that opened the answer window, and when the walker finished hearing it
    /// (`nil` while it waits or plays: the window is open then).
    var question: (text: String, heard: Date?)?
    /// A middling answer waiting for its repeat, and when "다시 한 번 말해줘" was heard (`nil`
    /// while it waits or plays).
    var pending: (meaning: ArrivalWords, heard: Date?)?
    /// The last answer acted on, and when.
    var acted: (meaning: ArrivalWords, at: Date)?

    /// `text` asks for an answer: the window is open until a while after it is heard.
    mutating func ask(_ text: String) {
        question = (text, nil)
    }

    /// The walker heard `text` to its end: the window's time, and the repeat's, run from now.
    /// The last end of the same words counts (a repeat of the question heard after the first).
    mutating func heard(_ text: String, at now: Date) {
        if question?.text == text { question?.heard = now }
        if text == Prompts.sayAgain, pending != nil { pending?.heard = now }
    }

    /// `text` is said again (`repeat`): if it is the question, the window opens again until a
    /// while after it is heard, as does the wait for the repeat after "다시 한 번 말해줘".
    mutating func saidAgain(_ text: String) {
        if question?.text == text { question?.heard = nil }
        if text == Prompts.sayAgain, pending != nil { pending?.heard = nil }
    }

    /// Whether a middling answer at `now` is in the answer window.
    func isWindowOpen(at now: Date, seconds: Double) -> Bool {
        guard let question else { return false }
        return question.heard.map { now.timeIntervalSince($0) <= seconds } ?? true
    }
}

extension FinalApproach {
    /// An answer: logged always, acted on only while the last stretch is active. Its meaning
    /// is the one it carries (the Listener's, for speech), never derived again from the text.
    ///
    /// A sure answer acts at once. A middling one (`sure == false`) inside the answer window
    /// (``Dialogue``) gets "다시 한 번 말해줘" and acts only if the next answer, within
    /// ``Settings/repeatSeconds`` of the walker hearing that, means the same; outside the window
    /// it is logged and ignored.
    /// The same meaning within ``Settings/sameAnswerSeconds`` of acting on it is the same
    /// answer said twice (buttons excepted: a press is always meant).
    mutating func heard(_ answer: Heard, now: Date) -> [Effect] {
        let effects: [Effect] = [.log(.heard(answer))]
        guard isInLastStretch, let meaning = answer.meaning else { return effects }
        if answer.source != .button, let acted = dialogue.acted, acted.meaning == meaning,
            now.timeIntervalSince(acted.at) <= settings.sameAnswerSeconds
        {
            return effects
        }
        if let pending = dialogue.pending {
            dialogue.pending = nil
            if pending.meaning == meaning,
                pending.heard.map({ now.timeIntervalSince($0) <= settings.repeatSeconds }) ?? true
            {
                return effects + act(meaning, now: now)
            }
        }
        if answer.sure { return effects + act(meaning, now: now) }
        guard dialogue.isWindowOpen(at: now, seconds: settings.answerWindowSeconds) else { return effects }
        dialogue.pending = (meaning, nil)
        dialogue.ask(Prompts.sayAgain)
        return effects + [.say(Prompt(Prompts.sayAgain))]
    }

    /// Acts on an answer and remembers it, so its repeat is not taken for a new one.
    private mutating func act(_ meaning: ArrivalWords, now: Date) -> [Effect] {
        dialogue.question = nil
        switch meaning {
        case .notHere:
            dialogue.acted = (meaning, now)
            return notHere(now: now)
        case .thisIsIt:
            let effects = thisIsIt(now: now)
            if walk?.endsAt != nil {
                dialogue.acted = (meaning, now)
            } else {
                // Nothing stored ("지금 위치를 몰라서 … 다시 말해줘"): the answer it asks for is a new
                // one, in a window of its own (before, its repeat within 5 s was dropped unsaid).
                dialogue.ask(Prompts.cannotRemember)
            }
            return effects
        }
    }

    /// "여기 아니야": reject for good; next door as a new walk, or the centre when none is left.
    mutating func notHere(now: Date) -> [Effect] {
        guard var walk else { return [] }
        let destination = walk.destination
        var effects: [Effect] = []
        if let door = walk.door {
            memory.reject(door.coordinate, name: destination.name, center: destination.center, now: now)
            walk.rejected.append(door.coordinate)
            walk.rejectedDoors.append(door)
            effects += [.log(.rejected(door)), .saveMemory(memory)]
        }
        // From the doors this walk knows, not the memory alone: before, OSM's doors read for
        // the walk were lost when the memory trimmed their building at once, and the walker at
        // a wrong door heard "다른 입구는 모르겠어" with the next door known.
        let plan = ArrivalPlan.make(
            destination: destination, memory: memory,
            osmDoors: walk.entrancesWithoutBuilding ?? walk.osmDoors,
            rejected: walk.rejected, now: now)
        if let next = plan.entrance {
            var nextWalk = Walk(destination: destination, plan: plan, started: now)
            nextWalk.entrancesWithoutBuilding = walk.entrancesWithoutBuilding
            nextWalk.osmDoors = walk.osmDoors
            nextWalk.rejected = walk.rejected
            nextWalk.rejectedDoors = walk.rejectedDoors
            nextWalk.outline = walk.outline
            nextWalk.inLastStretch = true
            // GPS trouble already said is not said again for the next door (before, each
            // "여기 아니야" started the minute of the accuracy warning and the 20 s of no fix anew).
            nextWalk.lastPoorAccuracyWarning = walk.lastPoorAccuracyWarning
            nextWalk.noFixSaid = walk.noFixSaid
            nextWalk.hadFix = walk.hadFix
            self.walk = nextWalk
            return effects + [
                .walkEnded(.rejected), .plan(plan, .rejected), .say(Prompt(Prompts.nextDoor(next))),
            ]
        }
        if walk.door != nil {
            effects.append(.plan(plan, .rejected))
        }
        walk.plan = plan
        walk.arrived = false
        walk.levelSaid = nil
        walk.levelDecided = false
        walk.lastCallout = nil
        walk.noDoorLeftSaidAt = now
        self.walk = walk
        return effects + [.say(Prompt(Prompts.noDoorLeft))] + askedForOutline()
    }

    /// "여기가 입구야": where the walker stands becomes the door, with the level, note and label
    /// of the door walked to (``Walk/describing(_:)``) and the altitude when accurate and current;
    /// the walk ends a little later.
    mutating func thisIsIt(now: Date) -> [Effect] {
        guard var walk else { return [] }
        guard let position = lastPosition,
            let fixTime = lastFixTime, now.timeIntervalSince(fixTime) < settings.noFixSeconds
        else { return [.say(Prompt(Prompts.cannotRemember))] }
        let destination = walk.destination
        let walkedTo = walk.describing(position.coordinate)
        let door = Door(
            coordinate: position.coordinate, source: .walker, level: walkedTo?.level, note: walkedTo?.note,
            label: walkedTo?.label,
            altitude: currentAltitude(now: now).flatMap {
                $0.accuracy <= EntranceMemory.storedAltitudeAccuracyMetres ? $0 : nil
            })
        memory.confirm(door, name: destination.name, center: destination.center, now: now)
        walk.endsAt = now.addingTimeInterval(settings.endDelaySeconds)
        self.walk = walk
        confirmationUnsaved = true  // the promise waits for the write (memoryWritten)
        return [
            .log(.confirmed(memory.building(near: destination.center)?.confirmed ?? door)),
            .saveMemory(memory),
        ]
    }
}

extension FinalApproach.Walk {
    /// The door whose level, note and label a door confirmed at `here` takes: the door walked
    /// to — unless the walker stands at another door this walk knows (planned, or rejected on
    /// it), within ``EntranceMemory/sameDoorMetres`` and nearer than the door walked to. Before,
    /// always the door walked to: "여기 아니야" at A, then "여기가 입구야" still at A stored A's
    /// spot as D, the door the rejection had turned the walk to, 47 m away.
    func describing(_ here: Coordinate) -> Door? {
        let walkedTo = door
        let known = (plan.doors + rejectedDoors).filter {
            $0.coordinate.distance(to: here) <= EntranceMemory.sameDoorMetres
        }
        guard
            let nearest = known.min(by: {
                $0.coordinate.distance(to: here) < $1.coordinate.distance(to: here)
            })
        else { return walkedTo }
        guard let walkedTo else { return nearest }
        return nearest.coordinate.distance(to: here) < walkedTo.coordinate.distance(to: here)
            ? nearest : walkedTo
    }
}
