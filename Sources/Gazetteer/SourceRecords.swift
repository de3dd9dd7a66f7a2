import Geo

/// Records as read from the sources, before normalisation.
struct SourceContinent: Sendable {
    var code: String
    var geonameid: Int64
    var name: String
    var lat: Double
    var lon: Double
    var population: Int64
    var alternates: [String]
}

struct SourceCountry: Sendable {
    var iso: String
    var iso3: String
    var geonameid: Int64
    var name: String
    var continent: String
    var population: Int64
}

struct SourceRegion: Sendable {
    /// GeoNames admin-1 code, `FI.01`.
    var code: String
    var country: String
    var geonameid: Int64?
    var iso3166Part2: String?
    var name: String
    var aliases: [String]
}

struct SourceCity: Sendable {
    var geonameid: Int64
    var name: String
    var lat: Double
    var lon: Double
    var country: String
    /// GeoNames admin-1 code without the country (`01`), as in the source.
    var admin1: String
    var population: Int64
    var alternates: [String]

    var regionCode: String { "\(country).\(admin1)" }
}

struct SourceAirport: Sendable {
    var id: Int64
    var iata: String
    var icao: String?
    var name: String
    var type: String
    var lat: Double
    var lon: Double
    var country: String
    /// ISO 3166-2 code as OurAirports writes it (`US-CA`).
    var isoRegion: String
    var municipality: String?
}

/// One Natural Earth feature from the GeoPackage.
struct SourceBoundary: Sendable {
    var layer: String
    var fid: Int64
    var isoA2: String
    var iso3: String
    var name: String
    var fips: String
    var names: [String]
    var rings: WKB.Rings
}

/// Everything one build reads.
struct SourceData: Sendable {
    var continents: [SourceContinent]
    var countries: [SourceCountry]
    var regions: [SourceRegion]
    /// The cities that become places.
    var cities: [SourceCity]
    /// The cities that judge the polygons (a denser set than the compact build keeps).
    var oracle: [SourceCity]
    var airports: [SourceAirport]
    var countryBoundaries: [SourceBoundary]
    var regionBoundaries: [SourceBoundary]
}
