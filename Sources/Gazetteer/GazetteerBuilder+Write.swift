import Foundation
import Geo
import SQLite

/// The normalised records one database holds.
struct Catalogue {
    var continents: [SourceContinent]
    var countries: [SourceCountry]
    var regions: [SourceRegion]
    var cities: [SourceCity]
    var airports: [SourceAirport]
    var regionByISO: [String: String]
}

extension GazetteerBuilder {
    /// Writes into a scratch file, then `VACUUM INTO` the destination so the bytes depend
    /// only on the content (no free pages, no journal leftovers).
    func writeDatabase(_ c: Catalogue, boundaries: [Boundary], to url: URL) throws {
        let scratch = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).scratch")
        try? FileManager.default.removeItem(at: scratch)
        try? FileManager.default.removeItem(at: url)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let db = try Connection(path: scratch.path, mode: .readWrite)
            try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
            try db.execute(Schema.sql)
            try db.transaction { try insert(c, boundaries: boundaries, into: db) }
            // One b-tree segment each.
            try db.execute("INSERT INTO name_fts(name_fts) VALUES('optimize')")
            try db.execute("INSERT INTO name_whole(name_whole) VALUES('optimize')")
            try db.execute("ANALYZE")
            try db.execute("VACUUM INTO '\(url.path.replacingOccurrences(of: "'", with: "''"))'")
        }
    }

    private func insert(_ c: Catalogue, boundaries: [Boundary], into db: Connection) throws {
        try db.prepare("INSERT INTO meta VALUES (?, ?)").run(["schema", .text(String(Schema.version))])
        try db.prepare("INSERT INTO meta VALUES (?, ?)").run(["size", .text(size.rawValue)])
        let regionByCode = Dictionary(c.regions.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        // The biggest city gives a country or region its point; their sums its population.
        var biggest: [String: SourceCity] = [:]
        var regionPopulation: [String: Int64] = [:]
        for city in c.cities {
            for key in [city.country, city.regionCode] {
                if let b = biggest[key], (b.population, -b.geonameid) >= (city.population, -city.geonameid) {
                    continue
                }
                biggest[key] = city
            }
            regionPopulation[city.regionCode, default: 0] += city.population
        }

        let insertPlace = try db.prepare("INSERT INTO place VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        // Names are numbered by their place's importance (most important first), so FTS5,
        // which returns matches in rowid order, yields the most important matches first.
        var names:
            [(importance: Double, place: Int64, order: Int, name: String, folded: String, rank: NameRank)] =
                []
        var placeID: Int64 = 0
        var placeIDs: [String: Int64] = [:]  // "kind:key" → place id, parents before children
        func place(
            _ kind: String, _ key: String, _ name: String, _ parent: String?, _ lat: Double?, _ lon: Double?,
            _ importance: Double, codes: [String], alternates: [String]
        ) throws {
            placeID += 1
            placeIDs["\(kind):\(key)"] = placeID
            try insertPlace.run([
                .int(placeID), .text(kind), .text(key), .text(name),
                parent.flatMap { placeIDs[$0] }.map { .int($0) } ?? .null,
                lat.map { .double($0) } ?? .null, lon.map { .double($0) } ?? .null, .double(importance),
            ])
            var seen = Set<String>()
            func add(_ text: String, _ rank: NameRank) throws {
                let folded = Fold.fold(text)
                guard !folded.isEmpty, seen.insert(folded).inserted else { return }
                names.append((importance, placeID, names.count, text, folded, rank))
            }
            try add(name, .primary)
            for code in codes { try add(code, .primary) }
            for alternate in Self.boundedAlternates(alternates, excluding: name) {
                try add(alternate, .alternate)
            }
        }

        for x in c.continents {
            try db.prepare("INSERT INTO continent VALUES (?, ?, ?, ?, ?, ?)").run([
                .text(x.code), .int(x.geonameid), .text(x.name), .double(x.lat), .double(x.lon),
                .int(x.population),
            ])
            try place(
                "continent", x.code, x.name, nil, x.lat, x.lon, Double(x.population), codes: [],
                alternates: x.alternates)
        }
        let insertCountry = try db.prepare("INSERT INTO country VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for x in c.countries {
            let point = biggest[x.iso]
            try insertCountry.run([
                .text(x.iso), .text(x.iso3), .int(x.geonameid), .text(x.name), .text(x.continent),
                .int(x.population),
                point.map { .double($0.lat) } ?? .null, point.map { .double($0.lon) } ?? .null,
            ])
            try place(
                "country", x.iso, x.name, "continent:" + x.continent, point?.lat, point?.lon,
                Double(x.population), codes: [], alternates: [])
        }
        let insertRegion = try db.prepare("INSERT INTO region VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for x in c.regions {
            let point = biggest[x.code]
            let population = regionPopulation[x.code] ?? 0
            try insertRegion.run([
                .text(x.code), .text(x.country), x.geonameid.map { .int($0) } ?? .null,
                x.iso3166Part2.map { .text($0) } ?? .null, .text(x.name), .int(population),
                point.map { .double($0.lat) } ?? .null, point.map { .double($0.lon) } ?? .null,
            ])
            try place(
                "region", x.code, x.name, "country:" + x.country, point?.lat, point?.lon,
                Double(point?.population ?? 0) * Self.regionImportance, codes: [], alternates: x.aliases)
        }
        let insertCity = try db.prepare("INSERT INTO city VALUES (?, ?, ?, ?, ?, ?, ?)")
        for x in c.cities {
            let region = regionByCode[x.regionCode]
            try insertCity.run([
                .int(x.geonameid), .text(x.name), .text(x.country), region.map { .text($0.code) } ?? .null,
                .double(x.lat), .double(x.lon), .int(x.population),
            ])
            try place(
                "city", String(x.geonameid), x.name,
                region.map { "region:" + $0.code } ?? "country:" + x.country,
                x.lat, x.lon, Double(x.population), codes: [], alternates: x.alternates)
        }
        let insertAirport = try db.prepare("INSERT INTO airport VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for x in c.airports {
            let region = c.regionByISO[x.isoRegion]
            try insertAirport.run([
                .int(x.id), .text(x.iata), x.icao.map { .text($0) } ?? .null, .text(x.name), .text(x.type),
                .text(x.country), region.map { .text($0) } ?? .null,
                x.municipality.map { .text($0) } ?? .null,
                .double(x.lat), .double(x.lon),
            ])
            try place(
                "airport", x.iata, x.name, region.map { "region:" + $0 } ?? "country:" + x.country, x.lat,
                x.lon, Self.airportImportance[x.type] ?? 1_000,
                codes: [x.iata] + (x.icao.map { [$0] } ?? []), alternates: [])
        }
        names.sort { a, b in
            a.importance != b.importance
                ? a.importance > b.importance : (a.place, a.order) < (b.place, b.order)
        }
        let insertName = try db.prepare("INSERT INTO name VALUES (?, ?, ?, ?, ?, ?)")
        let insertWords = try db.prepare("INSERT INTO name_fts(rowid, folded) VALUES (?, ?)")
        let insertWhole = try db.prepare("INSERT INTO name_whole(rowid, whole) VALUES (?, ?)")
        for (i, n) in names.enumerated() {
            let id = Int64(i + 1)
            try insertName.run([
                .int(id), .int(n.place), .text(n.name), .text(n.folded), .int(Int64(n.rank.rawValue)),
                .int(Fold.isHangul(n.name) ? 1 : 0),
            ])
            try insertWords.run([.int(id), .text(n.folded)])
            try insertWhole.run([.int(id), .text(Fold.wholeToken(n.folded))])
        }

        let insertBoundary = try db.prepare("INSERT INTO boundary VALUES (?, ?, ?, ?, ?, ?, ?)")
        let insertBox = try db.prepare("INSERT INTO boundary_rtree VALUES (?, ?, ?, ?, ?)")
        for (i, b) in boundaries.enumerated() {
            let id = Int64(i + 1)
            try insertBoundary.run([
                .int(id), .text(b.kind), .text(b.country), b.region.map { .text($0) } ?? .null,
                .double(b.shape.area.rounded()), .text(b.source),
                .blob(GeometryBlob.encode(b.shape.polygons)),
            ])
            let box = b.shape.bounds
            try insertBox.run([
                .int(id), .double(box.minLon), .double(box.maxLon), .double(box.minLat), .double(box.maxLat),
            ])
        }
        progress("rasterising boundaries (1/\(BoundaryRaster.cellsPerDegree)° cells)")
        let raster = BoundaryRaster.compute(BoundaryGrid(try GazetteerDatabase.boundaries(db)))
        let insertRow = try db.prepare("INSERT INTO raster VALUES (?, ?)")
        for row in 0..<BoundaryRaster.rows {
            try insertRow.run([.int(Int64(row)), .blob(raster.encode(row: row))])
        }

    }

    static func jsonArray(_ items: [String]) -> String {
        "[" + items.map(JSONText.quote).joined(separator: ",") + "]"
    }

    /// The boundaries as a GeoJSON FeatureCollection, one feature a line, fixed order.
    func geoJSON(_ boundaries: [Boundary]) -> String {
        var out = "{\"type\":\"FeatureCollection\",\"features\":[\n"
        for (i, b) in boundaries.enumerated() {
            out +=
                "{\"type\":\"Feature\",\"id\":\(i + 1),\"properties\":{\"kind\":\"\(b.kind)\",\"country\":\"\(b.country)\""
            out += ",\"region\":" + (b.region.map(JSONText.quote) ?? "null")
            out += ",\"source\":" + JSONText.quote(b.source)
            out += "},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":["
            out += b.shape.polygons.map { polygon in
                "["
                    + ([polygon.exterior] + polygon.holes).map { ring in
                        "["
                            + ring.map { "[\(JSONText.number($0.lon)),\(JSONText.number($0.lat))]" }.joined(
                                separator: ",") + "]"
                    }.joined(separator: ",") + "]"
            }.joined(separator: ",")
            out += "]}}" + (i + 1 < boundaries.count ? ",\n" : "\n")
        }
        return out + "]}\n"
    }
}

/// Hand-written JSON text for fixed, fast output.
package enum JSONText {
    package static func quote(_ s: String) -> String {
        // Most names need no escaping: copy them whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + s + "\""
        }
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Shortest round-trip form; integers without a fraction.
    package static func number(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return "\(x)"
    }
}

/// The audit's findings, written as Markdown.
struct AuditReport {
    var counts: [String: Int] = [:]
    var decisions: [AdminAudit.Decision] = []
    var simplificationFallbacks = 0

    func markdown(size: GazetteerBuilder.Size) -> String {
        var out = "# Gazetteer build audit (\(size.rawValue))\n\n"
        out +=
            "Generated by `pathfinder gazetteer build`; do not edit. Polygons: Natural Earth (via QGIS world_map.gpkg); "
        out +=
            "oracle: GeoNames cities1000. A region claim holds when ≥ \(Int(AdminAudit.convincingShare * 100)) % of the cities inside belong to it.\n\n"
        out += "## Counts\n\n| what | count |\n|---|---:|\n"
        for (k, v) in counts.sorted(by: { $0.key < $1.key }) { out += "| \(k) | \(v) |\n" }
        out +=
            "| simplification fallbacks (tolerance halved to keep a city's containment) | \(simplificationFallbacks) |\n"
        var outcomes: [String: Int] = [:]
        for d in decisions { outcomes["\(d.layer) \(d.outcome.rawValue) (join: \(d.join))", default: 0] += 1 }
        out += "\n## Outcomes\n\n| layer, outcome, join | polygons |\n|---|---:|\n"
        for (k, v) in outcomes.sorted(by: { $0.key < $1.key }) { out += "| \(k) | \(v) |\n" }
        out += "\n## Every reassignment, patch, exclusion and drop\n\n"
        out +=
            "| layer | fid | source name | join | claimed | outcome | country | region | cities inside | share |\n"
        out += "|---|---:|---|---|---|---|---|---|---:|---:|\n"
        for d in decisions where [.reassigned, .patched, .excluded, .dropped].contains(d.outcome) {
            out +=
                "| \(d.layer) | \(d.fid) | \(d.sourceName) | \(d.join) | \(d.claimed ?? "–") | \(d.outcome.rawValue) | "
            out +=
                "\(d.country ?? "–") | \(d.region ?? "–") | \(d.citiesInside) | \(String(format: "%.2f", d.share)) |\n"
        }
        return out
    }
}
