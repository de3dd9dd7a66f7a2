public import Foundation
public import Geo

/// The device's own record of buildings and their doors: what the walker confirmed and
/// rejected, and OpenStreetMap's doors as last read.
///
/// A value: the app changes a copy and writes it as JSON (`Storage.MemoryFile`); it
/// never leaves the device. Buildings are kept most recently *changed* first; reading or
/// planning never reorders them.
public struct EntranceMemory: Sendable, Hashable, Codable {
    /// Two building centres this close (metres) are one building, whatever their names:
    /// a station's name differs between a pin, a search and a spoken query.
    public static let sameVenueMetres = 120.0
    /// A door this close (metres) to one already known is that door: GPS on a street is good
    /// to about 5–10 m, and two real doors of one building are rarely closer.
    public static let sameDoorMetres = 15.0
    /// OSM's doors are trusted for 30 days; after that OSM is asked again, and only a fresh
    /// answer counts as known.
    public static let candidatesLifetime: TimeInterval = 30 * 24 * 60 * 60
    /// An OSM read dated up to this long (seconds) after now still counts as read now: two
    /// clocks (a phone's hand-off, a Pi before NTP) disagree by hours. Beyond it, the clock that
    /// dated the read was wrong (set ahead, a Pi without a real-time clock), and its age unknown.
    public static let futureReadSlack: TimeInterval = 24 * 60 * 60
    /// At most this many buildings. Over it, the least recently changed building that holds
    /// nothing from the walker (no confirmed door, no rejection) goes first: OSM's doors can
    /// be read again, what the walker taught cannot. Walker-taught buildings go (least
    /// recently changed first) only when every building is walker-taught.
    public static let limit = 200
    /// Barometric altitude is stored with a door only when this accurate (metres), so a
    /// later level check compares like with like.
    public static let storedAltitudeAccuracyMetres = 6.0
    /// The file format's version.
    public static let currentVersion = 1
    /// ``Building/basedOn`` of a building a person's edit made: the file it edited held none
    /// (1970-01-01T00:00:00Z, before every version of any building).
    public static let editedFromNothing = Date(timeIntervalSince1970: 0)

    /// One building the walker has been led to.
    public struct Building: Sendable, Hashable, Codable {
        public var name: String
        public var center: Coordinate
        /// When this record last changed.
        public var changed: Date
        /// The door the walker confirmed (source `walker`).
        public var confirmed: Door?
        /// Doors the walker said are not the way in.
        public var rejected: [Coordinate]
        /// OpenStreetMap's ranked doors as last read.
        public var osm: OSMRead?
        /// The version a person's edits of the file began from (`memory confirm|reject|osm`): this
        /// building's `changed` as the first of them read it (a later edit keeps the mark),
        /// ``EntranceMemory/editedFromNothing`` when the file held no such building; nil when no
        /// such edit made this version (a file from before the field, the daemon's own change:
        /// every change clears it, and a person's edit marks it after). A merge that takes the
        /// file's building, or keeps the daemon's unchanged one, keeps its mark (audit 13
        /// A13-2: the lineage of the copy's edits, so its next edit is the file's change). The
        /// merge of a file moved in reads it (``EntranceMemory/merging(_:base:)``): an edit begun
        /// from a version older than the daemon's began before the daemon's newer answers.
        public var basedOn: Date?

        public init(
            name: String, center: Coordinate, changed: Date, confirmed: Door? = nil,
            rejected: [Coordinate] = [],
            osm: OSMRead? = nil, basedOn: Date? = nil
        ) {
            self.name = name
            self.center = center
            self.changed = changed
            self.confirmed = confirmed
            self.rejected = rejected
            self.osm = osm
            self.basedOn = basedOn
        }

        /// OSM's doors if read within ``EntranceMemory/candidatesLifetime`` before `now`. A read
        /// dated more than ``EntranceMemory/futureReadSlack`` after `now` is not fresh: OSM is
        /// asked again (before, its negative age counted as fresh until that date + 30 days).
        public func freshOSMDoors(now: Date) -> [Door]? {
            guard let osm else { return nil }
            let age = now.timeIntervalSince(osm.read)
            guard age <= EntranceMemory.candidatesLifetime, age >= -EntranceMemory.futureReadSlack else {
                return nil
            }
            return osm.doors
        }

        enum CodingKeys: String, CodingKey { case name, center, changed, confirmed, rejected, osm, basedOn }

