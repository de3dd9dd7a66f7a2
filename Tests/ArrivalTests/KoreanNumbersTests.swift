import Arrival
import Testing

@Suite struct KoreanNumbersTests {
    @Test(arguments: [
        (0, "영"), (1, "일"), (2, "이"), (10, "십"), (11, "십일"), (20, "이십"), (30, "삼십"),
        (99, "구십구"), (100, "백"), (110, "백십"), (250, "이백오십"), (1000, "천"), (1004, "천사"),
        (10_000, "만"), (12_345, "만 이천삼백사십오"), (20_000, "이만"), (100_000_000, "일억"), (-3, "마이너스 삼"),
    ])
    func sino(_ n: Int, _ expected: String) {
        #expect(KoreanNumbers.sino(n) == expected)
    }

    @Test(arguments: [
        (1, "한"), (2, "두"), (3, "세"), (4, "네"), (5, "다섯"), (10, "열"), (11, "열한"), (12, "열두"),
        (20, "스무"), (21, "스물한"), (99, "아흔아홉"), (100, "백"), (0, "영"),
    ])
    func native(_ n: Int, _ expected: String) {
        #expect(KoreanNumbers.native(n) == expected)
    }

    @Test func units() {
        #expect(KoreanNumbers.metres(30) == "삼십 미터")
        #expect(KoreanNumbers.metres(5) == "오 미터")
        #expect(KoreanNumbers.floor(2) == "이 층")
        #expect(KoreanNumbers.floor(-1) == "지하 일 층")
        #expect(KoreanNumbers.floor(-2) == "지하 이 층")
    }

    @Test(arguments: [
        (2, "두 시 방향"), (12, "열두 시 방향"), (0, "열두 시 방향"), (14, "두 시 방향"), (-1, "열한 시 방향"), (9, "아홉 시 방향"),
    ])
    func clockDirection(_ hour: Int, _ expected: String) {
        #expect(KoreanNumbers.clockDirection(hour) == expected)
    }

    @Test(arguments: [
        ("입구까지 30 미터", "입구까지 삼십 미터"),
        ("입구까지 30미터", "입구까지 삼십 미터"),
        ("2시 방향으로 15m", "두 시 방향으로 십오 미터"),
        ("12 시 방향", "열두 시 방향"),
        ("3층 입구", "삼 층 입구"),
        ("-1층으로 내려가세요", "지하 일 층으로 내려가세요"),
        ("2.5 km", "이 점 오 킬로미터"),
        ("문 1,200개", "문 천이백개"),
        ("B2 출구", "B이 출구"),
        // Counted hours and things take native numbers; a clock time "H:MM" is 시 and 분; an
        // exit's number stays sino (before: "삼시간", "이십사시간", "삼개", "십:삼십").
        ("3시간", "세 시간"),
        ("24시간 개방", "스물네 시간 개방"),
        ("3개 문", "세 개 문"),
        ("10:30에 열어", "열 시 삼십 분에 열어"),
        ("9:00-18:00", "아홉 시-열여덟 시"),
        ("3번 출구", "삼번 출구"),
        ("120개", "백이십개"),
        ("2번째 문", "두 번째 문"), ("1번째 출구", "첫 번째 출구"), ("11번째", "열한 번째"),
        ("2~3개", "두~세 개"), ("1~2곳", "한~두 곳"), ("5~6개월", "오~육개월"), ("2-3번 출구", "이-삼번 출구"),
        // Months, countries, places and years count in sino (a review found "세 개월").
        ("3개월", "삼개월"), ("10개국", "십개국"), ("1개소", "일개소"), ("2개년", "이개년"),
        ("숫자 없음", "숫자 없음"),
        // A number at the very end: the comma check once read past the last character.
        ("입구 2", "입구 이"),
        ("7", "칠"),
        ("문 1,200", "문 천이백"),
        ("1,", "일,"),
        ("", ""),
        // OSM level labels read as they are: their zeros and sign are part of them (before,
        // "01" was "일", "007" "칠", "-0" "영", "-0.5" "영 점 오").
        ("01", "영 일"), ("007", "영 영 칠"), ("-0", "마이너스 영"), ("-0.5", "마이너스 영 점 오"), ("-01", "마이너스 영 일"),
        ("0", "영"), ("0.5", "영 점 오"), ("09:00", "아홉 시"), ("01층", "일 층"),
    ])
    func spokenForm(_ text: String, _ expected: String) {
        #expect(KoreanNumbers.spokenForm(of: text) == expected)
        #expect(!KoreanNumbers.spokenForm(of: text).contains(where: { $0.isASCII && $0.isNumber }))
    }
}
