import Arrival
import Diagnostics
import Foundation
import Geo
package import OSM
import SQLite
import Storage
import SystemCalls

/// What one import stored.
public struct DoorImportSummary: Sendable, Hashable {
    /// `entrance=*` nodes stored.
    public var entrances: Int
    /// Building ways stored.
    public var buildingWays: Int
    /// Building relations stored.
    public var buildingRelations: Int
    /// Buildings whose outline has no node in the extract (stored without geometry).
    public var withoutOutline: Int
    /// Entrance nodes that lie on at least one building outline.
    public var entrancesOnOutlines: Int
    /// Named shops, offices and amenities inside a building (they find it in a search).
    public var placesInside = 0
}

/// Builds a door index from OpenStreetMap data: `.osm.pbf` (through `osmium`), OSM XML or
/// Overpass API JSON.
public enum DoorImporter {
    /// Files at least this large get progress lines (bytes).
    public static let progressThreshold = 8 << 20
    /// Why an input with no entrance and no located building is refused (the start of it).
    static let nothingToIndex = "no entrances and no buildings in it: nothing to index"
    /// Seconds between progress lines while osmium's output streams in.
    static let progressInterval = 2.0

    /// Reads `input` and writes the index to `output`, all or nothing: the database is
    /// written to `OUTPUT.tmp-…` beside it and renamed into place only when complete.
    ///
    /// `.osm.pbf` streams through osmium (`tags-filter`, uncompressed PBF on a pipe) one
    /// element at a time, read and prepared on a thread of its own while SQLite writes on the
    /// calling one, so memory grows only with what must be remembered (entrance ids, node
    /// locations); OSM XML and Overpass JSON (small by nature) are read whole by the `OSM`
    /// module.
    /// - Parameter progress: called, always on the calling thread, with one line per stage
    ///   and, while a `.osm.pbf` streams, every few seconds with elements read, per cent of
    ///   the file and the rate.
    /// - Throws: ``DoorIndexError`` naming the file and element at fault.
    /// - Parameter lowMemory: `.osm.pbf` through osmium without `tags-filter` (see
    ///   `OsmiumStream`): a city's extract in tens of MB instead of ≈ 600 on real data; a
    ///   country's would not fit. Nil: when less than 1.5 GB is available.
    public static func importFile(
        _ input: String, to output: String, lowMemory: Bool? = nil, progress: (String) -> Void = { _ in }
    ) throws(DoorIndexError) -> DoorImportSummary {
        guard FileManager.default.isReadableFile(atPath: input) else {
            throw .badInput(OSMError(path: input, reason: "no such readable file"))
        }
        let source = URL(fileURLWithPath: input).lastPathComponent
        if URL(fileURLWithPath: input).resolvingSymlinksInPath().standardizedFileURL
            == URL(fileURLWithPath: output).resolvingSymlinksInPath().standardizedFileURL
        {
            throw .badInput(
                OSMError(path: input, reason: "is also --out: the index would replace the extract"))
        }
        let format = Self.format(of: input)
        if format == .gzip || format == .bzip2 {
            // osmium reads compressed XML, into the PBF read here; the text readers do not. PBF or
            // JSON compressed whole osmium cannot read: decompressed, it is read as it is, under a
            // name that says what it is. What it holds is looked at (before, the name was taken
            // at its word: gzipped PBF named `x.osm.gz` was told `osmium cat`, which fails on it).
            // XML goes into PBF, which streams whatever its size (Geofabrik's `.osm.bz2`); the XML
            // reader reads it whole (10⁵ buildings' 51 MB of XML: 2.4 s, 306 MB; its PBF: 0.5 s,
            // 81 MB), but for Overpass's: small by nature, its `out geom;` points osmium refuses
            // or drops.
            let plain = format.convertedName(input, ending: nil)
            let inside = Self.inside(compressed: input, format)
            let decompressed: String? =
                switch inside?.format {
                case .pbf: plain.hasSuffix(".pbf") ? plain : format.convertedName(input, ending: ".osm.pbf")
                case .overpassJSON:
                    plain.hasSuffix(".json") ? plain : format.convertedName(input, ending: ".json")
                case .osmXML where inside?.xml == .overpass:
                    plain.hasSuffix(".osm") ? plain : format.convertedName(input, ending: ".osm")
                case .osmXML: nil
                // Not looked at (no gzip or bzip2 here): by its name.
                default: plain.hasSuffix(".pbf") || plain.hasSuffix(".json") ? plain : nil
                }
            let command =
                decompressed.map {
                    "\(format == .gzip ? "gunzip" : "bunzip2") -c \(OSMReader.shellWord(input)) > \(OSMReader.shellWord($0))"
                }
                ?? format.osmiumCat(
                    input, to: Self.pbfName(compressed: input, format, history: inside?.xml == .history))
            throw .badInput(
                OSMError(
                    path: input,
                    reason:
                        "compressed (\(format == .gzip ? "gzip" : "bzip2")): convert it with `\(command)` and import that"
                ))
        }
        if format == .pbf || input.hasSuffix(".pbf") && (format == .unknown || format == .empty) {
            let marked = OsmiumStream.isHistory(input)
            let route: OsmiumStream.Route =
                marked
                ? .history : lowMemory.map { $0 ? .lowMemory : .filtered } ?? OsmiumStream.Route.automatic()
            do {
                return try importPBF(input, route: route, to: output, source: source, progress: progress)
            } catch {
                // A history file that lost its mark fails as versions read as copies: one
                // "appears twice", or a deleted node's version has no place. Known by what it
                // holds (a whole read, so only after such a failure), it is read as it is now
                // (before: refused so, advising `osmium merge`).
                guard !marked, error.mayBeVersions, OsmiumStream.holdsVersions(input) else { throw error }
                progress(
                    "\(input) holds several versions of some elements: a history file whose mark was lost (converted under a plain name?); reading it as it is now"
                )
                return try importPBF(input, route: .history, to: output, source: source, progress: progress)
            }
        }
        progress("reading \(input)")
        let data: OSMData
        do { data = try OSMReader.read(path: input) } catch { throw .badInput(error) }
        return try write(data, to: output, source: source, progress: progress)
    }

