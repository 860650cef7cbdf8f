import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Conversions worked out by hand as exact fractions (and cross-checked with Python's
/// `fractions.Fraction`), each asserting the exact tick value.
@Suite("convertTime: known conversions", .tags(.time)) struct KnownConversionTests {
    static let front = try! MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPartsPerBillion: 50_000)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let time: MediaTime
        let source: MediaClock
        let destination: MediaClock
        let expected: Int64
        var testDescription: String { name }
    }

    static func clock(_ ts: Int32, offsetNs: Int64, ppb: Int64, _ id: String = "device") -> MediaClock {
        try! MediaClock(identifier: id, timescale: ts, offsetNanoseconds: offsetNs, driftPartsPerBillion: ppb)
    }

    static let cases: [Case] = [
        // (1 s + 12.5 s) · (1 + 50e-6) · 24e6 = 13.5 · 1.00005 · 24e6 = 324_000_000 · 1.00005
        //   = 324_016_200 ticks exactly.
        Case(
            name: "DESIGN example: +12.5 s, +50 ppm, 24 MHz", time: MediaTime(value: 1_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: front, expected: 324_016_200),
        // Inverse: 324_016_200 / 24e6 = 13.500675 s; / 1.00005 = 13.5 s; − 12.5 s = 1 s.
        Case(
            name: "DESIGN example back to host", time: MediaTime(value: 324_016_200, timescale: 24_000_000), source: front, destination: .host,
            expected: 1_000_000_000),
        // Negative offset: (10 s − 3.25 s) · 90_000 = 6.75 · 90_000 = 607_500.
        Case(
            name: "negative offset −3.25 s at 90 kHz", time: MediaTime(value: 10_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: clock(90_000, offsetNs: -3_250_000_000, ppb: 0), expected: 607_500),
        // −200 ppm: 100 s · 0.9998 · 24e6 = 99.98 · 24e6 = 2_399_520_000.
        Case(
            name: "−200 ppm at 24 MHz", time: MediaTime(value: 100_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: clock(24_000_000, offsetNs: 0, ppb: -200_000), expected: 2_399_520_000),
        // Inverse of −200 ppm: 2_399_520_000 / 24e6 = 99.98 s; / 0.9998 = 100 s exactly.
        Case(
            name: "−200 ppm back to host", time: MediaTime(value: 2_399_520_000, timescale: 24_000_000), source: clock(24_000_000, offsetNs: 0, ppb: -200_000),
            destination: .host, expected: 100_000_000_000),
        // 26.5 h = 95_400 s; · 90_000 = 8_586_000_000 ticks (just under 2^33 = 8_589_934_592).
        Case(
            name: "26.5 h at 90 kHz", time: MediaTime(value: 95_400_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: clock(90_000, offsetNs: 0, ppb: 0), expected: 8_586_000_000),
        // 26.6 h = 95_760 s; · 1.00005 · 90_000 = 8_618_400_000 · 1.00005 = 8_618_830_920,
        // past 2^33 where 33-bit MPEG-TS segmenters wrap.
        Case(
            name: "26.6 h at 90 kHz, +50 ppm (past 2^33 ticks)", time: MediaTime(value: 95_760_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: clock(90_000, offsetNs: 0, ppb: 50_000), expected: 8_618_830_920),
        // 30 days = 2_592_000 s; (2_592_000 + 12.5) · 1.00005 = 2_592_012.5 + 129.600625
        //   = 2_592_142.100625 s; at 1 GHz: 2_592_142_100_625_000 ticks.
        Case(
            name: "30 days at 1 GHz, +12.5 s, +50 ppm", time: MediaTime(value: 2_592_000_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: clock(1_000_000_000, offsetNs: 12_500_000_000, ppb: 50_000), expected: 2_592_142_100_625_000),
        // Long-running host: (2_000_000 − 86_400.25) · 0.9998 = 1_913_599.75 − 382.71995
        //   = 1_913_217.03005 s; · 24e6 = 45_917_208_721_200 ticks.
        Case(
            name: "2e6 s uptime, −86400.25 s, −200 ppm", time: MediaTime(value: 2_000_000_000_000_000, timescale: 1_000_000_000), source: .host,
            destination: clock(24_000_000, offsetNs: -86_400_250_000_000, ppb: -200_000), expected: 45_917_208_721_200),
        // Device to device (Duo cameras): front 324_016_200 ticks is host 1 s;
        //   other clock: (1 − 3.25) · 90_000 = −202_500.
        Case(
            name: "device to device, negative result", time: MediaTime(value: 324_016_200, timescale: 24_000_000), source: front,
            destination: clock(90_000, offsetNs: -3_250_000_000, ppb: 0), expected: -202_500),
        // A host time at timescale 600: 1800/600 = 3 s; (3 + 12.5) · 24e6 = 372_000_000.
        Case(
            name: "host time at timescale 600", time: MediaTime(value: 1_800, timescale: 600), source: .host,
            destination: clock(24_000_000, offsetNs: 12_500_000_000, ppb: 0), expected: 372_000_000),
        // Beyond Double's 53 bits: h = 2_592_000_000_000_001 ns, +1 ppb at 1 GHz:
        //   h · (1 + 1e-9) = h + 2_592_000.000000001 → 2_592_000_002_592_001.
        Case(
            name: "30 days + 1 ns, +1 ppb at 1 GHz (Double would round)", time: MediaTime(value: 2_592_000_000_000_001, timescale: 1_000_000_000),
            source: .host, destination: clock(1_000_000_000, offsetNs: 0, ppb: 1), expected: 2_592_000_002_592_001),
        // Half tick after 30 days: (2_592_000e9 + 1) ns at 500 MHz = 1_296_000_000_000_000.5
        //   → half away from zero: …001.
        Case(
            name: "half tick after 30 days at 500 MHz", time: MediaTime(value: 2_592_000_000_000_001, timescale: 1_000_000_000), source: .host,
            destination: clock(500_000_000, offsetNs: 0, ppb: 0), expected: 1_296_000_000_000_001),
        // Host 0 with no offset stays 0 whatever the drift.
        Case(
            name: "zero stays zero under drift", time: MediaTime(value: 0, timescale: 1_000_000_000), source: .host,
            destination: clock(24_000_000, offsetNs: 0, ppb: 50_000), expected: 0)
    ]

    @Test(arguments: cases) func conversion(_ c: Case) throws {
        let result = try convertTime(c.time, from: c.source, to: c.destination)
        #expect(result.value == c.expected)
        #expect(result.timescale == c.destination.timescale)
    }

    /// 2.5 and −2.5 ticks (host ±2.5 s on a 1 Hz clock) in every rounding mode.
    @Test(arguments: [
        (Int64(2_500_000_000), RoundingMethod.roundHalfAwayFromZero, Int64(3)), (2_500_000_000, .roundTowardZero, 2),
        (2_500_000_000, .roundTowardNegativeInfinity, 2), (2_500_000_000, .roundTowardPositiveInfinity, 3), (-2_500_000_000, .roundHalfAwayFromZero, -3),
        (-2_500_000_000, .roundTowardZero, -2), (-2_500_000_000, .roundTowardNegativeInfinity, -3), (-2_500_000_000, .roundTowardPositiveInfinity, -2)
    ]) func halfTick(hostNanoseconds: Int64, rounding: RoundingMethod, expected: Int64) throws {
        let oneHertz = Self.clock(1, offsetNs: 0, ppb: 0)
        let result = try convertTime(MediaTime(value: hostNanoseconds, timescale: 1_000_000_000), from: .host, to: oneHertz, rounding: rounding)
        #expect(result.value == expected)
    }

    /// One tick of a 2 GHz device clock is half a host nanosecond: 3 ticks = 1.5 ns → 2 ns.
    @Test func halfNanosecondFromDevice() throws {
        let fast = Self.clock(2_000_000_000, offsetNs: 0, ppb: 0)
        #expect(try convertTime(MediaTime(value: 3, timescale: 2_000_000_000), from: fast, to: .host).value == 2)
        #expect(try convertTime(MediaTime(value: -3, timescale: 2_000_000_000), from: fast, to: .host).value == -2)
        #expect(try convertTime(MediaTime(value: 3, timescale: 2_000_000_000), from: fast, to: .host, rounding: .roundTowardZero).value == 1)
    }

    /// The scenario's decimal parameters are rounded once to exact integers.
    @Test func scenarioParametersRoundOnce() throws {
        let c = try MediaClock(identifier: "front", timescale: 24_000_000, offsetSeconds: 12.5, driftPPM: 50)
        #expect(c.offsetNanoseconds == 12_500_000_000)
        #expect(c.driftPartsPerBillion == 50_000)
        let d = try MediaClock(identifier: "x", timescale: 90_000, offsetSeconds: -86400.25, driftPPM: -0.0005)
        #expect(d.offsetNanoseconds == -86_400_250_000_000)
        #expect(d.driftPartsPerBillion == -1)  // −0.5 ppb → half away from zero → −1
        let e = try MediaClock(identifier: "x", timescale: 90_000, offsetSeconds: 0.1, driftPPM: 1e-3)
        #expect(e.offsetNanoseconds == 100_000_000)
        #expect(e.driftPartsPerBillion == 1)
        let f = try MediaClock(identifier: "x", timescale: 90_000, offsetSeconds: 1.0000000005, driftPPM: 0)
        #expect(f.offsetNanoseconds == 1_000_000_001)
    }

    @Test func invalidClocksAreRejected() {
        #expect(throws: MediaTimeError.self) { try MediaClock(identifier: "x", timescale: 0, offsetNanoseconds: 0, driftPartsPerBillion: 0) }
        #expect(throws: MediaTimeError.self) { try MediaClock(identifier: "x", timescale: 90_000, offsetSeconds: 0, driftPPM: 5000) }
        #expect(throws: MediaTimeError.self) { try MediaClock(identifier: "x", timescale: 90_000, offsetSeconds: .nan, driftPPM: 0) }
    }

    /// A result past Int64 ticks is an error, never a wrap.
    @Test func conversionOverflowThrows() throws {
        let fast = Self.clock(2_000_000_000, offsetNs: 0, ppb: 1_000_000)
        #expect(throws: MediaTimeError.overflow(operation: "convertTime from host to device")) {
            try convertTime(MediaTime(value: .max, timescale: 1_000_000_000), from: .host, to: fast)
        }
    }
}
