import Testing

@testable import EntranceIndex

/// Korean addresses as a family copies them off a letter, a map app or a contract, and the
/// shorter forms they are looked for in when they match nothing as written (audit 12).
@Suite("Shorter forms of Korean addresses")
struct KoreanAddressFormsTests {
    /// An apartment address ends "NNN동 NNNN호": the 동 is the building of the complex (all
    /// its buildings share the street and number), the 호 a flat in it. The form keeping the
    /// 동 is tried before the bare street and number (before: the 동 was dropped with the
    /// flat, and "반포대로 275" walked to the complex's nearest building, audit 12's A12-4).
    @Test func anApartmentsBuildingNumberIsKeptBeforeTheBareAddress() {
        #expect(SearchText.addressForms("반포대로 275 103동 1203호") == ["반포대로 275 103동", "반포대로 275"])
        for written in ["반포대로 275 제103동 1203호", "반포대로 275 103 동 1203 호", "반포대로 275, 103동 12층 1203호"] {
            let forms = SearchText.addressForms(written)
            #expect(forms.suffix(2) == ["반포대로 275 103동", "반포대로 275"], "\(written): \(forms)")
        }
        #expect(SearchText.addressForms("반포대로275 103동 1203호") == ["반포대로275 103동", "반포대로275"])
        let regions = SearchText.addressForms("서울특별시 서초구 반포대로 275 103동 1203호")
        #expect(regions.suffix(2) == ["반포대로 275 103동", "반포대로 275"], "\(regions)")
        // A flat or floor alone is dropped as before; a 동 not right after the number is none.
        #expect(SearchText.addressForms("반포대로 275 1203호") == ["반포대로 275"])
        #expect(SearchText.addressForms("반포대로 275 3층 103동") == ["반포대로 275"])
    }

    /// A lot-number (지번) address is written with 번지 after its number: the number is the
    /// house number, its 부번 kept (before: no form ended at it, "0 buildings match", A12-1).
    @Test func aLotNumberWithBeonjiIsAHouseNumber() {
        #expect(SearchText.addressForms("태평로1가 31-2번지") == ["태평로1가 31-2"])
        #expect(SearchText.addressForms("무교로 12번지") == ["무교로 12"])
        #expect(SearchText.addressForms("태평로1가 31-2 번지") == ["태평로1가 31-2"])
        #expect(SearchText.addressForms("서울 중구 태평로1가 31-2번지").last == "태평로1가 31-2")
        // A word merely ending in 번지 is no number.
        #expect(SearchText.addressForms("무교로 가번지") == [])
    }

    /// The older way of writing a lot number, 본번 with 번지 and 부번 with 호 ("31번지 2호"), is
    /// lot 31-2, never lot 31, another building (before: the 호 was dropped as a flat and "태평로1가
    /// 31" walked to the neighbouring lot's building, audit 13's A13-5). A 호 after a lot that
    /// already has its 부번, or after a floor, is a flat, dropped as before.
    @Test func aSubLotWrittenWithHoIsPartOfTheLotNumber() {
        #expect(SearchText.addressForms("태평로1가 31번지 2호") == ["태평로1가 31-2"])
        for written in ["태평로1가 31번지2호", "태평로1가 31 번지 2 호", "태평로1가, 31번지 2호"] {
            #expect(SearchText.addressForms(written).last == "태평로1가 31-2", "\(written)")
        }
        let regions = SearchText.addressForms("서울 중구 태평로1가 31번지 2호")
        #expect(regions.last == "태평로1가 31-2" && !regions.contains("태평로1가 31"), "\(regions)")
        #expect(SearchText.addressForms("태평로1가 31-2번지 301호") == ["태평로1가 31-2"])
        #expect(SearchText.addressForms("태평로1가 31번지 3층 301호") == ["태평로1가 31"])
        #expect(SearchText.addressForms("태평로1가 31번지") == ["태평로1가 31"])
        // A 호 of three digits right after 번지 may be a 부번 or a flat: both, the lot first
        // (before, only lot 31-201, which found nothing).
        #expect(SearchText.addressForms("태평로1가 31번지 201호") == ["태평로1가 31-201", "태평로1가 31"])
        #expect(SearchText.addressForms("태평로1가 31번지1203호").last == "태평로1가 31")
        // A Korean 본번-부번 after a street with a digit in its name is no range of numbers
        // (before, "세종대로23길 5-10" was tried as 5 and as 10, other buildings).
        #expect(SearchText.addressForms("세종대로23길 5-10 3층") == ["세종대로23길 5-10"])
    }

