/// A segment's sound reduced for drawing: the lowest and highest sample value in each of
/// `buckets` equal slices of its samples (one per user unit of its bar on the report's
/// timeline), in full scale (`-1…1`). Pure: the samples come from `AudioTrackReader`.
package struct Waveform: Sendable, Equatable {
    /// Lowest value per bucket (≤ 0 for a bucket of sound around zero; 0 for silence).
    package let minimum: [Float]
    /// Highest value per bucket.
    package let maximum: [Float]
    /// Samples the peaks were taken from.
    package let sampleCount: Int

    /// Peaks of `samples` (mono) in `buckets` slices (at least 1): bucket `b` covers samples
    /// `⌊b·n/buckets⌋ ..< ⌊(b+1)·n/buckets⌋` (`n` = `samples.count`), so every sample falls in
    /// exactly one bucket and the bucket at a time `t` into the segment is the one at
    /// `t / duration` of the bar's width. A bucket with no sample (more buckets than samples)
    /// is 0…0.
    package init(samples: [Float], buckets: Int) {
        let count = max(1, buckets)
        var low = [Float](repeating: 0, count: count)
        var high = [Float](repeating: 0, count: count)
        let n = samples.count
        samples.withUnsafeBufferPointer { all in
            for b in 0..<count {
                let from = b * n / count
                let to = (b + 1) * n / count
                guard from < to else { continue }
                var lo = all[from]
                var hi = all[from]
                for i in (from + 1)..<to {
                    let v = all[i]
                    if v < lo { lo = v }
                    if v > hi { hi = v }
                }
                low[b] = lo
                high[b] = hi
            }
        }
        minimum = low
        maximum = high
        sampleCount = n
    }

    /// The bucket holding the loudest sample (largest `max(-minimum, maximum)`), or nil
    /// without samples.
    package var loudestBucket: Int? {
        guard sampleCount > 0 else { return nil }
        return minimum.indices.max { max(-minimum[$0], maximum[$0]) < max(-minimum[$1], maximum[$1]) }
    }
}
