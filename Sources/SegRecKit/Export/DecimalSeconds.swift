/// Exact decimal text for rational times, for playlists and reports: no `Double` on the
/// way, so `0.199998000` is what the manifest's `199998000/1000000000` says.
package enum DecimalSeconds {
    /// `time` in seconds with exactly `digits` decimals (0...18), rounded once, half away
    /// from zero (exact whenever the timescale divides 10^digits, e.g. nanoseconds at 9).
    /// Example: `MediaTime(value: 199998000, timescale: 1000000000)` → `"0.199998000"`.
    package static func text(_ time: MediaTime, digits: Int = 9) -> String {
        let digits = max(0, min(18, digits))
        var scale: Int128 = 1
        for _ in 0..<digits { scale *= 10 }
        let units = ExactArithmetic.multiplyDivide(Int128(time.value), scale, Int128(time.timescale), rounding: .default) ?? 0
        let negative = units < 0
        let magnitude = negative ? -units : units
        let whole = magnitude / scale
        let fraction = magnitude % scale
        var text = "\(negative ? "-" : "")\(whole)"
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        return text
    }

    /// The smallest integer number of seconds ≥ `time` (for `EXT-X-TARGETDURATION`).
    package static func ceilingSeconds(_ time: MediaTime) -> Int64 {
        let value = Int128(time.value)
        let scale = Int128(time.timescale)
        var quotient = value / scale
        if value % scale != 0, value > 0 { quotient += 1 }
        return Int64(quotient)
    }
}