    /// Imports the `.osm.pbf` at `input` through osmium by `route`.
    private static func importPBF(
        _ input: String, route: OsmiumStream.Route, to output: String, source: String,
        progress: (String) -> Void
    ) throws(DoorIndexError) -> DoorImportSummary {
        try write(to: output, source: source, progress: progress) { writer in
            // Reading and preparing on one thread, SQLite on this one.
            try Pipeline.run(
                produce: { emit in
                    try OsmiumStream.read(
                        input, route: route, progress: { try? emit(.progress($0)) }
                    ) {
                        try emit(.element(PreparedElement($0)))
                    }
                },
                consume: { (item: StreamItem) in
                    switch item {
                    case .element(let element): try writer.add(element)
                    case .progress(let line): progress(line)
                    }
                })
        }
    }

    /// Writes `data` (already in memory, as the benchmark makes it) as a door index at
    /// `output`, atomically.
    /// - Parameters:
    ///   - wholeTokensLimit: bytes of whole-name tokens kept in memory before they go to the
    ///     scratch table (``WholeTokens/limit``; tests make it small).
    ///   - wordRowsLimit: bytes of the word index's rows kept in memory before the word index
    ///     is left to be made from the table (``WordIndexRows/limit``; tests make it small).
    ///   - makingFolder: false: `output`'s folder is not made when it is not there (a
    ///     temporary folder another thread's signal handler removed), the write fails instead.
    package static func write(
        _ data: OSMData, to output: String, source: String, wholeTokensLimit: Int = WholeTokens.defaultLimit,
        wordRowsLimit: Int = WordIndexRows.defaultLimit, makingFolder: Bool = true,
        progress: (String) -> Void = { _ in }
    ) throws(DoorIndexError) -> DoorImportSummary {
        try write(
            to: output, source: source, wholeTokensLimit: wholeTokensLimit, wordRowsLimit: wordRowsLimit,
            makingFolder: makingFolder, progress: progress
        ) { writer in
            for element in elements(of: data) { try writer.add(element) }
        }
    }

    /// The elements of `data` in the order osmium writes them (nodes, ways, relations, each
    /// by id), ways with their nodes' locations.
    static func elements(of data: OSMData) -> [OSMElement] {
        var coordinates: [Int64: Coordinate] = [:]
        for node in data.nodes { coordinates[node.id] = node.coordinate }
        return data.nodes.sorted { $0.id < $1.id }.map { OSMElement.node($0) }
            + data.ways.sorted { $0.id < $1.id }.map {
                .way($0, locations: $0.nodeIDs.map { coordinates[$0] })
            }
            + data.relations.sorted { $0.id < $1.id }.map { .relation($0) }
    }

