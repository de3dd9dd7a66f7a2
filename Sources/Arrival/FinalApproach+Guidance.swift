import Foundation
import Geo

extension FinalApproach {
    /// A fix: GPS state, entering the last stretch, arrival with hysteresis, callouts.
    mutating func moved(_ position: Position, now: Date) -> [Effect] {
        lastPosition = position
        lastFixTime = now
        if let course = position.course, let speed = position.speed, speed > settings.movingSpeed {
            // Out of a vehicle the walker faces anywhere: its course is not kept.
            lastCourse = speed <= settings.walkingSpeedMaximum ? (course, now) : nil
        }
        guard var walk, walk.endsAt == nil else { return [] }
        var effects: [Effect] = []

        if walk.noFixSaid {
            walk.noFixSaid = false
            // The first fix after "GPS를 기다리는 중이야." leads on with its own guidance: nothing
            // came "again".
            effects += [.log(.gps(.back))] + (walk.hadFix ? [.say(Prompt(Prompts.fixBack))] : [])
        }
        walk.hadFix = true
        if let accuracy = position.horizontalAccuracy, accuracy > settings.poorAccuracyMetres,
            walk.lastPoorAccuracyWarning.map({
                now.timeIntervalSince($0) >= settings.poorAccuracyRepeatSeconds
            })
                ?? true
        {
            walk.lastPoorAccuracyWarning = now
            effects += [.log(.gps(.poor(accuracy: accuracy))), .say(Prompt(Prompts.poorAccuracy(accuracy)))]
        }

        let (metres, toward) = goal(of: walk, from: position.coordinate)
        let direction = self.direction(from: position, to: toward, now: now)
        let toWalls = walk.leadsToWalls
        let distance = Guidance.distance(metres, horizontalAccuracy: position.horizontalAccuracy)
        let radius = settings.arrivalRadius(horizontalAccuracy: position.horizontalAccuracy)

        if !walk.inLastStretch {
            // Within the arrival radius is within the last stretch, however short it is set
            // (before, with 5…12 m the walker at the door never arrived and was not heard).
            if metres <= max(settings.lastStretchMetres, radius) {
                walk.inLastStretch = true
                walk.lastCallout = nil
                effects.append(
                    .say(
                        Prompt(Prompts.lastStretch(walk.destination.name, door: walk.door, toWalls: toWalls)))
                )
            } else {
                if walk.lastCallout.map({ now.timeIntervalSince($0.time) >= settings.farCalloutSeconds })
                    ?? true
                {
                    walk.lastCallout = Callout(time: now, metres: metres, hour: direction.hour)
                    let text = Prompts.far(walk.destination.name, distance, direction)
                    effects.append(.say(Prompt(text, isCallout: true)))
                }
                self.walk = walk
                return effects
            }
        }

        if walk.arrived {
            guard metres > radius * settings.arrivalLeaveFactor else {
                self.walk = walk
                return effects
            }
            walk.arrived = false  // walked away from the door: guide back to it
            walk.lastCallout = nil
        } else if metres <= radius {
            walk.arrived = true
            walk.arrivedAt = now
            self.walk = walk
            effects.append(.log(.arrived(walk.door, metres: (metres * 10).rounded() / 10, toWalls: toWalls)))
            let justAsked = walk.noDoorLeftSaidAt.map {
                now.timeIntervalSince($0) < settings.noDoorLeftQuietSeconds
            }
            if walk.door != nil || justAsked != true {
                effects.append(
                    .say(
                        Prompt(
                            walk.door.map(Prompts.arrived(at:))
                                ?? (toWalls ? Prompts.arrivedAtBuilding : Prompts.arrivedAtCenter))))
            }
            return effects + levelCheck(now: now)
        }

        if isCalloutDue(walk.lastCallout, metres: metres, hour: direction.hour, now: now) {
            walk.lastCallout = Callout(time: now, metres: metres, hour: direction.hour)
            let text = Prompts.guidance(
                to: walk.door != nil ? .door : toWalls ? .walls : .centre, distance, direction)
            effects.append(.say(Prompt(text, isCallout: true)))
        }
        self.walk = walk
        return effects
    }

    /// How far the walk's goal is from `coordinate`, and the point to head for: the door; with
    /// none, the building's walls (their nearest point; 0 m inside them) when OSM's answer gave
    /// its outline, else its centre. The arrival radius is measured to the walls so: a centre
    /// is 17–28 m from every point outside a 35 m block, further than the radius (before, audit
    /// 12 A12-3, the walker going round such a building never arrived).
    func goal(of walk: Walk, from coordinate: Coordinate) -> (metres: Double, toward: Coordinate) {
        guard walk.door == nil, let outline = walk.outline else {
            return (coordinate.distance(to: walk.target), walk.target)
        }
        // Inside, no wall is looked for (every wall's segments measured, once a second).
        if outline.contains(coordinate) { return (0, walk.target) }
        guard let wall = outline.nearestWallPoint(to: coordinate) else {
            return (coordinate.distance(to: walk.target), walk.target)
        }
        return (wall.metres, wall.point)
    }

