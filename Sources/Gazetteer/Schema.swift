/// The gazetteer database's tables. Written once by the builder; read-only afterwards.
///
/// Stable IDs: continents and countries by code (`EU`, `FI`), regions by GeoNames admin-1
/// code (`FI.01`), cities by GeoNames ID, airports by IATA code (OurAirports' numeric id
/// is kept as the row key). `place` is what search returns: one row per searchable thing,
/// with its display name apart from the folded forms in `name`. `name_fts` (contentless)
/// indexes each name word by word, `name_whole` as one token (spaces as `_`) for exact and
/// starts-with matches; their rowids are `name.id`, numbered most important place first.
enum Schema {
    static let version = 1

    static let sql = """
        PRAGMA page_size = 4096;
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE continent(
            code TEXT PRIMARY KEY, geonameid INTEGER NOT NULL, name TEXT NOT NULL,
            lat REAL NOT NULL, lon REAL NOT NULL, population INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE country(
            iso TEXT PRIMARY KEY, iso3 TEXT NOT NULL, geonameid INTEGER NOT NULL, name TEXT NOT NULL,
            continent TEXT NOT NULL REFERENCES continent(code), population INTEGER NOT NULL,
            lat REAL, lon REAL) WITHOUT ROWID;
        CREATE TABLE region(
            code TEXT PRIMARY KEY, country TEXT NOT NULL REFERENCES country(iso),
            geonameid INTEGER, iso3166_2 TEXT, name TEXT NOT NULL, population INTEGER NOT NULL,
            lat REAL, lon REAL) WITHOUT ROWID;
        CREATE TABLE city(
            geonameid INTEGER PRIMARY KEY, name TEXT NOT NULL,
            country TEXT NOT NULL REFERENCES country(iso), region TEXT REFERENCES region(code),
            lat REAL NOT NULL, lon REAL NOT NULL, population INTEGER NOT NULL);
        CREATE INDEX city_region ON city(region);
        CREATE INDEX city_country ON city(country);
        CREATE TABLE airport(
            id INTEGER PRIMARY KEY, iata TEXT NOT NULL, icao TEXT, name TEXT NOT NULL, type TEXT NOT NULL,
            country TEXT NOT NULL REFERENCES country(iso), region TEXT REFERENCES region(code),
            municipality TEXT, lat REAL NOT NULL, lon REAL NOT NULL);
        CREATE INDEX airport_iata ON airport(iata);
        CREATE TABLE place(  -- parent: the enclosing place's id
            
            id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL,
            parent INTEGER REFERENCES place(id), lat REAL, lon REAL, importance REAL NOT NULL);
        CREATE TABLE name(
            id INTEGER PRIMARY KEY, place INTEGER NOT NULL REFERENCES place(id),
            name TEXT NOT NULL, folded TEXT NOT NULL, rank INTEGER NOT NULL, hangul INTEGER NOT NULL);
        CREATE VIRTUAL TABLE name_fts USING fts5(
            folded, content='', detail=none, columnsize=0, prefix='1 2 3',
            tokenize='unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE name_whole USING fts5(
            whole, content='', detail=none, columnsize=0, prefix='1 2 3',
            tokenize="unicode61 remove_diacritics 2 tokenchars '_'");
        CREATE TABLE boundary(
            id INTEGER PRIMARY KEY, kind TEXT NOT NULL, country TEXT NOT NULL REFERENCES country(iso),
            region TEXT REFERENCES region(code), area REAL NOT NULL, source TEXT NOT NULL, wkb BLOB NOT NULL);
        CREATE VIRTUAL TABLE boundary_rtree USING rtree(id, minLon, maxLon, minLat, maxLat);
        CREATE TABLE raster(row INTEGER PRIMARY KEY, runs BLOB NOT NULL);  -- BoundaryRaster
        """
}

/// How a name in `name.rank` relates to its place: lower ranks are stronger matches.
enum NameRank: Int {
    /// The display name, or an airport's IATA/ICAO code.
    case primary = 0
    /// An alternate name.
    case alternate = 1
}