    /// What the file at `path` is by its first bytes (``OSMReader/format(of:)``), whatever its
    /// name: PBF named `.osm` is PBF (before, osmium was left to go by the name and read it as
    /// XML). A file named `.pbf` that is neither PBF nor text goes to osmium, which names its
    /// fault.
    static func format(of path: String) -> OSMFormat {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .unknown }
        defer { try? handle.close() }
        return OSMReader.format(of: (try? handle.read(upToCount: OSMReader.sniffedBytes)) ?? Data())
    }

    /// The `.osm.pbf` name for the compressed XML at `path`; `.osh.pbf` for a history file
    /// (`x.osh.gz`, or `history` as its head shows): osmium marks the output as history only by
    /// that name, and without the mark reads it as current data, each old version of an
    /// element as another copy (before, `x.osh.osm.pbf`, which the import then refused; so
    /// too when `x.osh.pbf` was there, and `x.osm.pbf` for history named `x.osm.gz`). A name
    /// taken gets a number (`x-2.osh.pbf`).
    static func pbfName(compressed path: String, _ format: OSMFormat, history: Bool = false) -> String {
        let plain = format.convertedName(path, ending: nil)
        guard history || plain.hasSuffix(".osh") else {
            return format.convertedName(path, ending: ".osm.pbf")
        }
        let slash = plain.lastIndex(of: "/").map { plain.index(after: $0) } ?? plain.startIndex
        var stem = plain
        if let own = [".osh", ".osm", ".xml"].first(where: { plain[slash...].dropFirst().hasSuffix($0) }) {
            stem = String(plain.dropLast(own.count))
        }
        var name = stem + ".osh.pbf"
        var n = 2
        while name == path || FileManager.default.fileExists(atPath: name) {
            name = "\(stem)-\(n).osh.pbf"
            n += 1
        }
        return name
    }

    /// Bytes of decompressed XML looked at, at most, for what kind it is
    /// (``CompressedXML/kind(of:)``): Overpass says so in its first line, but its `<nd lat=…>`
    /// may come after its nodes.
    static let xmlHeadBytes = 1 << 20

    /// What the gzip or bzip2 file at `path` holds, by the first bytes `gzip -dc` or
    /// `bzip2 -dc` gives of it (64, and for XML up to ``xmlHeadBytes`` until its kind shows);
    /// nil when the tool is missing or gives nothing (a corrupt file).
    static func inside(
        compressed path: String, _ format: OSMFormat
    ) -> (format: OSMFormat, xml: CompressedXML?)? {
        guard let tool = Executables.find(format == .gzip ? "gzip" : "bzip2") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-dc", "--", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        var head = Data()
        func read(upTo count: Int) {
            while head.count < count,
                let more = try? output.fileHandleForReading.read(upToCount: count - head.count),
                !more.isEmpty
            {
                head += more
            }
        }
        read(upTo: 64)
        let text = head.starts(with: OSMReader.byteOrderMark) ? Data(head.dropFirst(3)) : head
        let inside = OSMReader.format(of: text)
        // Overpass says so in its first line: the rest only when it does not.
        if inside == .osmXML {
            read(upTo: 1 << 16)
            if CompressedXML.kind(of: head) == .plain { read(upTo: Self.xmlHeadBytes) }
        }
        // The rest is not wanted. SIGKILL, as for osmium: a thread of libdispatch's may have
        // started it with SIGTERM blocked.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        guard !head.isEmpty else { return nil }
        return (inside, inside == .osmXML ? CompressedXML.kind(of: head) : nil)
    }

    /// Runs `fill` on a fresh index at a temporary path beside `output`, then renames it into
    /// place; on any failure the temporary file is removed and `output` left as it was.
    ///
    /// A symbolic link at `output` is written through, as the memory file is
    /// (`AtomicFile.resolvingLink`): its target is replaced and the link stays (before, the
    /// link was replaced by the index). An existing file that is not a door index is refused
    /// before any work (before, `--out notes.txt` silently replaced it); an index, of any
    /// version, is replaced.
    static func write(
        to link: String, source: String, wholeTokensLimit: Int = WholeTokens.defaultLimit,
        wordRowsLimit: Int = WordIndexRows.defaultLimit, makingFolder: Bool = true,
        progress: (String) -> Void,
        _ fill: (DoorIndexWriter) throws -> Void
    ) throws(DoorIndexError) -> DoorImportSummary {
        let output: String
        do { output = try AtomicFile.resolvingLink(link) } catch {
            // "a symbolic link to /…/x.db, whose folder /… is not there"; it is not made, as
            // the folder of an --out that is no link is: the link may point at a disk not there.
            guard let reason = error.reason else {
                throw .storage(path: link, message: "cannot follow the symbolic link: \(error)")
            }
            throw .storage(
                path: link,
                message: reason + (error.code == ENOENT ? ": make it, or give --out another place" : ""))
        }
        // A file where a folder should be, said before any work (before: SQLite's "unable to
        // open database file" after reading the input, or Foundation's "error 512").
        if let file = AtomicFile.fileAmongFolders(of: output) {
            throw .storage(
                path: link, message: "\(file) is a file, not a folder: --out names the index in a folder")
        }
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        // The temp file names this process, so the next import can remove one an interrupted
        // import left (Ctrl-C, a killed job: before, they piled up, a country's size each).
        let tmp = "\(output).tmp-\(getpid())-\(UUID().uuidString.prefix(8))"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue {
            // Said now, not after the whole import.
            throw .storage(path: output, message: "is a directory; --out names the index file to write")
        }
        if FileManager.default.fileExists(atPath: output), !DoorIndex.isDoorIndex(output) {
            throw .notAnIndex(
                path: output,
                reason: "it is there and --out replaces only a door index: remove it or choose another --out")
        }
        if !FileManager.default.fileExists(atPath: directory) {
            // A temporary folder gone is not made again: `plan --osm` killed just after making
            // it had its signal handler remove it on one thread while this one, going on until
            // the process ended, made it again, left empty (seen with inotify: created, deleted,
            // created).
            guard makingFolder else {
                throw .storage(path: output, message: "the folder \(directory) is not there")
            }
            // The README's own example writes to ~/doors/, which a fresh account lacks.
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .storage(
                    path: output,
                    message: "cannot make the folder \(directory): \(error.localizedDescription)")
            }
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw .storage(path: output, message: "the directory \(directory) is not writable")
        }
        removeStaleTemps(of: output)
        do {
            // Ctrl-C, kill or a closed terminal mid-import: the temp file goes too, up to its
            // rename into place (before, the rename came after the temp file left the handler's
            // table: a signal in that gap left `….tmp-PID` behind), and the words' database
            // beside it (before, not removed: under `plan --osm` the temporary folder holding
            // it stayed too).
            return try RemoveOnSignal.during([tmp, DoorIndexWriter.wordsPath(for: tmp)]) {
                let writer = try DoorIndexWriter(
                    path: tmp, source: source, wholeTokensLimit: wholeTokensLimit,
                    wordRowsLimit: wordRowsLimit)
                try fill(writer)
                let summary = try writer.finish(progress: progress)
                // An index of nothing only answers "outside the index (it covers )" later; so does
                // one whose buildings have no node in the extract (before: exit 0, that index).
                let located =
                    summary.entrances + summary.buildingWays + summary.buildingRelations
                    - summary.withoutOutline
                guard located > 0 else {
                    let without = summary.withoutOutline
                    throw DoorIndexError.badInput(
                        OSMError(
                            path: source,
                            reason: nothingToIndex
                                + (without > 0 ? " (\(without) buildings without nodes in the extract)" : ""))
                    )
                }
                // rename(2) replaces `output` in one step: readers see the old file or the new.
                guard rename(tmp, output) == 0 else {
                    throw DoorIndexError.storage(
                        path: output,
                        message: "cannot rename \(tmp) into place: \(String(cString: strerror(errno)))")
                }
                return summary
            }
        } catch {
            try? FileManager.default.removeItem(atPath: tmp)
            // Overlapping extracts joined with `osmium cat` hold elements twice: SQLite's
            // UNIQUE constraint is the first to notice.
            if "\(error)".contains("UNIQUE constraint failed") { throw .duplicateElement(path: source) }
            if let error = error as? DoorIndexError { throw error }
            if let error = error as? OSMError { throw .badInput(error) }
            throw .storage(path: output, message: "\(error)")
        }
    }

    /// Removes `output`'s temp files whose importing process no longer runs.
    static func removeStaleTemps(of output: String) {
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        let prefix = URL(fileURLWithPath: output).lastPathComponent + ".tmp-"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where entry.hasPrefix(prefix) {
            guard let pid = Int32(entry.dropFirst(prefix.count).prefix(while: \.isNumber)), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(atPath: directory + "/" + entry)
        }
    }
}

