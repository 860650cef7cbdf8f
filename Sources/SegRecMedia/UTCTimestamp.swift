import Foundation

/// ISO 8601 date-times in UTC (`2026-11-30T08:00:00.200Z`), written from the date's
/// seconds since 1970 with `gmtime_r`, without Foundation's `ISO8601DateFormatter`: that
/// one formats through ICU (`CFDateFormatter`, `TimeZone(identifier:)`), whose calendar and
/// zone data touched 5–9 MiB of ICU's library in every recording just to date the manifest.
package enum UTCTimestamp {
    /// `date` as `YYYY-MM-DDThh:mm:ss.fffZ` with `fractionDigits` digits of the second
    /// (1...9), the time rounded to that precision as `rounding` says (the manifest's
    /// milliseconds: to nearest, as `ISO8601DateFormatter` did; a file's `creation_time`
    /// microseconds: down, as FFmpeg writes them). Years before 1 or after 9999 are
    /// written as `gmtime_r` gives them.
    package static func string(_ date: Date, fractionDigits: Int = 3, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> String {
        let digits = min(max(fractionDigits, 1), 9)
        let unit = (0..<digits).reduce(Int64(1)) { product, _ in product * 10 }
        let units = Int64((date.timeIntervalSince1970 * Double(unit)).rounded(rounding))
        let seconds = units >= 0 ? units / unit : (units - (unit - 1)) / unit
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let fraction = String(units - seconds * unit)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec)) + String(repeating: "0", count: digits - fraction.count) + fraction + "Z"
    }
}
