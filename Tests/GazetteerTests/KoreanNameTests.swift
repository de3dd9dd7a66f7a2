import Testing

@testable import Gazetteer

/// Which stored Hangul names are a place's own (said by the daemon's `where`): the gazetteer
/// keeps GeoNames' first Hangul name, which is sometimes a historic or unrelated one.
@Suite struct KoreanNameTests {
    @Test(arguments: [
        ("헬싱키", "Helsinki"), ("서울시", "Seoul-teukbyeolsi"), ("상하이", "Shanghai"), ("멕시코 시", "Mexico City"),
        ("뉴욕", "New York City"), ("베이징", "Beijing"), ("런던", "London"), ("모스크바", "Moscow"),
        ("부산광역시", "Busan-gwangyeoksi"), ("경기도", "Gyeonggi-do"),
    ])
    func aTransliterationIsTheName(hangul: String, latin: String) {
        #expect(KoreanName.reads(hangul, as: latin))
    }

    @Test(arguments: [
        ("경성", "Seoul"), ("비잔티움", "Istanbul"), ("레닌그라드", "Saint Petersburg"), ("방울뱀", "Cascavel"),
        ("와", "Wa"),
    ])
    func anotherNameIsNot(hangul: String, latin: String) {
        #expect(!KoreanName.reads(hangul, as: latin))
    }

    /// Hangul only: syllables U+AC00…U+D7A3 and nothing else, one at least. The daemon's `go`
    /// adds 시 to such a city word ("서울" → "서울시"), never to "Seoul" or "서울 시".
    @Test(arguments: [
        ("서울", true), ("가", true), ("\u{D7A3}", true), ("부산광역시", true),
        ("", false), (" ", false), ("서울 시", false), (" 서울", false), ("Seoul시", false), ("서울1", false),
        ("\u{ABFF}", false), ("\u{D7A4}", false),  // just outside the syllables
        ("\u{1109}\u{1165}", false),  // 서 as conjoining jamo (decomposed Hangul)
        ("ㅅㅓ", false),  // compatibility jamo
    ])
    func hangulOnlyIsSyllablesOnly(text: String, hangul: Bool) {
        #expect(KoreanName.isHangulOnly(text) == hangul, "\(text.unicodeScalars.map { $0.value })")
    }
}
