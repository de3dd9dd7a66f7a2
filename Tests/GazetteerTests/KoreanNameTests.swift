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
}
