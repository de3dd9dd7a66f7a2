import Geo
import Testing

@Suite struct QuantileTests {
    @Test func theIndexRoundsDown() {
        let values: [Double] = [1, 2, 3, 4]
        #expect(values.quantile(0) == 1)
        #expect(values.quantile(0.5) == 2)  // ⌊3 · 0.5⌋ = 1: the lower middle
        #expect(values.quantile(0.95) == 3)  // ⌊3 · 0.95⌋ = 2
        #expect(values.quantile(1) == 4)
        #expect([7.0].quantile(0.99) == 7)
    }

    @Test func aFractionOutsideZeroToOneIsClamped() {
        #expect([1.0, 2].quantile(-0.5) == 1)
        #expect([1.0, 2].quantile(1.5) == 2)
    }
}
