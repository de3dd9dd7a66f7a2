import Arrival
import Foundation
import Geo
import Testing

@testable import Daemon
@testable import Storage

/// The "changed on disk" warning: what a replaced file brought, found by the merge.
@Suite struct MemoryKeeperTests {
    private let center = Coordinate(latitude: 60.1753, longitude: 24.9517)
    private let doorA = Coordinate(latitude: 60.1754, longitude: 24.9519)
    private let doorD = Coordinate(latitude: 60.1751, longitude: 24.9512)
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// The warning for `file` moved in over the daemon's `base` (what it last wrote), at the save
    /// of `session`.
    private func warning(file: EntranceMemory, session: EntranceMemory, base: EntranceMemory? = nil) -> String
    {
        let merge = file.merging(
            MemoryFile.asWritten(session), base: MemoryFile.asWritten(base ?? session))
        return MemoryKeeper.replaced(
            MemoryStore.Merge(
                cause: .replaced, file: file, warning: nil, merged: merge.memory,
                bothChanged: merge.bothChanged, olderInFile: merge.olderInFile),
            path: "/m/memory.json", session: session)
    }

    /// Siltavuorenpenger 10 with door A confirmed at `start`.
    private var doorAConfirmed: EntranceMemory {
        var memory = EntranceMemory()
        memory.confirm(
            Door(coordinate: doorA, label: "A"), name: "Siltavuorenpenger 10", center: center, now: start)
        return memory
    }

    /// `memory` with Siltavuorenpenger 10's door D confirmed at `start` + 90 s.
    private func confirmingD(_ memory: EntranceMemory) -> EntranceMemory {
        var memory = memory
        memory.confirm(
            Door(coordinate: doorD, label: "D"), name: "Siltavuorenpenger 10", center: center, now: start + 90
        )
        return memory
    }

    /// The daemon's own earlier backup restored over the file: it holds the building in an
    /// older version (before the walker's answers), so it brings nothing. Before: "new from it:
    /// Siltavuorenpenger 10 (changed)", as if the backup had added something.
    @Test func anOlderCopyOfTheDaemonsOwnMemoryBringsNothing() {
        let backup = doorAConfirmed
        var session = backup
        session.reject(doorA, name: "Siltavuorenpenger 10", center: center, now: start + 60)
        session = confirmingD(session)
        let text = warning(file: backup, session: session)
        #expect(
            text.contains(
                "its 1 buildings merged with this daemon's (new from it: nothing) and saved; "
                    + "Siltavuorenpenger 10 older in the file than this daemon's: this daemon's kept"),
            "\(text)")

        // What the file does bring is still named, and only that.
        var other = backup
        let kamppi = Coordinate(latitude: 60.1690, longitude: 24.9320)
        other.confirm(
            Door(coordinate: Coordinate(latitude: 60.1692, longitude: 24.9321), label: "K"), name: "Kamppi",
            center: kamppi, now: start + 30)
        let more = warning(file: other, session: session)
        #expect(
            more.contains("(new from it: Kamppi (door confirmed at 60.1692,24.9321)) and saved"), "\(more)")
    }

    /// Audit 10 A10-1: a building both the family (in the file) and the daemon changed since the
    /// daemon last wrote it is named, with which side's door stands. Before, "merged" was said of
    /// a file whose change the save then wrote over.
    @Test func aBuildingChangedOnBothSidesIsSaidWithWhatWon() {
        let base = doorAConfirmed
        var file = base
        file.reject(doorA, name: "Siltavuorenpenger 10", center: center, now: start + 60)
        let text = warning(file: file, session: confirmingD(base), base: base)
        #expect(
            text.hasSuffix(
                "and saved; Siltavuorenpenger 10 changed both in the file and by this daemon: the file's kept, "
                    + "with its door confirmed at 60.1751,24.9512 over it"), "\(text)")
    }
}
