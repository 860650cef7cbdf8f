import Foundation
import Testing

@testable import SegRecMedia

@Suite("Media: UTC timestamps without ICU", .tags(.media)) struct UTCTimestampTests {
    /// Seconds since 1970 around the edges: the epoch, before it, a leap day, the last
    /// millisecond of a year and of 9999, and halves of a millisecond.
    static let instants: [Double] = [
        0, -1.5, -0.0004, 951_782_400.25, 1_709_164_799.9994, 1_796_000_000.7949, 1_000_000_000.9995, 1_796_000_000.0005, 253_402_300_799.999
    ]

    @Test("milliseconds, to nearest: what ISO8601DateFormatter (UTC, fractional seconds) wrote", arguments: instants) func milliseconds(_ seconds: Double) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let date = Date(timeIntervalSince1970: seconds)
        #expect(UTCTimestamp.string(date) == formatter.string(from: date))
    }

    @Test("exact values: digits, rounding down for creation_time, dates before 1970") func exactValues() {
        #expect(UTCTimestamp.string(Date(timeIntervalSince1970: 1_796_000_000.7949)) == "2026-11-30T00:53:20.795Z")
        #expect(UTCTimestamp.string(Date(timeIntervalSince1970: 1_796_000_000.7949), fractionDigits: 6, rounding: .down) == "2026-11-30T00:53:20.794900Z")
        #expect(UTCTimestamp.string(Date(timeIntervalSince1970: 1_000_000_000.9995)) == "2001-09-09T01:46:41.000Z")
        #expect(UTCTimestamp.string(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
        #expect(UTCTimestamp.string(Date(timeIntervalSince1970: 951_782_400.25), fractionDigits: 1) == "2000-02-29T00:00:00.3Z")
        #expect(UTCTimestamp.string(Date(timeIntervalSince1970: 951_782_400.25), fractionDigits: 1, rounding: .down) == "2000-02-29T00:00:00.2Z")
    }
}
