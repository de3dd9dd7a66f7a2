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

    private func warning(file: EntranceMemory, session: EntranceMemory) -> String {
        MemoryKeeper.replaced(
            MemoryStore.Merge(cause: .replaced, file: file, warning: nil), path: "/m/memory.json",
            session: session)
    }

    /// The daemon's own earlier backup restored over the file: it holds the building in an
    /// older version (before the walker's answers), so it brings nothing. Before: "new from it:
    /// Siltavuorenpenger 10 (changed)", as if the backup had added something.
    @Test func anOlderCopyOfTheDaemonsOwnMemoryBringsNothing() {
        var backup = EntranceMemory()
        backup.confirm(
            Door(coordinate: doorA, label: "A"), name: "Siltavuorenpenger 10", center: center, now: start)
        var session = backup
        session.reject(doorA, name: "Siltavuorenpenger 10", center: center, now: start + 60)
        session.confirm(
            Door(coordinate: doorD, label: "D"), name: "Siltavuorenpenger 10", center: center, now: start + 90
        )
        let text = warning(file: backup, session: session)
        #expect(
            text.contains("its 1 buildings merged with this daemon's (new from it: nothing) and saved"),
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
}
