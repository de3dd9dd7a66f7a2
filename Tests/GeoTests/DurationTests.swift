import Geo
import Testing

@Suite struct DurationTests {
    @Test func secondsIncludeTheFraction() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.seconds(-2).inSeconds == -2)
        #expect(abs(Duration.nanoseconds(7).inSeconds - 7e-9) < 1e-20)
        #expect((Duration.seconds(3) + .microseconds(250)).inSeconds == 3.00025)
    }
}