/// What the reading thread hands the writer: an element, or a progress line to report.
enum StreamItem: Sendable {
    case element(PreparedElement)
    case progress(String)
}

/// Command-line tools the import runs, found on `PATH` (or in /usr/bin).
enum Executables {
    /// The executable `name` in PATH's first folder that has one, else /usr/bin's.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        // As strings: `split` beside a `[String]` gave arrays of characters (an `[Any]`), which
        // read `["/", "u", …]/osmium`, so no folder of PATH was ever searched.
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin"]
        return folders.map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// The `osmium` command-line tool from Debian's osmium-tool.
enum Osmium {
    static func executable() -> String? { Executables.find("osmium") }
}

/// `.osm.pbf` through osmium as a stream: uncompressed PBF on a pipe (``PBFReader``). PBF
/// rather than OPL text: osmium writes a quarter of the bytes with less CPU, and a block's
/// tags come as a table of strings made once. Two ways to get there:
/// - ``Route/filtered`` (the default): `tags-filter` keeps entrances, buildings (with the
///   nodes and member ways they use) and the shops and offices that name a building; the
///   reader keeps those nodes' locations and gives each way its own (``NodeLocations``, 12
///   bytes a node, as much as osmium's `add-locations-to-ways` index took). That second
///   osmium process decoded and encoded the whole stream once more: ≈ 0.5 s of the 10⁶
///   city's 5.5 s, and 90 MB. On real OpenStreetMap ids `tags-filter` holds ≈ 600 MB of id
///   sets whatever the extract's size.
/// - ``Route/lowMemory``: osmium's `add-locations-to-ways` adds locations to every way of
///   the extract (`locations_on_ways`), from a sparse index (16 bytes a node of the whole
///   extract), and everything comes through; the reader keeps what it needs as it does
///   anyway. A city's extract takes tens of MB instead of 600 (Helsinki's: 14 MB), but a
///   country's nodes would take gigabytes, and the roads and other ways are read and kept
///   for the relations too.
enum OsmiumStream {
    enum Route: Sendable {
        case filtered, lowMemory
        /// A history file (every version of each element): `osmium time-filter` makes it as
        /// it is now, deleted elements gone, and everything of that comes through, the reader
        /// keeping node locations as for ``filtered`` (`tags-filter` cannot read a pipe).
        case history