    /// A complex's building and flat written together ("103동1203호", as phone keyboards and
    /// forms give it), or as the shorthand "103-1203" after a complete street and number, keep
    /// the 동 as "103동 1203호" does (before: dropped with the flat, the complex's nearest
    /// building, audit 13's A13-8). A hyphenated pair that is itself the number after the
    /// street ("반포대로 103-1203") is the number, 본번 and 부번, as before.
    @Test func aBuildingAndFlatWrittenTogetherKeepTheBuilding() {
        #expect(SearchText.addressForms("반포대로 275 103동1203호") == ["반포대로 275 103동", "반포대로 275"])
        for (written, kept) in [
            ("반포대로 275 제103동1203호", "반포대로 275 103동"), ("반포대로 275, 103-1203", "반포대로 275 103동"),
            ("반포대로 275 103-1203호", "반포대로 275 103동"), ("반포대로275 103-1203", "반포대로275 103동"),
        ] {
            let forms = SearchText.addressForms(written)
            #expect(forms.suffix(2).first == kept, "\(written): \(forms)")
        }
        #expect(!SearchText.addressForms("반포대로 103-1203").contains { $0.contains("동") })
        // Not a flat (fewer than three digits), nor after a street in Latin letters: no 동.
        #expect(SearchText.addressForms("반포대로 275 1-12") == ["반포대로 275"])
        #expect(SearchText.addressForms("Kaivokatu 10 12-345") == ["Kaivokatu 10"])
    }

    /// An official road-name address in a county town names its 읍 or 면 (or a city's 동)
    /// between the 시/군/구 and the road: dropped as region words are, before a road word
    /// (before: the shortening stopped at it, "0 buildings match", A12-5).
    @Test func aTownOrNeighbourhoodBeforeTheRoadIsDropped() {
        #expect(
            SearchText.addressForms("경기도 양평군 양평읍 양평시장길 10")
                == ["양평군 양평읍 양평시장길 10", "양평읍 양평시장길 10", "양평시장길 10"])
        #expect(SearchText.addressForms("양평읍 양평시장길 10") == ["양평시장길 10"])
        #expect(SearchText.addressForms("서울 서초구 서초동 반포대로 275").last == "반포대로 275")
        #expect(SearchText.addressForms("담양군 담양읍 추성로1371") == ["담양읍 추성로1371", "추성로1371"])
        #expect(SearchText.addressForms("역삼1동 테헤란로 152") == ["테헤란로 152"])
        // Before no road, or with no number, it stays: a lot number names its 동.
        #expect(SearchText.addressForms("서초동 1234") == [])
        #expect(SearchText.addressForms("양평읍 시장 10") == [])
        #expect(SearchText.addressForms("양평읍 양평시장길") == [])
        #expect(SearchText.addressForms("103동 반포대로 275") == [])
    }

    /// A relative abroad writes the region in Latin letters before the Korean address: Korea
    /// and the provinces and metropolitan cities by their romanised names, short, with -si or
    /// -do, or in full, any case, are dropped as the Hangul ones are — before Hangul or another
    /// region only (before: only Hangul words were, "Seoul 무교로 12" found nothing, A12-2).
    @Test func aRegionInLatinLettersBeforeAKoreanAddressIsDropped() {
        #expect(SearchText.addressForms("Seoul 무교로 12") == ["무교로 12"])
        #expect(SearchText.addressForms("Seoul, 무교로 12") == ["Seoul 무교로 12", "무교로 12"])
        #expect(SearchText.addressForms("Korea 서울 무교로 12") == ["서울 무교로 12", "무교로 12"])
        #expect(SearchText.addressForms("Korea Seoul 무교로 12") == ["Seoul 무교로 12", "무교로 12"])
        for written in [
            "SEOUL 무교로 12", "Seoul-si 무교로 12", "seoulsi 무교로 12", "Seoul-teukbyeolsi 무교로 12",
            "Seoul 중구 무교로 12",
        ] {
            #expect(SearchText.addressForms(written).last == "무교로 12", "\(written)")
        }
        #expect(SearchText.addressForms("Gyeonggi-do 양평군 양평시장길 10").last == "양평시장길 10")
        #expect(SearchText.addressForms("Gyeongsangnam-do 김해시 김해대로 2401").last == "김해대로 2401")
        #expect(SearchText.addressForms("Busan 중앙대로 100").last == "중앙대로 100")
        // Before a Latin street, or a number, a city's name may be a building's own.
        #expect(SearchText.addressForms("Seoul Garden 12") == [])
        #expect(SearchText.addressForms("Busan 12") == [])
        #expect(SearchText.addressForms("Seoulite 무교로 12") == [])
    }
}
