/// The door index's SQLite schema, in one place for the writer and the reader.
///
/// - `entrances`: every `entrance=*` node, all its tags as a JSON object (sorted keys).
/// - `buildings`: every `building=*` way and relation; `outline` is a ``BuildingOutline``
///   blob (empty when none of its nodes are in the extract).
/// - `entrances_rtree`, `buildings_rtree`: R*Trees over their boxes (degrees). SQLite keeps
///   them as 32-bit floats rounded outwards, so a box query never misses; the exact test
///   follows in Swift.
/// - `outline_entrances`: which entrance nodes lie on which building's outline.
/// - `building_search`: FTS5 over each building's folded names (its own, its entrances'
///   `name`/`ref`, the named shops and offices inside it) and addresses (street and number
///   in both orders, `addr:place`, `addr:full`); rowid = `buildings.id`. Alternatives within
///   a column are separated by " ; ". No column sizes (`columnsize = 0`): nothing is
///   ranked by bm25, and they cost 10 MB a million buildings.
/// - `building_whole`: the same names and addresses, each one token (spaces as `_`, as the
///   gazetteer's `name_whole`): exact and prefix matches of a whole name or address without
///   reading the large doclists of common words ("street", "로").
/// - `meta`: `version`, `source` (file name), `bounds` ("minLat,maxLat,minLon,maxLon").
enum DoorIndexSchema {
    /// Bumped when the layout changes; the reader refuses other versions.
    static let version = 2

    static let create = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE entrances(id INTEGER PRIMARY KEY, lat REAL NOT NULL, lon REAL NOT NULL, tags TEXT NOT NULL);
        CREATE VIRTUAL TABLE entrances_rtree USING rtree(id, minLat, maxLat, minLon, maxLon);
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
            UNIQUE (kind, osm_id));
        CREATE VIRTUAL TABLE buildings_rtree USING rtree(id, minLat, maxLat, minLon, maxLon);
        CREATE TABLE outline_entrances(
            building INTEGER NOT NULL REFERENCES buildings(id),
            entrance INTEGER NOT NULL REFERENCES entrances(id),
            PRIMARY KEY (building, entrance)) WITHOUT ROWID;
        CREATE INDEX outline_entrances_by_entrance ON outline_entrances(entrance);
        CREATE VIRTUAL TABLE building_search USING fts5(
            names, addresses, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3', columnsize = 0);
        CREATE VIRTUAL TABLE building_whole USING fts5(
            whole, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'", columnsize = 0);
        """
}