        /// Below this much available memory (`MemAvailable`), ``lowMemory``: `tags-filter`'s
        /// ≈ 600 MB on real data would not fit beside everything else.
        static let filteredNeedsBytes: Int64 = 1_536 << 20

        /// The route for this machine: ``lowMemory`` when ``filteredNeedsBytes`` is not
        /// available (a Raspberry Pi), else ``filtered``.
        /// - Parameter meminfo: `/proc/meminfo`'s text (read when nil); without a readable
        ///   `MemAvailable`, ``filtered``.
        static func automatic(meminfo: String? = nil) -> Route {
            guard let text = meminfo ?? (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
                let kB = Int64(line.dropFirst("MemAvailable:".count).split(separator: " ").first ?? "")
            else { return .filtered }
            return kB * 1024 < filteredNeedsBytes ? .lowMemory : .filtered
        }
    }

    /// osmium's environment: `base` (ours) with
    /// - libosmium's queues at 2 buffers: it queues up to 20 between its reading, working and
    ///   writing threads, and while SQLite is slower than osmium those fill, hundreds of MB at
    ///   a country's size. Short queues keep osmium's memory flat; it waits for us instead;
    /// - glibc's freed memory handed back: glibc keeps what osmium's threads free for reuse;
    ///   while osmium waits for us that was ≈ 50 MB of its 200 at 10⁶ buildings. Its buffers
    ///   (≥ 128 kB) are mapped and unmapped instead, and freed memory above 1 MB goes back;
    /// - on fewer than 4 cores, 2 threads in libosmium's pool (unless `OSMIUM_POOL_THREADS`
    ///   is set): its default, the cores less 2 and at least 1, leaves `tags-filter`'s first
    ///   pass (≈ 1 s at 10⁶ buildings, while nothing else can run) decompressing the file on
    ///   one thread. On 2 cores, 0.2–0.3 s less at 10⁶, the same memory.
    static func environment(_ base: [String: String], cores: Int) -> [String: String] {
        var environment = base
        for queue in ["INPUT", "OSMDATA", "OUTPUT"] { environment["OSMIUM_MAX_\(queue)_QUEUE_SIZE"] = "2" }
        environment["MALLOC_MMAP_THRESHOLD_"] = "131072"
        environment["MALLOC_TRIM_THRESHOLD_"] = "1048576"
        if cores < 4 && environment["OSMIUM_POOL_THREADS"] == nil { environment["OSMIUM_POOL_THREADS"] = "2" }
        return environment
    }

