import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// SplitMix64: a small seeded generator so property checks are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("convertTime: seeded properties", .tags(.time)) struct ClockPropertyTests {
    static let thirtyDaysNs: Int64 = 30 * 86_400 * 1_000_000_000

    static func randomClock(_ g: inout SeededGenerator) -> MediaClock {
        let scales: [Int32] = [90_000, 24_000_000, 1_000_000, 48_000, 1_000_000_000, 19_200_000]
        let timescale = Bool.random(using: &g) ? scales.randomElement(using: &g)! : Int32.random(in: 1_000...2_000_000_000, using: &g)
        return try! MediaClock(
            identifier: "device", timescale: timescale, offsetNanoseconds: Int64.random(in: -1_000_000_000_000_000...1_000_000_000_000_000, using: &g),
            driftPartsPerBillion: Int64.random(in: -1_000_000...1_000_000, using: &g))
    }

    /// host → device → host lands within one device tick (plus the final ns rounding), and
    /// device → host → device within one device tick: exact integer checks, no Double.
    @Test func roundTripWithinOneTick() throws {
        var g = SeededGenerator(seed: 0x5E6_2EC)
        for _ in 0..<100_000 {
            let clock = Self.randomClock(&g)
            let host = MediaTime(value: Int64.random(in: 0...Self.thirtyDaysNs, using: &g), timescale: 1_000_000_000)
            let device = try convertTime(host, from: .host, to: clock)
            let back = try convertTime(device, from: clock, to: .host)
            // |back − host| ns ≤ one device tick in ns (1e9 / (ts · rate)) + 1 ns, i.e.
            // |Δ| · ts · (1e9 + drift) ≤ 1e18 + ts · (1e9 + drift).
            let scaled = Int128((back.value - host.value).magnitude) * Int128(clock.timescale) * clock.rateNumerator
            let tickAndOne = 1_000_000_000_000_000_000 + Int128(clock.timescale) * clock.rateNumerator
            #expect(scaled <= tickAndOne, "clock \(clock) host \(host.value) back \(back.value)")

            let deviceAgain = try convertTime(back, from: .host, to: clock)
            #expect((deviceAgain.value - device.value).magnitude <= 1, "clock \(clock) device \(device.value)")
        }
    }

    @Test func monotonic() throws {
        var g = SeededGenerator(seed: 42)
        for _ in 0..<100_000 {
            let clock = Self.randomClock(&g)
            let a = Int64.random(in: 0...Self.thirtyDaysNs, using: &g)
            let b = Bool.random(using: &g) ? a + Int64.random(in: 0...5, using: &g) : Int64.random(in: a...Self.thirtyDaysNs, using: &g)
            let fa = try convertTime(MediaTime(value: a, timescale: 1_000_000_000), from: .host, to: clock)
            let fb = try convertTime(MediaTime(value: b, timescale: 1_000_000_000), from: .host, to: clock)
            #expect(fa <= fb)
            // device → host: two device tick values x ≤ y.
            let span = Int64(clock.timescale) * 3_000_000  // ±3e6 s of device time
            let x = Int64.random(in: -span...span, using: &g)
            let y = x + Int64.random(in: 0...3, using: &g)
            let gx = try convertTime(MediaTime(value: x, timescale: clock.timescale), from: clock, to: .host)
            let gy = try convertTime(MediaTime(value: y, timescale: clock.timescale), from: clock, to: .host)
            #expect(gx <= gy)
        }
    }

    /// Consecutive frames of random clocks and rates get strictly increasing session times.
    @Test func frameTimesStrictlyIncrease() throws {
        var g = SeededGenerator(seed: 7)
        let rates = [try FrameRate(24), try FrameRate(30), try FrameRate(60), try FrameRate(120), try FrameRate(30000, 1001), try FrameRate(240)]
        for _ in 0..<2_000 {
            let clock = Self.randomClock(&g)
            let timing = try FrameTiming(
                deviceClock: clock, frameRate: rates.randomElement(using: &g)!,
                sessionStart: MediaTime(value: Int64.random(in: 0...Self.thirtyDaysNs, using: &g), timescale: 1_000_000_000))
            let first = Int64.random(in: 0...10_000_000, using: &g)
            var previous = try timing.sessionTime(ofFrame: first)
            for i in (first + 1)...(first + 50) {
                let t = try timing.sessionTime(ofFrame: i)
                #expect(t > previous, "clock \(clock) frame \(i)")
                previous = t
            }
        }
    }
}
