package import Foundation
import Geo
import SQLite

/// Builds the gazetteer artifacts from unpacked sources: the SQLite database, the
/// simplified boundary GeoJSON and the audit report. Same inputs → byte-identical outputs.
package struct GazetteerBuilder {
    /// Which cities become places.
    package enum Size: String, Sendable {
        /// Cities of ≥ 15 000 people (committed in `artifacts/gazetteer/`).
        case compact
        /// Cities of ≥ 500 people (built on demand).
        case full

        var citiesFile: String { self == .compact ? "cities15000" : "cities500" }
    }

    /// Douglas–Peucker tolerance for boundaries, degrees (≈ 440 m of latitude).
    static let simplifyTolerance = 0.004
    /// Boundary coordinates are rounded to this many decimals (≈ 1.1 m) so text and
    /// binary forms agree exactly.
    static let coordinateDecimals = 5.0
    /// Alternate names kept per place besides the Hangul ones (`boundedAlternates`): the
    /// compact build's size budget.
    static let maxAlternates = 6
    /// Hangul names kept per place: GeoNames has one for most places, a few for Korean ones
    /// (서울, 서울특별시, 경성, …), and every one is a name a Korean speaker may type.
    static let maxHangulAlternates = 4
    /// Search importance of airports by OurAirports type (comparable to a population).
    static let airportImportance: [String: Double] = [
        "large_airport": 2_000_000, "medium_airport": 100_000, "small_airport": 5_000,
    ]

    /// A region ranks as this share of its biggest city's population, so a city outranks
    /// the region named after it ("Riga", "São Paulo") while big regions beat villages.
    static let regionImportance = 0.5

    /// The files one build writes, inside the output directory.
    package static let databaseName = "gazetteer.sqlite"
    package static let geoJSONName = "boundaries.geojson"
    package static let auditName = "audit.md"

    let size: Size
    let progress: @Sendable (String) -> Void

    package init(size: Size, progress: @escaping @Sendable (String) -> Void) {
        self.size = size
        self.progress = progress
    }

    /// Reads the sources under `sourceRoot` and writes the artifacts into `outputDirectory`.
    package func build(sourceRoot: URL, outputDirectory: URL) throws {
        let data = try SourceReader.read(
            root: sourceRoot, cities: size.citiesFile, oracle: "cities1000", progress: progress)
        try build(data, outputDirectory: outputDirectory)
    }

    func build(_ source: SourceData, outputDirectory: URL) throws {
        var report = AuditReport()
        // Countries belong to a known continent; regions, cities and airports to a known country.
        let continentCodes = Set(source.continents.map(\.code))
        let countries = source.countries.filter { continentCodes.contains($0.continent) }
        let countryCodes = Set(countries.map(\.iso))
        let regions = source.regions.filter { countryCodes.contains($0.country) }
        let regionByCode = Dictionary(regions.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        let cities = source.cities.filter { countryCodes.contains($0.country) }
        let oracle = source.oracle.filter { countryCodes.contains($0.country) }
        let regionByISO = Dictionary(
            regions.compactMap { r in r.iso3166Part2.map { ($0, r.code) } }, uniquingKeysWith: { a, _ in a })
        let airports = source.airports.filter { countryCodes.contains($0.country) }
        report.counts["countries dropped (no known continent)"] = source.countries.count - countries.count
        report.counts["cities dropped (unknown country)"] = source.cities.count - cities.count
        report.counts["cities without a known region"] = cities.count(where: {
            regionByCode[$0.regionCode] == nil
        })
        report.counts["airports dropped (unknown country)"] = source.airports.count - airports.count

        progress("auditing \(source.regionBoundaries.count) admin-1 polygons with \(oracle.count) cities")
        let audit = AdminAudit(
            regions: regionByCode, countries: countryCodes,
            iso3ToISO: Dictionary(countries.map { ($0.iso3, $0.iso) }, uniquingKeysWith: { a, _ in a }),
            oracle: CityGrid(oracle))
        let (regionShapes, regionDecisions) = audit.regionBoundaries(source.regionBoundaries)
        progress("auditing \(source.countryBoundaries.count) country polygons")
        let (countryShapes, countryDecisions) = audit.countryBoundaries(source.countryBoundaries)
        report.decisions = regionDecisions + countryDecisions

        progress("simplifying boundaries (Douglas–Peucker \(Self.simplifyTolerance)°)")
        let grid = CityGrid(oracle)
        var boundaries: [Boundary] = []
        for (kind, shapes) in [("region", regionShapes), ("country", countryShapes)] {
            for shape in shapes {
                let (polygons, fallbacks) = simplified(shape.polygons, testPoints: grid)
                report.simplificationFallbacks += fallbacks
                let multi = MultiPolygon(polygons)
                boundaries.append(
                    Boundary(
                        kind: kind, country: shape.country, region: shape.region,
                        source: "\(shape.layer) \(shape.fid) \(shape.sourceName)", shape: multi))
            }
        }
        boundaries.sort {
            ($0.kind, $0.country, $0.region ?? "", $0.source) < (
                $1.kind, $1.country, $1.region ?? "", $1.source
            )
        }

        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        progress("writing \(Self.databaseName)")
        let catalogue = Catalogue(
            continents: source.continents, countries: countries, regions: regions, cities: cities,
            airports: airports, regionByISO: regionByISO)
        try writeDatabase(
            catalogue, boundaries: boundaries, to: outputDirectory.appendingPathComponent(Self.databaseName))
        progress("writing \(Self.geoJSONName)")
        try Data(geoJSON(boundaries).utf8).write(
            to: outputDirectory.appendingPathComponent(Self.geoJSONName), options: .atomic)
        report.counts["boundaries (country)"] = boundaries.count(where: { $0.kind == "country" })
        report.counts["boundaries (region)"] = boundaries.count(where: { $0.kind == "region" })
        report.counts["cities"] = cities.count
        report.counts["regions"] = regions.count
        report.counts["regions with no polygon"] =
            Set(regions.map(\.code)).subtracting(boundaries.compactMap(\.region)).count
        report.counts["countries"] = countries.count
        report.counts["airports (IATA)"] = airports.count
        try Data(report.markdown(size: size).utf8).write(
            to: outputDirectory.appendingPathComponent(Self.auditName), options: .atomic)
        progress("done")
    }

    /// One stored boundary.
    struct Boundary {
        var kind: String
        var country: String
        var region: String?
        var source: String
        var shape: MultiPolygon
    }

    /// Simplifies each part; where the simplified part decides containment differently
    /// from the source for any test city, halves the tolerance until it agrees.
    func simplified(_ polygons: [Polygon], testPoints: CityGrid) -> ([Polygon], Int) {
        var out: [Polygon] = []
        var fallbacks = 0
        for polygon in polygons {
            let tests = testPoints.cities(near: polygon.bounds)
            var tolerance = Self.simplifyTolerance
            while true {
                let candidate = simplify(polygon, tolerance: tolerance)
                let agrees = tests.allSatisfy {
                    candidate.contains(lon: $0.lon, lat: $0.lat) == polygon.contains(lon: $0.lon, lat: $0.lat)
                }
                if agrees || tolerance == 0 {  // rounding alone: accepted as is
                    out.append(candidate)
                    break
                }
                fallbacks += 1
                tolerance = tolerance > 0.0001 ? tolerance / 2 : 0
            }
        }
        return (out, fallbacks)
    }

    func simplify(_ polygon: Polygon, tolerance: Double) -> Polygon {
        func ring(_ points: [LonLat]) -> [LonLat] {
            let kept =
                tolerance > 0 ? (DouglasPeucker.simplifyRing(points, tolerance: tolerance) ?? points) : points
            return kept.map { LonLat(lon: Self.round($0.lon), lat: Self.round($0.lat)) }
        }
        return Polygon(exterior: ring(polygon.exterior), holes: polygon.holes.map(ring))
    }

    static func round(_ x: Double) -> Double {
        let scale = pow(10, coordinateDecimals)
        return (x * scale).rounded() / scale
    }
}
