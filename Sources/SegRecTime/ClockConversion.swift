/// Converts `time`, measured on `source`, to the same instant measured on `destination`,
/// at the destination clock's timescale: the analog of CoreMedia's `CMSyncConvertTime`.
///
/// Exact: with `s = time.value / time.timescale` seconds on `source`,
///
///     host  = s · 1e9 / (1e9 + driftA) − offsetA / 1e9
///     ticks = (host + offsetB / 1e9) · (1e9 + driftB) / 1e9 · timescaleB
///
/// is evaluated as one fraction of 128-bit integers with a 256-bit intermediate product and
/// rounded once, half away from zero (or with `rounding`). No floating point is involved,
/// so results are exact for any host time representable in Int64 nanoseconds (≈ 292 years)
/// and any device timescale up to `Int32.max`.
///
/// - Parameters:
///   - time: a time on `source` (any timescale; its seconds are what count).
///   - source: the clock `time` was read from.
///   - destination: the clock to express the instant on; the result has its timescale.
/// - Returns: ticks of `destination`, at `destination.timescale`.
/// - Throws: ``MediaTimeError/overflow(operation:)`` when the result does not fit in Int64.
public func convertTime(_ time: MediaTime, from source: MediaClock, to destination: MediaClock, rounding: RoundingMethod = .default) throws(MediaTimeError)
    -> MediaTime
{
    let e18: Int128 = 1_000_000_000_000_000_000
    let sourceScale = Int128(time.timescale)
    // numerator = t·1e18 + (offB − offA)·tsA·(1e9 + dA); each term < 2^125 given the
    // clock limits (|t| < 2^63, |offset| ≤ 100 years, timescale < 2^31, |drift| ≤ 10^6 ppb).
    let offsetDelta = Int128(destination.offsetNanoseconds) - Int128(source.offsetNanoseconds)
    guard let scaledTime = ExactArithmetic.multiply(Int128(time.value), e18),
        let scaledOffset = ExactArithmetic.multiply(offsetDelta * sourceScale, source.rateNumerator),
        let numerator = ExactArithmetic.add(scaledTime, scaledOffset), let denominator = ExactArithmetic.multiply(sourceScale * source.rateNumerator, e18)
    else { throw .overflow(operation: "convertTime from \(source.identifier) to \(destination.identifier)") }
    let multiplier = destination.rateNumerator * Int128(destination.timescale)
    guard let ticks = ExactArithmetic.multiplyDivide(numerator, multiplier, denominator, rounding: rounding), let value = Int64(exactly: ticks) else {
        throw .overflow(operation: "convertTime from \(source.identifier) to \(destination.identifier)")
    }
    return MediaTime(value: value, timescale: destination.timescale)
}
