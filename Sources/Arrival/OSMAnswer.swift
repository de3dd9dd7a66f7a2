public import Geo

/// OpenStreetMap's answer for the doors of the building at a centre: the door index's, or an
/// OSM file's read as one.
public enum OSMAnswer: Sendable, Hashable {
    /// The building at the centre (containing it, or the nearest within 50 m): its doors,
    /// ranked, and its outline when the door index gave it (a walk with no door arrives at
    /// its walls).
    case building(doors: [Door], outline: BuildingOutline? = nil)
    /// No building within 50 m of the centre (a square, a park, a city's point): the entrances
    /// near it, ranked, often none.
    case noBuilding(entrances: [Door])

    /// The doors to plan with, best first, whichever the answer.
    public var doors: [Door] {
        switch self {
        case .building(let doors, _), .noBuilding(let doors): doors
        }
    }

    /// The doors to remember as the building's OSM doors; nil when nothing is remembered.
    ///
    /// The answer that there is no building is no building's doors (docs/ARCHITECTURE.md,
    /// `candidatesLifetime`): its entrances lead that walk only, since doors remembered at this
    /// centre would stand for every building within ``EntranceMemory/sameVenueMetres`` of it
    /// for ``EntranceMemory/candidatesLifetime``, and the real building's never be asked for.
    public var remembered: [Door]? {
        switch self {
        case .building(let doors, _): doors
        case .noBuilding: nil
        }
    }

    /// The event that gives this answer to ``FinalApproach``, answering its
    /// ``FinalApproach/Effect/requestDoors(_:)``: the one mapping the daemon and a replay share.
    public var event: FinalApproach.Event {
        switch self {
        case .building(let doors, let outline): .doorsArrived(doors, outline: outline)
        case .noBuilding(let entrances): .noBuilding(entrances: entrances)
        }
    }
}