    /// Whether the PBF file at `input` says it is a history file (osmium's
    /// `header.with_history`, as osmium writes `.osh.pbf`). Before, its versions went through
    /// `tags-filter` as so many copies: a deleted node's had no place ("lat/lon 214.7483647 …
    /// out of range"), a changed one "appears twice".
    static func isHistory(_ input: String) -> Bool {
        fileinfo(input, ["-g", "header.with_history"]) == "yes"
    }

    /// Whether the PBF file at `input` holds several versions of an element, whatever its
    /// header says (`osmium fileinfo -e`, which reads it all): a history file converted under a
    /// plain name (`osmium cat x.osh.pbf -o x.osm.pbf`) has lost the mark but kept its
    /// versions, and its deleted nodes are versions without a place.
    static func holdsVersions(_ input: String) -> Bool {
        fileinfo(input, ["-e", "-g", "data.multiple_versions"]) == "yes"
    }

    /// What `osmium fileinfo -F pbf ARGUMENTS input` prints, trimmed; nil when it cannot run.
    private static func fileinfo(_ input: String, _ arguments: [String]) -> String? {
        guard let osmium = Osmium.executable() else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: osmium)
        process.arguments = ["fileinfo", "-F", "pbf"] + arguments + [input]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let said = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func read(
        _ input: String, route: Route, progress: (String) -> Void, _ body: (OSMElement) throws -> Void
    ) throws {
        guard let osmium = Osmium.executable() else { throw DoorIndexError.osmiumMissing }
        // Extracts cut ways at their edge: a missing node is left without a location.
        let locateArguments = [
            "add-locations-to-ways", "--ignore-missing-nodes", "-o", "-",
            "-f", "pbf,pbf_compression=none,locations_on_ways=true,add_metadata=false",
        ]
        var stages: [[String]]
        switch route {
        case .filtered:
            progress("filtering \(input) with osmium tags-filter")
            stages = [
                // -F: PBF whatever its name (osmium goes by the name).
                ["tags-filter", "-F", "pbf", input, "n/entrance", "w/building", "r/building"]
                    + SearchText.placeFilters
                    + ["-f", "pbf,pbf_compression=none,add_metadata=false", "-o", "-"]
            ]
        case .lowMemory:
            progress(
                "filtering \(input) with osmium add-locations-to-ways (low memory: every way, no tags-filter)"
            )
            stages = [locateArguments + ["-i", "sparse_mem_array", "-F", "pbf", input]]
        case .history:
            progress("reading \(input), a history file, as it is now with osmium time-filter")
            stages = [
                [
                    "time-filter", "-F", "pbf", input, "-o", "-",
                    "-f", "pbf,pbf_compression=none,add_metadata=false",
                ]
            ]
        }
        let processes = stages.map { arguments in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: osmium)
            process.arguments = arguments
            return process
        }
        let environment = Self.environment(
            ProcessInfo.processInfo.environment, cores: ProcessInfo.processInfo.activeProcessorCount)
        for process in processes { process.environment = environment }
        for (from, to) in zip(processes, processes.dropFirst()) {
            let between = Pipe()
            from.standardOutput = between
            to.standardInput = between
        }
        let output = Pipe()
        processes.last!.standardOutput = output
        // Standard error to files: a pipe nobody drains could stall osmium.
        let errorFiles = processes.map { _ in
            URL(fileURLWithPath: TemporaryFolder.path() + "/pathfinder-osmium-\(UUID().uuidString)")
        }
        defer { for url in errorFiles { try? FileManager.default.removeItem(at: url) } }
        for (process, url) in zip(processes, errorFiles) {
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                // Said as TMPDIR's (before: Foundation's error text, blamed on the output file).
                let code = errno
                throw DoorIndexError.storage(
                    path: TemporaryFolder.named(),
                    message: TemporaryFolder.cannotMake("a file for osmium's messages", errno: code))
            }
            process.standardError = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        }
        do {
            for process in processes { try process.run() }
        } catch {
            for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw DoorIndexError.osmiumFailed(
                path: input, message: "cannot start \(osmium): \(error.localizedDescription)")
        }
        progress("reading osmium's output")
        // The first stage reads the input file: its offset there is the progress.
        let meter = ProgressMeter(input: input, pid: processes[0].processIdentifier)
        var reader = PBFReader(path: input)
        if route != .lowMemory { reader.nodeLocations = NodeLocations() }
        reader.placelessNodesAreDeleted = route == .history
        var failure: (any Error)?
        do {
            try reader.read(fd: output.fileHandleForReading.fileDescriptor) { element in
                try body(element)
                meter.count(progress)
            }
        } catch {
            failure = error
            // Stop osmium (our own children) rather than wait for a stream nobody reads.
            // SIGKILL: the children inherit the signal mask of the thread that started them,
            // and libdispatch's threads block SIGTERM (and SIGPIPE), so a SIGTERM stayed
            // pending and the import waited for ever after SQLite failed (a full disk).
            for process in processes where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
        }
        for process in processes { process.waitUntilExit() }
        if let failure, !(failure is OSMError) { throw failure }
        // A cut or corrupt file makes osmium fail, and its output stop mid-block: osmium's
        // own message says more than the broken block.
        for (process, file) in zip(processes, errorFiles)
        where process.terminationReason == .exit && process.terminationStatus != 0 {
            let text =
                (try? String(contentsOf: file, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            throw DoorIndexError.osmiumFailed(
                path: input, message: text.isEmpty ? "exit status \(process.terminationStatus)" : text)
        }
        if var error = failure as? OSMError {
            error.reason += " (in osmium's output of \(input))"
            throw DoorIndexError.badInput(error)
        }
        meter.finish(progress)
    }
}

/// Progress while osmium streams: elements read, how far osmium is through the input file
/// (its read offset, from /proc), and the rate.
final class ProgressMeter {
    let input: String
    let pid: Int32
    let started = Date()
    let size: Int64
    var elements = 0
    var next = Date().addingTimeInterval(DoorImporter.progressInterval)
    var fd: String?

