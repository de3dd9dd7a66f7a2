import Arrival
import Testing

@Suite("ArrivalWords")
struct ArrivalWordsTests {
    @Test(arguments: ArrivalWords.refusals)
    func everyRefusal(phrase: String) {
        #expect(ArrivalWords.meaning(of: phrase) == .notHere)
    }

    @Test(arguments: ArrivalWords.confirmations)
    func everyConfirmation(phrase: String) {
        #expect(ArrivalWords.meaning(of: phrase) == .thisIsIt)
    }

    @Test func phraseCounts() {
        #expect(ArrivalWords.refusals.count == 8)
        #expect(ArrivalWords.confirmations.count == 5)
    }

    @Test(
        arguments: [
            ("여기 아니야", ArrivalWords?.some(.notHere)),
            ("여기가 입구야", .thisIsIt),
            ("  여기\t가 입구 야 ", .thisIsIt),
            ("여기 맞아? 아니, 입구 아니야", .notHere),
            ("여기가 입구야 아니 여기 아니야", .notHere),
            ("다른 입구로 안내할게", nil),
            ("여기 앉아", nil),
            ("", nil),
        ])
    func sentences(text: String, expected: ArrivalWords?) {
        #expect(ArrivalWords.meaning(of: text) == expected)
    }
}
