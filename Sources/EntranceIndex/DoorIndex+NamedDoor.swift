public import Arrival
public import Geo
import OSM

extension DoorIndex {
    /// The door of `building` that `query` names, as an `osm` Door: a usable entrance whose
    /// `name`, `ref` or address ("후문", "B", "Fabianinkatu 33") is the query, or a run of its
    /// words with every other word one of the building's own name or address ("서울특별시청
    /// 후문", "서울특별시청 B"); of several, the longest text, then the first in OSM's ranked order. Nil when the query is
    /// the building's own name or address (it names the building, not a door), or names none.
    /// `go QUERY` puts it on the destination as its named door: the walk leads there first
    /// (before: found by the door's name, then led to the main door).
    public func namedDoor(_ query: String, of building: Building) throws -> Door? {
        let words = Self.words(query)
        guard !words.isEmpty else { return nil }
        let own = [building.name, Self.address(building.address)].compactMap { $0 }.map(Self.words)
        guard !own.contains(where: { $0.sorted() == words.sorted() }) else { return nil }
        let ownWords = Set(own.joined())
        let usable = try entrances(of: building).filter { OSMDoors.isUsable($0.tags) }
        let ranked = OSMDoors.ranked(usable, around: building.centroid)
        var best: (words: Int, rank: Int, node: OSMNode)?
        for node in usable {
            let rank = ranked.firstIndex { $0.coordinate == node.coordinate } ?? ranked.count
            for text in Self.doorTexts(node.tags).map(Self.words) where !text.isEmpty {
                guard Self.names(text, in: words, rest: ownWords) else { continue }
                if let b = best, (-b.words, b.rank) <= (-text.count, rank) { continue }
                best = (text.count, rank, node)
            }
        }
        return best.map { OSMDoors.door(from: $0.node) }
    }

    /// What a door is called in OSM: its `name`, `ref` and address with a house number
    /// (``SearchText/addresses(_:)``, folded): what the import adds to its building's names, and
    /// what a query names it by. A street alone is not the door's address: a subway entrance
    /// tagged `addr:street=Kaivokatu` would otherwise be "Kaivokatu" exactly, before every
    /// building on it.
    static func doorTexts(_ tags: [String: String]) -> [String] {
        [tags["name"], tags["ref"]].compactMap { $0 }
            + (tags["addr:housenumber"] == nil ? [] : SearchText.addresses(tags))
    }

    /// Whether `text` is a run of `words` and every other word is in `rest`.
    private static func names(_ text: [String], in words: [String], rest: Set<String>) -> Bool {
        guard text.count <= words.count else { return false }
        for start in 0...(words.count - text.count) where Array(words[start..<start + text.count]) == text {
            let others = words[..<start] + words[(start + text.count)...]
            if others.allSatisfy(rest.contains) { return true }
        }
        return false
    }

    /// `text` folded as the search folds it, in words.
    private static func words(_ text: String) -> [String] {
        SearchText.normalize(text).split(separator: " ").map(String.init)
    }
}

extension DoorIndexes {
    /// ``DoorIndex/namedDoor(_:of:)`` of the building `osm` names, in the index holding it
    /// (``building(osm:near:)``); nil when none does.
    public func namedDoor(_ query: String, ofBuilding osm: String, near point: Coordinate) throws -> Door? {
        guard let (index, building) = try building(osm: osm, near: point) else { return nil }
        return try index.namedDoor(query, of: building)
    }
}
