public import Foundation
public import Geo

/// Where to lead the walker: the doors of one building in the order to try them.
///
/// JSON: `{"walkTo": {"lat", "lon"}, "entrance": Door|null, "alternatives": [Door]}`.
public struct ArrivalPlan: Sendable, Hashable, Codable {
    /// The entrance, or the building's centre when no door is known.
    public var walkTo: Coordinate
    /// The first door to try.
    public var entrance: Door?
    /// The other doors, in order.
    public var alternatives: [Door]

    public init(walkTo: Coordinate, entrance: Door?, alternatives: [Door]) {
        self.walkTo = walkTo
        self.entrance = entrance
        self.alternatives = alternatives
    }

    /// Every door of the plan, first to last.
    public var doors: [Door] { (entrance.map { [$0] } ?? []) + alternatives }

    /// Makes the plan for `destination` from what is known.
    ///
    /// Candidates in rank order: the walker's confirmed door; then the door the destination
    /// names (the companion's, which stays on the destination so every re-made plan keeps it
    /// leading); then OSM's ranked doors — `osmDoors` when just read, else those remembered
    /// while fresh. Every door within 15 m of a rejection is dropped. Two doors within 15 m
    /// are one door, kept at the first one's position; the first inherits a note or level it
    /// lacked from the later one. Nothing left: walk to the building's centre.
    ///
    /// - Parameters:
    ///   - osmDoors: OSM's ranked doors just read, or `nil` to use the memory's if fresh.
    ///   - rejected: doors the walker rejected on the walk under way, dropped as the memory's
    ///     rejections are (the memory may not have kept them).
    ///   - now: the time, for the freshness of remembered OSM doors.
    public static func make(
        destination: Destination, memory: EntranceMemory, osmDoors: [Door]? = nil,
        rejected: [Coordinate] = [], now: Date
    ) -> ArrivalPlan {
        let building = memory.building(near: destination.center)
        var candidates: [Door] = []
        if let confirmed = building?.confirmed { candidates.append(confirmed) }
        if var named = destination.door {
            if named.source == nil { named.source = .companion }
            candidates.append(named)
        }
        candidates += osmDoors ?? building?.freshOSMDoors(now: now) ?? []

        func isRejected(_ door: Door) -> Bool {
            building?.isRejected(door.coordinate) == true
                || rejected.contains { $0.distance(to: door.coordinate) <= EntranceMemory.sameDoorMetres }
        }
        var doors: [Door] = []
        for door in candidates where !isRejected(door) {
            if let i = doors.firstIndex(where: {
                $0.coordinate.distance(to: door.coordinate) <= EntranceMemory.sameDoorMetres
            }) {
                if doors[i].note == nil { doors[i].note = door.note }
                if doors[i].level == nil { doors[i].level = door.level }
            } else {
                doors.append(door)
            }
        }
        return ArrivalPlan(
            walkTo: doors.first?.coordinate ?? destination.center,
            entrance: doors.first,
            alternatives: Array(doors.dropFirst()))
    }

    enum CodingKeys: String, CodingKey { case walkTo, entrance, alternatives }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(walkTo, forKey: .walkTo)
        try c.encode(entrance, forKey: .entrance)  // null when there is none, as the contract says
        try c.encode(alternatives, forKey: .alternatives)
    }
}
