/// The door index's SQLite schema, in one place for the writer and the reader.
///
/// - `entrances`: every `entrance=*` node, all its tags as a JSON object (sorted keys).
/// - `buildings`: every `building=*` way and relation; `outline` is a ``BuildingOutline``
///   blob (empty when none of its nodes are in the extract). `id` comes from the OSM id
///   (``row(kind:osmID:)``): finding a building by its OSM id is a rowid lookup, with no
///   index to make, and osmium's order (ways, then relations, by id) appends rows in order.
/// - `cell` (entrances and buildings): the ``SpatialCells`` key of the point or outline box,
///   indexed (`entrances_by_cell`, `buildings_by_cell`, made once at the end of the import);
///   NULL for a building with no outline. `meta.cell_levels` lists the levels in use
///   ("0,1,3"), so a query skips the empty ones.
/// - `outline_entrances`: which entrance nodes lie on which building's outline.
/// - `names`, `addresses` (buildings): the building's folded search text — names (its own,
///   its entrances' `name`/`ref` and address, the named shops and offices inside it) and addresses
///   (street and number — one order: its words match in any —, `addr:place`, the same in
///   other languages: `addr:street:LANG`, `addr:place:LANG`, `addr:full`; an index made
///   before has none of the languages, and is read the same); alternatives within a column are separated by " ; ", and the places'
///   names follow the building's own after " | " (``SearchText/placesSeparator``).
/// - `building_search`: FTS5 over those two columns, the buildings table its external
///   content (the text is stored once); rowid = `buildings.id`; only buildings with a name
///   or an address are in it. `detail = none`: the search asks for words and word starts,
///   never phrases or columns, so no positions are kept. A prefix index for one-letter
///   prefixes (the ones that match thousands of words). No column sizes (`columnsize = 0`):
///   nothing is ranked by bm25.
/// - `building_whole`: the same names and addresses (the number after the street; a
///   search turns a query that starts with a number around), each one token (spaces as
///   `_`, as the gazetteer's `name_whole`), a row per token and building: exact and prefix matches of a whole name or address are a range of one
///   B-tree, without reading the large doclists of common words ("street", "로"). Filled
///   once, sorted, at the end of the import. The building's own: its names, addresses and
///   doors' names.
/// - `places_whole`: the same for the names of the places inside each building (shops,
///   offices), apart so that a match on them ranks after one on a building's own name. An
///   index made before has none (its `building_whole` holds both): all count as own.
/// - `meta`: `version`, `source` (file name), `bounds` ("minLat,maxLat,minLon,maxLon";
///   across the antimeridian maxLon runs on past 180: ``DoorIndexBounds/union(_:)``),
///   `cell_levels`, `fold` (``narrowFold`` when full-width ASCII was folded as ASCII).
enum DoorIndexSchema {
    /// Bumped when the layout changes; the reader refuses other versions.
    static let version = 4

    /// `meta.fold` of an index whose search text has full-width ASCII folded as ASCII
    /// ("１１０" as "110"). One made before has no `fold`: a full-width query that finds nothing
    /// narrowed is asked again folded as it was made, so a full-width name it holds is still
    /// found as written (before: by no query, not even itself, until imported again).
    static let narrowFold = "narrow"

    /// How far from 0 an OSM id may be (2⁴¹, ≈ 2.2 × 10¹²; today's largest way id is
    /// ≈ 1.4 × 10⁹).
    static let osmIDLimit: Int64 = 1 << 41

    /// The `buildings.id` of a building: a way's OSM id, a relation's plus 2⁴², so every
    /// relation sorts after every way, as osmium writes them. Nil for an id beyond
    /// ``osmIDLimit``.
    static func row(kind: Building.Kind, osmID: Int64) -> Int64? {
        guard osmID > -osmIDLimit && osmID < osmIDLimit else { return nil }
        switch kind {
        case .way: return osmID
        case .relation: return 2 * osmIDLimit + osmID
        }
    }

    /// `building_search`, alone: the import may make it in a database of its own
    /// (``WordIndexJob``) and copy it in (``copyWordIndex``).
    static let wordIndex = """
        CREATE VIRTUAL TABLE building_search USING fts5(
            names, addresses, content = 'buildings', content_rowid = 'id',
            tokenize = 'unicode61 remove_diacritics 2', prefix = '1', detail = none, columnsize = 0);
        """

    /// Replaces `building_search`'s index with the one made in the database attached as
    /// `words` (``wordIndex``, the same options): FTS5 keeps its index in the `_data` and
    /// `_idx` tables, which do not depend on where the content lives (`_config` is the
    /// same for the same options).
    static let copyWordIndex = """
        DELETE FROM building_search_data;
        INSERT INTO building_search_data SELECT * FROM words.building_search_data;
        DELETE FROM building_search_idx;
        INSERT INTO building_search_idx SELECT * FROM words.building_search_idx;
        """

    static let create = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE entrances(
            id INTEGER PRIMARY KEY, lat REAL NOT NULL, lon REAL NOT NULL, tags TEXT NOT NULL, cell INTEGER NOT NULL);
        CREATE TABLE buildings(
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('way', 'relation')),
            osm_id INTEGER NOT NULL,
            building TEXT NOT NULL,
            name TEXT,
            addr TEXT NOT NULL,
            levels TEXT,
            level TEXT,
            centroid_lat REAL,
            centroid_lon REAL,
            area REAL NOT NULL,
            outline BLOB NOT NULL,
            cell INTEGER,
            names TEXT NOT NULL,
            addresses TEXT NOT NULL);
        CREATE TABLE outline_entrances(
            building INTEGER NOT NULL REFERENCES buildings(id),
            entrance INTEGER NOT NULL REFERENCES entrances(id),
            PRIMARY KEY (building, entrance)) WITHOUT ROWID;
        \(wordIndex)
        CREATE TABLE building_whole(
            token TEXT NOT NULL, building INTEGER NOT NULL REFERENCES buildings(id),
            PRIMARY KEY (token, building)) WITHOUT ROWID;
        CREATE TABLE places_whole(
            token TEXT NOT NULL, building INTEGER NOT NULL REFERENCES buildings(id),
            PRIMARY KEY (token, building)) WITHOUT ROWID;
        """

    /// The indexes made once every row is in: building an index from sorted keys costs far
    /// less than keeping it up to date row by row.
    static let indexes = """
        CREATE INDEX entrances_by_cell ON entrances(cell);
        CREATE INDEX buildings_by_cell ON buildings(cell);
        CREATE INDEX outline_entrances_by_entrance ON outline_entrances(entrance);
        """
}
