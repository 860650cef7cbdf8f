import SegRecTime
extension MediaTime {
    /// This time as an integer number of ticks at `timescale`, only if that is exact
    /// (no rounding) and fits in Int64; otherwise nil. Used for FFmpeg pts, which must be
    /// stored without loss.
    func exactTicks(atTimescale timescale: Int32) -> Int64? {
        let numerator = Int128(value) * Int128(timescale)
        let denominator = Int128(self.timescale)
        guard numerator % denominator == 0 else { return nil }
        return Int64(exactly: numerator / denominator)
    }
}