        /// Reads one building; `rejected` may be absent (none), and the centre must be a
        /// real coordinate, since every rule measures from it.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            center = try c.decode(Coordinate.self, forKey: .center)
            try c.requireValid(center, forKey: .center)
            changed = try c.decode(Date.self, forKey: .changed)
            confirmed = try c.decodeIfPresent(Door.self, forKey: .confirmed)
            rejected = try c.decodeIfPresent([Coordinate].self, forKey: .rejected) ?? []
            osm = try c.decodeIfPresent(OSMRead.self, forKey: .osm)
            basedOn = try c.decodeIfPresent(Date.self, forKey: .basedOn)
        }

        /// Whether the walker taught this building anything (a confirmed door or a rejection):
        /// such a building is trimmed only when every building is walker-taught.
        public var isWalkerTaught: Bool { confirmed != nil || !rejected.isEmpty }

        /// Whether `point` lies within ``EntranceMemory/sameDoorMetres`` of a rejected door.
        public func isRejected(_ point: Coordinate) -> Bool {
            rejected.contains { $0.distance(to: point) <= EntranceMemory.sameDoorMetres }
        }

        /// `door` becomes the confirmed door, lifting the rejections near it. The same door
        /// confirmed before keeps its altitude unless `door` brings one that replaces it
        /// (``EntranceMemory/replaces(_:_:)``): before, "여기가 입구야" again on a day without a
        /// usable altitude (no barometer, not yet calibrated) erased it, and every later visit
        /// had no level check.
        /// - Parameter altitudeGiven: `door`'s altitude was given by a person (`memory confirm
        ///   --altitude`, `--no-altitude`): it replaces the kept one as it is, `nil` clearing it.
        mutating func confirm(_ door: Door, altitudeGiven: Bool = false) {
            var door = door
            if !altitudeGiven, let previous = confirmed,
                previous.coordinate.distance(to: door.coordinate) <= EntranceMemory.sameDoorMetres,
                let kept = previous.altitude,
                !(door.altitude.map { EntranceMemory.replaces($0, kept) } ?? false)
            {
                door.altitude = kept
            }
            confirmed = door
            rejected.removeAll { $0.distance(to: door.coordinate) <= EntranceMemory.sameDoorMetres }
        }
    }

    /// OSM's doors as read at a time.
    public struct OSMRead: Sendable, Hashable, Codable {
        public var read: Date
        public var doors: [Door]

        public init(read: Date, doors: [Door]) {
            self.read = read
            self.doors = doors
        }
    }

    public var version: Int
    /// Most recently changed first, at most ``limit``.
    public private(set) var buildings: [Building]

    /// An empty memory.
    public init() {
        version = Self.currentVersion
        buildings = []
    }

    /// A memory holding `buildings` as given (most recently changed first), trimmed to the limit.
    public init(buildings: [Building]) {
        version = Self.currentVersion
        self.buildings = Self.trimmed(buildings)
    }

    enum CodingKeys: String, CodingKey { case version, buildings }

    /// Reads a memory as written (most recently changed first), trimmed to ``limit`` so a
    /// hand-edited file cannot grow it. The version is read as given; the file layer decides
    /// which versions it understands.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        buildings = Self.trimmed(try c.decode([Building].self, forKey: .buildings))
    }

    /// `buildings` cut to ``limit``: the least recently changed building without anything
    /// from the walker goes first, a walker-taught one only when none is left. Chosen by
    /// `changed`, not by place (among equal times, the one further back), so a file listed in
    /// another order (hand-edited, merged) is trimmed by the same rule; the rest keep their
    /// order. Before, the back was taken for the least recently changed.
    static func trimmed(_ buildings: [Building]) -> [Building] {
        guard buildings.count > limit else { return buildings }
        let first = buildings.indices.sorted {
            let (a, b) = (buildings[$0], buildings[$1])
            if a.isWalkerTaught != b.isWalkerTaught { return !a.isWalkerTaught }
            if a.changed != b.changed { return a.changed < b.changed }
            return $0 > $1
        }
        let dropped = Set(first.prefix(buildings.count - limit))
        return buildings.indices.filter { !dropped.contains($0) }.map { buildings[$0] }
    }

    // MARK: Reading (never reorders)

    /// Index of the building whose centre is nearest `center` within ``sameVenueMetres``.
    func index(near center: Coordinate) -> Int? {
        var best: (index: Int, metres: Double)?
        for (i, b) in buildings.enumerated() {
            let d = b.center.distance(to: center)
            if d <= Self.sameVenueMetres, d < (best?.metres ?? .infinity) { best = (i, d) }
        }
        return best?.index
    }

    /// The building at `center` (within ``sameVenueMetres``), if remembered.
    public func building(near center: Coordinate) -> Building? {
        index(near: center).map { buildings[$0] }
    }

    /// Whether a new altitude measured at a door replaces the one kept for it: when it is at
    /// least as accurate and the two agree, their difference within
    /// ``LevelCheck/confidenceSigmas`` combined σ. Two that disagree say one of them is wrong,
    /// and nothing says which, so the kept one, which has stood, stays: the new one may be a
    /// stale calibration's (audit 6 R1-2: a QNH 15 hPa stale put 144.7 ±4.2 over 21 ±4.2, and
    /// every later visit heard "입구는 지금보다 위에 있어."). A person mends a wrong one with
    /// `memory confirm --altitude`.
    public static func replaces(_ new: BarometricAltitude, _ kept: BarometricAltitude) -> Bool {
        let margin =
            LevelCheck.confidenceSigmas
            * (new.accuracy * new.accuracy + kept.accuracy * kept.accuracy).squareRoot()
        return new.accuracy <= kept.accuracy && abs(new.metres - kept.metres) <= margin
    }

    // MARK: Changes (each moves the building to the front)

    /// "여기가 입구야": `door` becomes the building's confirmed door, source `walker`; its
    /// altitude is kept only when accurate to ``storedAltitudeAccuracyMetres`` and one a
    /// barometer gives (``BarometricAltitude/isPlausible``); every rejection within
    /// ``sameDoorMetres`` of it is lifted. The same door confirmed again (within
    /// ``sameDoorMetres``) keeps its altitude unless this one replaces it (``replaces(_:_:)``).
    /// - Parameter altitudeGiven: a person gave `door`'s altitude (`memory confirm --altitude`,
    ///   or none with `--no-altitude`): it replaces the kept one, `nil` clearing it (audit 6 R1-4:
    ///   a correction was silently not applied, and nothing could clear a wrong altitude).
    public mutating func confirm(
        _ door: Door, name: String, center: Coordinate, now: Date, altitudeGiven: Bool = false
    ) {
        var door = door
        door.source = .walker
        if let altitude = door.altitude,
            !(altitude.accuracy <= Self.storedAltitudeAccuracyMetres && altitude.isPlausible)
        {
            door.altitude = nil
        }
        change(name: name, center: center, now: now) { b in b.confirm(door, altitudeGiven: altitudeGiven) }
    }

    /// "여기 아니야": remembers `door` as not the way in, unless a rejection within
    /// ``sameDoorMetres`` is already there; a confirmed door that close stops being confirmed.
    public mutating func reject(_ door: Coordinate, name: String, center: Coordinate, now: Date) {
        change(name: name, center: center, now: now) { b in
            if !b.isRejected(door) { b.rejected.append(door) }
            if let confirmed = b.confirmed, confirmed.coordinate.distance(to: door) <= Self.sameDoorMetres {
                b.confirmed = nil
            }
        }
    }

    /// Records OpenStreetMap's ranked doors for the building as read at `now`.
    public mutating func recordOSM(_ doors: [Door], name: String, center: Coordinate, now: Date) {
        change(name: name, center: center, now: now) { b in
            b.osm = OSMRead(read: now, doors: doors)
        }
    }

    /// Records OSM's answer for the building at `center` as read at `now`, when it is to be
    /// remembered (``OSMAnswer/remembered``); an answer that there is no building changes
    /// nothing.
    /// - Returns: whether the memory changed.
    @discardableResult
    public mutating func recordOSM(_ answer: OSMAnswer, name: String, center: Coordinate, now: Date) -> Bool {
        guard let doors = answer.remembered else { return false }
        recordOSM(doors, name: name, center: center, now: now)
        return true
    }

    /// A person's edit of the file (`memory confirm|reject|osm`): `edit` applied, and the
    /// building at `center` marked with the version its lineage began from
    /// (``Building/basedOn``): the mark it had (an earlier edit's, this copy's or one merged
    /// into the file it was copied from: edits of one copy all go back to the version its first
    /// edit began from), else its `changed` before the edit, else ``editedFromNothing``.
    public mutating func edit(at center: Coordinate, _ edit: (inout EntranceMemory) -> Void) {
        let before = building(near: center)
        let basedOn = before?.basedOn ?? before?.changed ?? Self.editedFromNothing
        edit(&self)
        if let i = index(near: center) { buildings[i].basedOn = basedOn }
    }

    /// Finds or adds the building, applies `body`, stamps it, moves it to the front and trims.
    private mutating func change(
        name: String, center: Coordinate, now: Date, _ body: (inout Building) -> Void
    ) {
        var building: Building
        if let i = index(near: center) {
            building = buildings.remove(at: i)
        } else {
            building = Building(name: name, center: center, changed: now)
        }
        body(&building)
        // A new version, begun from the one it changed (a person's edit marks it after).
        building.basedOn = nil
        // Its most recent change: a replay of an older trace never moves it back in time.
        building.changed = max(building.changed, now)
        // In front of every building changed before it: the front, unless a replay of an
        // older trace changes it (before, that put an older change first and broke the file's
        // most-recently-changed order, which trimming relies on).
        let changed = building.changed
        buildings.insert(building, at: buildings.firstIndex { $0.changed <= changed } ?? buildings.count)
        buildings = Self.trimmed(buildings)
    }

    // MARK: Merging

    /// ``merging(_:base:)`` with nothing known of what the file held (it could not be read):
    /// every building of `session` is applied over the file's.
    public func merging(_ session: EntranceMemory) -> EntranceMemory {
        merging(session, base: EntranceMemory()).memory
    }

    /// This memory (as read from the file) with `session`'s changes since `base` applied over
    /// it: a three-way merge, building by building (one within ``sameVenueMetres`` of another
    /// is that building).
    ///
    /// - A building the file changed since `base` and `session` did not: the file's stands (a
    ///   family's correction moved in). Before (audit 10 A10-1), `session`'s whole building was
    ///   laid over it: its old door confirmed again, the family's rejection and door gone.
    /// - One `session` changed and the file did not (or holds in an older version, dated before
    ///   `base`'s: the daemon's own backup restored), or the file lacks: `session`'s.
    /// - One both changed: the file's, with `session`'s own changes since `base` applied over it
    ///   by the rules of ``reject(_:name:center:now:)`` and ``confirm(_:name:center:now:)`` (its
    ///   new rejections, then its confirmed door if it changed it), its OSM read when newer:
    ///   where the two clash, `session`'s, the walker's latest word, wins.
    /// - One a person's edit in the file began from a version older than `base`'s (its
    ///   ``Building/basedOn`` before `base`'s `changed`, and not `base`'s own `basedOn`: a copy
    ///   taken before the daemon's newer answers, edited after them; a `base` with the file's
    ///   mark is a version of the same lineage, which only the daemon's own change clears):
    ///   `session`'s stands, with what the file holds beyond it where that does not contradict it
    ///   (``keepingNewer(_:over:base:)``). Before (audit 11 A11-1), the edit, dated after `base`,
    ///   counted as only the file's change: the walker's newer door was replaced by the copy's.
    ///   A file without `basedOn` (older files, hand edits) is judged by the rules above.
    ///
    /// With an empty `base` (a file that could not be read when the program started), every
    /// building of `session` counts as changed: what the walker taught meanwhile joins what the
    /// file held, and neither is lost.
    /// - Returns: the merged memory, each building both changed with what `session` applied,
    ///   the names of the buildings the file held in an older version (not taken), and each
    ///   building edited in the file from an older version, with what of the file's was not taken.
    /// - Important: buildings are compared as they are, so `base` and `session` are to be given
    ///   as the file holds them (times to the second: `MemoryFile.asWritten`).
    public func merging(
        _ session: EntranceMemory, base: EntranceMemory
    ) -> (
        memory: EntranceMemory, bothChanged: [BothChanged], olderInFile: [String],
        editedFromOlder: [EditedFromOlder]
    ) {
        var merged = self
        var both: [BothChanged] = []
        var older: [String] = []
        var edited: [EditedFromOlder] = []
        for b in session.buildings.reversed() {  // oldest first, so the newest ends in front
            let old = base.building(near: b.center)
            let file = merged.building(near: b.center)
            if let file, let old, let basedOn = file.basedOn, basedOn != old.basedOn, basedOn < old.changed {
                edited.append(merged.keepingNewer(b, over: file, base: old))
            } else if let file, file != old, old.map({ file.changed >= $0.changed }) ?? true {
                // The file changed it since the base: it stands, and what session changed since
                // the base goes over it.
                guard b != old else { continue }
                both.append(merged.apply(b, since: old))
            } else if file != b {
                if let file, file != old { older.append(file.name) }
                merged.change(name: b.name, center: b.center, now: b.changed) { $0 = b }
                // Its mark as session holds it: none once the daemon changed it.
                if let i = merged.index(near: b.center) { merged.buildings[i].basedOn = b.basedOn }
            }
        }
        // A building taken from the file keeps its mark (audit 13 A13-2): the lineage of the
        // copy it came from, so the same copy edited again is that lineage's continuation (the
        // file's change). Before, every mark was cleared, and the copy's next edit, its mark
        // older than the version the copy's own first edit made, was "not taken".
        return (merged, both, older, edited)
    }

    /// A building a person edited in a copy of the file older than the daemon's version of it
    /// (``Building/basedOn`` before `base`'s `changed`): what the copy held beyond `base` may be
    /// the person's, or what the daemon changed since; nothing in the file says which. So the
    /// daemon's, `session`'s, stands, and what the file holds beyond it is added where it does
    /// not contradict it: its rejections, but none within ``sameDoorMetres`` of the daemon's
    /// confirmed door; its confirmed door only when the daemon has none and has not rejected it
    /// (within ``sameDoorMetres``); its OSM read when newer. Dated the later of the two when
    /// something of the file's was taken.
    public struct EditedFromOlder: Sendable, Hashable {
        public var name: String
        /// The version the file's edits of it go back to (their lineage;
        /// ``EntranceMemory/editedFromNothing``: a file without the building), and the daemon's,
        /// newer.
        public var basedOn: Date
        public var daemons: Date
        /// The daemon's confirmed door, kept (nil: it has none).
        public var kept: Door?
        /// The file's confirmed door, not taken: the daemon's door, or its rejection, stands.
        public var confirmedNotTaken: Door?
        /// The file's rejections not taken: within ``EntranceMemory/sameDoorMetres`` of the daemon's
        /// confirmed door.
        public var rejectedNotTaken: [Coordinate]
    }

    /// `b` (the daemon's) at its centre, with `file`'s rejections, confirmed door and OSM read
    /// where they do not contradict it (``EditedFromOlder``).
    private mutating func keepingNewer(_ b: Building, over file: Building, base: Building) -> EditedFromOlder
    {
        var x = b
        var done = EditedFromOlder(
            name: b.name, basedOn: file.basedOn ?? Self.editedFromNothing, daemons: base.changed,
            kept: b.confirmed,
            confirmedNotTaken: nil, rejectedNotTaken: [])
        func nearConfirmed(_ door: Coordinate) -> Bool {
            x.confirmed.map { $0.coordinate.distance(to: door) <= Self.sameDoorMetres } ?? false
        }
        for door in file.rejected where !x.isRejected(door) {
            if nearConfirmed(door) { done.rejectedNotTaken.append(door) } else { x.rejected.append(door) }
        }
        if let door = file.confirmed, !nearConfirmed(door.coordinate) {
            if x.confirmed == nil, !x.isRejected(door.coordinate) {
                x.confirmed = door
            } else {
                done.confirmedNotTaken = door
            }
        }
        if let osm = file.osm, osm.read > (x.osm?.read ?? .distantPast) { x.osm = osm }
        // Dated the file's edit only when something of it was taken.
        change(name: b.name, center: b.center, now: x == b ? b.changed : max(b.changed, file.changed)) {
            $0 = x
        }
        return done
    }

    /// A building both a file and the daemon changed since the daemon last read or wrote it: the
    /// file's version stands, with what the daemon changed applied over it.
    public struct BothChanged: Sendable, Hashable {
        public var name: String
        /// The door the daemon confirmed over the file's (nil: it left the file's confirmed door).
        public var confirmed: Door?
        /// The doors the daemon rejected since (over the file's).
        public var rejected: [Coordinate]
        /// Whether the daemon's OSM read was newer than the file's, and replaced it.
        public var osm: Bool
    }

    /// `b`'s changes since `old` (all of it when nil) applied to this memory's building at
    /// `b`'s centre, at `b`'s `changed` time.
    private mutating func apply(_ b: Building, since old: Building?) -> BothChanged {
        var done = BothChanged(name: b.name, confirmed: nil, rejected: [], osm: false)
        change(name: b.name, center: b.center, now: b.changed) { x in
            if let osm = b.osm, osm != old?.osm, osm.read >= (x.osm?.read ?? .distantPast) {
                x.osm = osm
                done.osm = true
            }
            for door in b.rejected where !(old?.rejected.contains(door) ?? false) {
                done.rejected.append(door)
                if !x.isRejected(door) { x.rejected.append(door) }
                if let confirmed = x.confirmed, confirmed.coordinate.distance(to: door) <= Self.sameDoorMetres
                {
                    x.confirmed = nil
                }
            }
            if let door = b.confirmed, door != old?.confirmed {
                done.confirmed = door
                x.confirm(door)
            }
        }
        return done
    }
}
