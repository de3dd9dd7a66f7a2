public import OSM

/// Why the door index could not be built or opened.
public enum DoorIndexError: Error, CustomStringConvertible, Equatable {
    /// `.osm.pbf` needs `osmium`, which is not installed.
    case osmiumMissing
    /// `osmium` could not read the file (a truncated or corrupt `.osm.pbf`): its message.
    case osmiumFailed(path: String, message: String)
    /// The OSM file is not what it should be: the reader names file, line and element.
    case badInput(OSMError)
    /// The database file is missing or not a door index.
    case notAnIndex(path: String, reason: String)
    /// A door index in a directory of them not named `*.db`, which is not read; `suggested`,
    /// the name to give it.
    case notNamedDB(path: String, suggested: String)
    /// Writing or reading the database failed.
    case storage(path: String, message: String)
    /// The OSM input holds an element twice (overlapping extracts joined with `osmium cat`).
    case duplicateElement(path: String)
    /// A search query longer than ``DoorIndex/longestQuery`` characters: `characters`, its length.
    case queryTooLong(characters: Int)

    public var description: String {
        switch self {
        case .osmiumMissing:
            "osmium is needed to read .osm.pbf files and is not installed: apt-get install osmium-tool"
        case .osmiumFailed(let path, let message): "\(path): osmium could not read it: \(message)"
        case .badInput(let error): error.description
        case .notAnIndex(let path, let reason): "\(path): not a door index: \(reason)"
        case .notNamedDB(let path, let suggested):
            "\(path): a door index, but only the *.db files of a directory are read: rename it \(suggested) to use it"
        case .storage(let path, let message): "\(path): \(message)"
        case .duplicateElement(let path):
            "\(path): an OSM element appears twice (overlapping extracts joined with `osmium cat`?); join them with `osmium merge`, which keeps one of each"
        case .queryTooLong(let characters):
            "the query is \(characters) characters: at most \(DoorIndex.longestQuery) (a name or an address) are searched"
        }
    }

    /// Whether several versions of an element, read as copies, could be its cause: one
    /// stored twice, or a deleted node's version without a place (out of range). Only these:
    /// the whole file is read to know (before: any bad input, "nothing to index" too, made a
    /// country's extract be read again, minutes, unsaid).
    var mayBeVersions: Bool {
        switch self {
        case .duplicateElement: true
        case .badInput(let error): error.isLocationOutOfRange
        default: false
        }
    }

    /// Whether the fault lies in the input (exit 2) rather than at run time (exit 1).
    public var isBadInput: Bool {
        switch self {
        case .osmiumFailed, .badInput, .notAnIndex, .notNamedDB, .duplicateElement, .queryTooLong: true
        case .osmiumMissing, .storage: false
        }
    }
}
