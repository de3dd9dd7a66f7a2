import SQLite
import Testing

@testable import Gazetteer

@Suite("Alternate names a build keeps")
struct AlternateNameTests {
    /// GeoNames sorts a place's names by code point, so the first Hangul name was the one
    /// kept: Seoul (1835848) kept 경성, its colonial-era name, and "서울" found only the region.
    /// Every Hangul name is kept now (up to a few), the one nearest the display name first.
    @Test func everyHangulNameIsKeptNearestTheDisplayNameFirst() {
        let kept = GazetteerBuilder.boundedAlternates(
            ["Gyeongseong", "Hanseong", "Keijo", "Seul", "Soul", "경성", "서울", "서울특별시", "한성"],
            excluding: "Seoul")
        let hangul = kept.filter(Fold.isHangul)
        #expect(hangul.first == "서울", "\(kept)")
        #expect(Set(hangul) == ["경성", "서울", "서울특별시", "한성"], "\(kept)")
        #expect(kept.filter { !Fold.isHangul($0) }.count <= GazetteerBuilder.maxAlternates)
    }

    /// Respellings and romanisations wait for the other words for a place; GeoNames' ASCII
    /// spelling of an umlaut ("OEstra") is the same name and takes no slot.
    @Test func otherWordsComeBeforeRespellings() {
        let helsinki = GazetteerBuilder.boundedAlternates(
            [
                "Elsin'ki", "Elsinki", "Elzinki", "Gel'sinki", "HEL", "Heilsinci", "Hel'sinki", "Helsingfors",
                "Helsinki", "Helsinkis", "Helsset", "Stadi", "he er xin ji", "Хельсинки", "헬싱키",
            ], excluding: "Helsinki")
        #expect(Array(helsinki.prefix(3)) == ["Helsingfors", "Helsset", "Stadi"], "\(helsinki)")
        #expect(helsinki.last == "헬싱키")
        #expect(!helsinki.contains("HEL") && !helsinki.contains("Helsinki"))
        let east = GazetteerBuilder.boundedAlternates(
            ["Itae-Helsinki", "Itä-Helsinki", "OEstra Helsingfors", "Östra Helsingfors"],
            excluding: "East Helsinki")
        #expect(east == ["Östra Helsingfors", "Itä-Helsinki"])
    }

    @Test(arguments: [
        ("서울", "seoul"), ("경성", "gyeongseong"), ("헬싱키", "helsingki"), ("부산광역시", "busangwangyeoksi"),
    ])
    func hangulIsRomanisedSyllableBySyllable(_ hangul: String, _ latin: String) {
        #expect(HangulRomanisation.revised(hangul) == latin)
    }
}
