import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("FrameTiming", .tags(.time)) struct FrameTimingTests {
    static let front = try! MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPartsPerBillion: 50_000)

    /// D(i) = D0 + round(i · ts / fps) from i directly: at 30000/1001 fps and 90 kHz each
    /// frame is 3003 ticks exactly; at 30 fps and 1 kHz, 33.33 ticks: 0, 33, 67, 100.
    @Test func deviceTimesFromIndex() throws {
        let ntsc = FrameTiming(
            deviceClock: try MediaClock(identifier: "d", timescale: 90_000, offsetNanoseconds: 0, driftPartsPerBillion: 0),
            frameRate: try FrameRate(30000, 1001), firstFrameDeviceTicks: 1000)
        #expect(try ntsc.deviceTime(ofFrame: 107_892).value == 1000 + 107_892 * 3003)
        let ms = FrameTiming(
            deviceClock: try MediaClock(identifier: "d", timescale: 1000, offsetNanoseconds: 0, driftPartsPerBillion: 0), frameRate: try FrameRate(30),
            firstFrameDeviceTicks: 0)
        #expect(try (0...3).map { try ms.deviceTime(ofFrame: $0).value } == [0, 33, 67, 100])
        // 1_000_000 frames at 30 fps / 1 kHz: 33_333_333.33 → 33_333_333 (no accumulated error).
        #expect(try ms.deviceTime(ofFrame: 1_000_000).value == 33_333_333)
    }

    /// D0 is the session start converted to the device clock (324_016_200 for the DESIGN
    /// example); frame 1 at 30 fps is 800_000 ticks later and converts to host
    /// (324_816_200 / 24e6) / 1.00005 − 12.5 s = 1.0333316667… s → 1_033_331_667 ns.
    @Test func sessionTimesOfDesignExample() throws {
        let timing = try FrameTiming(
            deviceClock: Self.front, frameRate: try FrameRate(30), sessionStart: MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
        #expect(timing.firstFrameDeviceTicks == 324_016_200)
        #expect(try timing.sessionTime(ofFrame: 0).value == 1_000_000_000)
        #expect(try timing.deviceTime(ofFrame: 1).value == 324_816_200)
        // 324_816_200 / 24e6 = 13.534008333… s; / 1.00005 = 13.53333166675… ; − 12.5 = 1.03333166675 s
        #expect(try timing.sessionTime(ofFrame: 1).value == 1_033_331_667)
    }

    /// The effective frame of a request: first k with D(k) ≥ convert(s) + L · ts / fps.
    /// With D0 = 0, 1 kHz, 30 fps (D = 0, 33, 67, 100, 133, …) and a request at 50 ticks:
    /// L = 0 → threshold 50 → k = 2 (67); L = 1 → 83.33 → k = 3 (100);
    /// L = 2 → 116.67 → k = 4 (133). A request exactly on a frame (67) with L = 0 → k = 2.
    @Test(arguments: [(Int64(50), Int64(0), Int64(2)), (50, 1, 3), (50, 2, 4), (67, 0, 2), (66, 0, 2), (68, 0, 3), (0, 0, 0)]) func effectiveFrame(
        requestTicks: Int64, latency: Int64, expected: Int64
    ) throws {
        let timing = FrameTiming(
            deviceClock: try MediaClock(identifier: "d", timescale: 1000, offsetNanoseconds: 0, driftPartsPerBillion: 0), frameRate: try FrameRate(30),
            firstFrameDeviceTicks: 0)
        #expect(try timing.firstFrame(atOrAfter: MediaTime(value: requestTicks, timescale: 1000), plusFramePeriods: latency) == expected)
    }

    /// 30000/1001 fps for one hour on a drifting clock, converted to the host clock and to
    /// timescales 600 and 90000: every step is floor or ceil of the exact period — no
    /// duplicate and no skipped timestamp.
    @Test(arguments: [Int32(600), 90_000, 1_000_000_000]) func ntscHourHasNoDuplicateOrSkip(timescale: Int32) throws {
        let timing = try FrameTiming(
            deviceClock: Self.front, frameRate: try FrameRate(30000, 1001), sessionStart: MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
        // 1 h · 30000/1001 = 107_892.1 frames.
        let frameCount: Int64 = 107_892
        // Device frame period: 24e6 · 1001 / 30000 = 800_800 ticks exactly. Host period at
        // `timescale`: 800_800 / 24e6 / 1.00005 · timescale = 800_800·1e9·timescale / (24e6·1_000_050_000).
        let periodNumerator = Int128(800_800) * 1_000_000_000 * Int128(timescale)
        let periodDenominator = Int128(24_000_000) * 1_000_050_000
        let low = Int64(periodNumerator / periodDenominator)
        let high = low + (periodNumerator % periodDenominator == 0 ? 0 : 1)
        var previous = try timing.sessionTime(ofFrame: 0).converted(toTimescale: timescale).value
        var steps: Set<Int64> = []
        for i in 1..<frameCount {
            let t = try timing.sessionTime(ofFrame: i).converted(toTimescale: timescale).value
            steps.insert(t - previous)
            previous = t
        }
        #expect(steps.isSubset(of: [low, high]), "steps \(steps) at timescale \(timescale)")
        #expect(!steps.contains(0))
    }
}
