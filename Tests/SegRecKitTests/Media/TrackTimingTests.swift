import SegRecMedia
import SegRecTime
import Testing

/// ``TrackTiming``: one rate's own tick, and one timescale for every rate of a recording.
@Suite("Track timescales", .tags(.media)) struct TrackTimingTests {
    @Test(
        "one rate: its numerator doubled to at least 10 000",
        arguments: [("30", 15_360), ("24", 12_288), ("60", 15_360), ("31", 15_872), ("30000/1001", 30_000), ("120", 15_360), ("25", 12_800)]
            as [(String, Int32)]) func oneRate(rate: String, timescale: Int32) throws
    {
        #expect(TrackTiming.timescale(for: try FrameRate(parsing: rate)) == timescale)
        #expect(TrackTiming.timescale(forEvery: [try FrameRate(parsing: rate)]) == timescale)
    }

    @Test(
        "several rates: one timescale in which a frame at each is whole ticks",
        arguments: [
            (["24", "60"], 15_360), (["25", "30"], 19_200), (["30000/1001", "60"], 30_000), (["120", "24"], 15_360), (["15", "50"], 19_200),
            (["30", "30", "60"], 15_360), (["31", "30"], 14_880), (["30000/1001", "25"], 30_000)
        ] as [([String], Int32)]) func severalRates(rates: [String], timescale: Int32) throws
    {
        let parsed = try rates.map { try FrameRate(parsing: $0) }
        let shared = try #require(TrackTiming.timescale(forEvery: parsed))
        #expect(shared == timescale)
        for rate in parsed { #expect(TrackTiming.isExact(rate, atTimescale: shared)) }
    }

    @Test("rates whose common tick exceeds the largest kept: none") func tooManyRates() throws {
        #expect(TrackTiming.timescale(forEvery: [try FrameRate(30000, 1001), try FrameRate(24000, 1001)]) == nil)
        #expect(TrackTiming.timescale(forEvery: [try FrameRate(31), try FrameRate(30000, 1001)]) == nil)
        #expect(TrackTiming.timescale(forEvery: []) == nil)
        #expect(!TrackTiming.isExact(try FrameRate(24), atTimescale: 15_360 * 2 / 2 + 1))
    }
}
