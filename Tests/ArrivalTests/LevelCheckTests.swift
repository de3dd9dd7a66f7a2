import Arrival
import Testing

@Suite("LevelCheck")
struct LevelCheckTests {
    /// Audit 5-A F1: the door confirmed at 21 m (±4.2) and the walker at that very door another
    /// day at 23.8 m (±4.2): 2.8 m apart is well inside their combined noise (σ ≈ 5.9 m), yet it
    /// was "below" — "입구는 지금보다 아래에 있어." at the right door. Two readings of one spot
    /// that accurate are more than 2.5 m apart two times in three.
    @Test(arguments: [23.8, 18.2, 21.0, 25.0, 30.0])
    func aDifferenceInsideTheCombinedNoise_isNoAnswer(walker: Double) {
        let door = BarometricAltitude(metres: 21, accuracy: 4.2)
        #expect(LevelCheck.compare(door: door, walker: .init(metres: walker, accuracy: 4.2)) == nil)
    }

    @Test(arguments: [
        // Another level only when the difference is beyond twice the combined σ (and over half a
        // storey): here 2σ = 2 × √(1² + 1²) = 2.83 m.
        (21.0, 1.0, 24.0, 1.0, LevelCheck?.some(.below)),
        (21.0, 1.0, 18.0, 1.0, .above),
        (21.0, 1.0, 23.5, 1.0, nil),
        // 2σ = 11.9 m at ±4.2 each: a concourse four storeys down is told, one is not.
        (21.0, 4.2, 33.0, 4.2, .below),
        (21.0, 4.2, 9.0, 4.2, .above),
        (21.0, 4.2, 31.0, 4.2, nil),
        // "Same" only when a storey (3 m) away is ruled out as well: |d| + 2σ < 3 m.
        (21.0, 0.5, 21.3, 0.5, .same),
        (21.0, 0.5, 20.0, 0.5, .same),
        (21.0, 0.5, 22.7, 0.5, .below),  // 1.7 m: nearer a storey than none, beyond 2σ = 1.41 m
        (21.0, 1.0, 21.1, 1.0, .same),
        (21.0, 1.0, 21.5, 1.0, nil),  // 0.5 + 2.83 m: a storey up or down is not ruled out
        (21.0, 4.2, 21.0, 4.2, nil),
        // Too rough, or an accuracy that is no accuracy: nothing.
        (21.0, 6.5, 40.0, 0.5, nil),
        (21.0, 0.5, 40.0, 6.5, nil),
        (21.0, -1.0, 40.0, 0.5, nil),
    ])
    func answers(
        door: Double, doorAccuracy: Double, walker: Double, walkerAccuracy: Double, expected: LevelCheck?
    ) {
        let check = LevelCheck.compare(
            door: .init(metres: door, accuracy: doorAccuracy),
            walker: .init(metres: walker, accuracy: walkerAccuracy))
        #expect(check == expected)
    }

    @Test func noAltitude_isNoAnswer() {
        #expect(LevelCheck.compare(door: nil, walker: .init(metres: 1, accuracy: 0.5)) == nil)
        #expect(LevelCheck.compare(door: .init(metres: 1, accuracy: 0.5), walker: nil) == nil)
    }
}
