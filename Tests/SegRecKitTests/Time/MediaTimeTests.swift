import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("MediaTime", .tags(.time)) struct MediaTimeTests {
    @Test func exactComparisonAcrossTimescales() {
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 500, timescale: 1000))
        #expect(MediaTime(value: 1, timescale: 3) < MediaTime(value: 333_333_334, timescale: 1_000_000_000))
        #expect(MediaTime(value: 1, timescale: 3) > MediaTime(value: 333_333_333, timescale: 1_000_000_000))
        // Values whose Double images are equal but which differ by one tick.
        let a = MediaTime(value: 9_007_199_254_740_993, timescale: 1_000_000_000)
        let b = MediaTime(value: 9_007_199_254_740_992, timescale: 1_000_000_000)
        #expect(a.seconds == b.seconds)
        #expect(a > b)
        #expect(Set([MediaTime(value: 2, timescale: 4), MediaTime(value: 1, timescale: 2)]).count == 1)
        #expect(MediaTime.compare(MediaTime(value: .max, timescale: 1), MediaTime(value: .max, timescale: 2)) == 1)
    }

    @Test(arguments: [
        // 1/3 s to 600: 200 exactly; 1/3 s to 1000: 333.33 → 333; 2/3 s → 666.67 → 667.
        (Int64(1), Int32(3), Int32(600), RoundingMethod.roundHalfAwayFromZero, Int64(200)), (1, 3, 1000, .roundHalfAwayFromZero, 333),
        (2, 3, 1000, .roundHalfAwayFromZero, 667), (2, 3, 1000, .roundTowardZero, 666), (-2, 3, 1000, .roundTowardNegativeInfinity, -667),
        (-2, 3, 1000, .roundTowardPositiveInfinity, -666),
        // 15/10 s to 1 Hz: 1.5 → 2; −1.5 → −2 (half away from zero).
        (15, 10, 1, .roundHalfAwayFromZero, 2), (-15, 10, 1, .roundHalfAwayFromZero, -2), (15, 10, 1, .roundTowardZero, 1), (-15, 10, 1, .roundTowardZero, -1),
        (15, 10, 1, .roundTowardNegativeInfinity, 1), (15, 10, 1, .roundTowardPositiveInfinity, 2)
    ]) func convertedToTimescale(value: Int64, timescale: Int32, to newScale: Int32, rounding: RoundingMethod, expected: Int64) throws {
        let t = try MediaTime(value: value, timescale: timescale).converted(toTimescale: newScale, rounding: rounding)
        #expect(t.value == expected)
        #expect(t.timescale == newScale)
    }

    @Test func defaultRoundingIsHalfAwayFromZero() throws {
        #expect(try MediaTime(value: 25, timescale: 10).converted(toTimescale: 1).value == 3)
        #expect(try MediaTime(value: -25, timescale: 10).converted(toTimescale: 1).value == -3)
        #expect(RoundingMethod.default == .roundHalfAwayFromZero)
    }

    @Test func addSubtractAndMultiplyAreExact() throws {
        // 1/3 + 1/2 = 5/6 at the LCM timescale 6.
        let sum = try MediaTime(value: 1, timescale: 3).adding(MediaTime(value: 1, timescale: 2))
        #expect(sum.value == 5 && sum.timescale == 6)
        let diff = try MediaTime(value: 1, timescale: 3).subtracting(MediaTime(value: 1, timescale: 2))
        #expect(diff.value == -1 && diff.timescale == 6)
        #expect(MediaTime(value: 3, timescale: 1_000_000_000) + MediaTime(value: 4, timescale: 1_000_000_000) == MediaTime(value: 7, timescale: 1_000_000_000))
        // 1001 ticks · 30000/1001 = 30000 exactly; 10 · 1/3 = 3.33 → 3.
        #expect(try MediaTime(value: 1001, timescale: 30000).multiplied(byRatio: 30000, 1001).value == 30000)
        #expect(try MediaTime(value: 10, timescale: 1).multiplied(byRatio: 1, 3).value == 3)
        #expect(try MediaTime(value: 10, timescale: 1).multiplied(byRatio: 1, 4).value == 3)  // 2.5 → 3
    }

    @Test func overflowIsAnErrorNotAWrap() {
        let max = MediaTime(value: .max, timescale: 1)
        #expect(throws: MediaTimeError.overflow(operation: "add")) { try max.adding(MediaTime(value: 1, timescale: 1)) }
        #expect(throws: MediaTimeError.overflow(operation: "subtract")) {
            try MediaTime(value: .min, timescale: 1).subtracting(MediaTime(value: 1, timescale: 1))
        }
        #expect(throws: MediaTimeError.self) { try max.converted(toTimescale: 2) }
        #expect(throws: MediaTimeError.self) { try max.multiplied(byRatio: 3, 2) }
        // Timescales whose LCM exceeds Int32.
        #expect(throws: MediaTimeError.self) { try MediaTime(value: 1, timescale: 1_000_000_007).adding(MediaTime(value: 1, timescale: 1_000_000_009)) }
    }

    @Test func plusOperatorTrapsOnOverflow() async {
        await #expect(processExitsWith: .failure) { _ = MediaTime(value: .max, timescale: 1) + MediaTime(value: 1, timescale: 1) }
    }

    @Test func codableShape() throws {
        let data = try JSONEncoder().encode(MediaTime(value: 3_033_333_333, timescale: 1_000_000_000))
        #expect(String(decoding: data, as: UTF8.self).contains("\"value\":3033333333"))
        let back = try JSONDecoder().decode(MediaTime.self, from: Data(#"{"value": 5, "timescale": 600}"#.utf8))
        #expect(back.value == 5 && back.timescale == 600)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MediaTime.self, from: Data(#"{"value": 5, "timescale": 0}"#.utf8)) }
    }

    @Test(arguments: [("30", Int64(30), Int64(1)), ("30000/1001", 30000, 1001), ("29.97", 2997, 100), ("60/2", 30, 1), ("23.976", 2997, 125)])
    func frameRateParsing(text: String, numerator: Int64, denominator: Int64) throws {
        let rate = try FrameRate(parsing: text)
        #expect(rate.numerator == numerator && rate.denominator == denominator)
    }

    @Test(arguments: ["", "0", "-30", "30/0", "abc", "1/2/3", "30.", "1e3", "10000000000.123456789"]) func frameRateRejects(text: String) {
        #expect(throws: FrameRateError.self) { try FrameRate(parsing: text) }
    }
}
