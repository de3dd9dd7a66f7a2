import Arrival
import Testing

@testable import Speech

/// Which answer a decoy the stream heard points towards (``Listener/decoyMeanings(_:)``): a
/// re-hearing (``Listener/Policy/rehear``) runs only towards one, and counts only a hearing of it.
@Suite struct DecoyMeaningsTests {
    @Test(arguments: [
        ("… [거기_아니야] …", [ArrivalWords.notHere]), ("[저기_아냐]", [.notHere]), ("[아닌데]", [.notHere]),
        ("[거기가_입구야]", [.thisIsIt]), ("… [입구야]", [.thisIsIt]), ("[거기_맞아] …", [.thisIsIt]),
        ("[거기_아니야] [맞아]", [.notHere, .thisIsIt]),
        // No answer ends so: a word of the grammar, but no direction.
        ("[입구] [어디]", []), ("[여기가] …", []), ("[앉아] [아기야]", []), ("[찾아] …", []), ("… …", []),
        // A phrase, not a decoy: the stream heard an answer, nothing to hear again for.
        ("여기 아니야", []),
    ])
    func decoyPointsTowardsTheAnswerItEndsAs(_ heard: String, _ expected: [ArrivalWords]) {
        let utterance = Utterance(start: 0, end: 1, heard: heard, meaning: nil)
        #expect(Listener.decoyMeanings(utterance) == Set(expected), "\(heard)")
    }

    @Test func nothingHeardPointsNowhere() {
        #expect(Listener.decoyMeanings(nil).isEmpty)
    }
}