    /// Progress of a step, a turn of ``Settings/calloutTurnHours``, or a quiet spell.
    func isCalloutDue(_ last: Callout?, metres: Double, hour: Int?, now: Date) -> Bool {
        guard let last else { return true }
        if abs(last.metres - metres) >= settings.calloutStep(metres: metres) { return true }
        if let hour, let previous = last.hour,
            Guidance.hoursApart(hour, previous) >= settings.calloutTurnHours
        {
            return true
        }
        return now.timeIntervalSince(last.time) >= settings.calloutQuietSeconds
    }

    /// Clock direction from the course when moving, else from the course walked up to
    /// ``Settings/headingMemorySeconds`` ago in this walk, else the compass word.
    func direction(from position: Position, to target: Coordinate, now: Date) -> Guidance.Direction {
        let bearing = position.coordinate.bearing(to: target)
        let moving = (position.speed ?? 0) > settings.movingSpeed ? position.course : nil
        let walked = lastCourse.flatMap {
            now.timeIntervalSince($0.at) <= settings.headingMemorySeconds ? $0.degrees : nil
        }
        guard let heading = moving ?? walked else {
            return .compass(Guidance.compassPoint(bearing: bearing))
        }
        return .clock(Guidance.clockHour(bearing: bearing, heading: heading))
    }

    /// At the door: compare its stored altitude with the walker's, when both are good enough.
    /// The level is decided once, at arrival (``decideLevel(now:)``); after "above" or "below",
    /// the level reached is said once, when ``LevelCheck/readingsToReach`` readings in a row
    /// compare "same" (before, nothing more was said, and the walker who went down was left
    /// hunting for a level they were on).
    mutating func levelCheck(now: Date) -> [Effect] {
        guard let walk, walk.levelSaid != .same, walk.door?.altitude != nil else { return [] }
        guard walk.levelDecided else { return decideLevel(now: now) }
        guard var walk = self.walk, walk.levelSaid != nil, let doorAltitude = walk.door?.altitude,
            let altitude = currentAltitude(now: now)
        else { return [] }
        let check = LevelCheck.compare(door: doorAltitude, walker: altitude)
        let log = check.map { [Effect.log(.level($0, door: doorAltitude, walker: altitude))] } ?? []
        switch walk.levelSaid {
        case nil:
            return []
        default:
            walk.levelSameReadings = check == .same ? walk.levelSameReadings + 1 : 0
            guard walk.levelSameReadings >= LevelCheck.readingsToReach else {
                self.walk = walk
                return []
            }
            walk.levelSaid = .same
            self.walk = walk
            return log + [.say(Prompt(Prompts.levelReached))]
        }
    }
}

extension FinalApproach {
    /// How long after arriving the level may be decided (seconds): the readings of the arrival
    /// or, when none was usable then, the first usable one within this. Later, the walker has
    /// begun answering, and a line said then comes out of nowhere (audit 6 R1-5: a check tried
    /// at every reading was said 20 s on, mid-answer).
    static let levelDecisionSeconds = 3.0

    /// The level at this door, decided once from the median of the walker's usable altitudes
    /// of the last ``altitudeFresh`` seconds (one noisy reading does not decide): told when
    /// ``LevelCheck/compare(door:walker:)`` answers, else nothing is said for this door.
    mutating func decideLevel(now: Date) -> [Effect] {
        guard var walk, !walk.levelDecided, let doorAltitude = walk.door?.altitude else { return [] }
        guard let arrivedAt = walk.arrivedAt, now.timeIntervalSince(arrivedAt) <= Self.levelDecisionSeconds
        else {
            walk.levelDecided = true
            self.walk = walk
            return []
        }
        let usable =
            recentAltitudes
            .filter {
                now.timeIntervalSince($0.time) <= altitudeFresh
                    && (0...LevelCheck.usableAccuracyMetres).contains($0.altitude.accuracy)
            }
            .map(\.altitude)
            .sorted { $0.metres < $1.metres }
        guard !usable.isEmpty else { return [] }
        // The median; of two middle ones, the one nearer the door (the less sure claim).
        let middle =
            usable.count % 2 == 1
            ? usable[usable.count / 2]
            : [usable[usable.count / 2 - 1], usable[usable.count / 2]].min {
                abs($0.metres - doorAltitude.metres) < abs($1.metres - doorAltitude.metres)
            }!
        walk.levelDecided = true
        walk.levelSameReadings = 0
        let check = LevelCheck.compare(door: doorAltitude, walker: middle)
        walk.levelSaid = check
        self.walk = walk
        guard let check else { return [] }
        return [.log(.level(check, door: doorAltitude, walker: middle)), .say(Prompt(Prompts.level(check)))]
    }
}

extension Guidance.Direction {
    /// The clock hour, when this is one.
    var hour: Int? {
        if case .clock(let hour) = self { return hour }
        return nil
    }
}