    init(input: String, pid: Int32) {
        self.input = input
        self.pid = pid
        size = (try? FileManager.default.attributesOfItem(atPath: input)[.size] as? Int64) ?? 0
    }

    func count(_ report: (String) -> Void) {
        elements += 1
        guard elements % 8192 == 0, Date() >= next else { return }
        next = Date().addingTimeInterval(DoorImporter.progressInterval)
        let seconds = Date().timeIntervalSince(started)
        var line = "\(elements) elements read"
        if let offset = offset(), size > 0 {
            line += ", \(min(100, offset * 100 / size))% of \(URL(fileURLWithPath: input).lastPathComponent)"
        }
        line += ", \(Int(Double(elements) / max(seconds, 1e-3))) elements/s"
        report(line)
    }

    func finish(_ report: (String) -> Void) {
        let seconds = Date().timeIntervalSince(started)
        report("\(elements) elements read in \(String(format: "%.1f", seconds)) s")
    }

    /// osmium's read position in the input: the `pos` of its descriptor for that file.
    private func offset() -> Int64? {
        let real = URL(fileURLWithPath: input).resolvingSymlinksInPath().path
        if fd == nil {
            let dir = "/proc/\(pid)/fd"
            fd = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.first {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/\($0)")) == real
            }
        }
        guard let fd, let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("pos:") })
        else { return nil }
        return Int64(line.dropFirst(4).trimmingCharacters(in: .whitespaces))
    }
}
