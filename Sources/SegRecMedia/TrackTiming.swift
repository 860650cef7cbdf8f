import SegRecTime

/// How a segment file's video track keeps time: its timescale (the `mdhd` timescale,
/// `AVStream.time_base = 1/timescale`), how session times become track ticks, and the
/// longest one sample may last.
///
/// - Timescale: the frame rate's own tick, like FFmpeg's mov muxer (`video_track_timescale`
///   default): for a rate `n/d` (reduced) the track ticks `n · 2^k` times a second, the
///   smallest such value ≥ 10 000, so one frame is exactly `d · 2^k` ticks (31 fps → 15 872,
///   30 → 15 360, 30000/1001 → 30 000, 60 → 15 360). A constant-rate stream then has one
///   `stts` entry and MediaInfo / ffprobe read its exact rate. A numerator above
///   ``largestRateTimescale`` (no such camera exists) falls back to ``fallbackTimescale``.
/// - Rounding: a frame's track time is its session time minus the segment's first frame's,
///   rounded once to the nearest tick (half away from zero; at most half a tick, ≈ 33 µs at
///   15 360, from the exact session time the manifest keeps). A frame that would land on or
///   before the previous one's tick gets the next tick.
/// - Longest sample: ``longestSampleTicks`` (2²⁸ − 2 ticks: ≈ 4.8 h at 15 360, ≥ 1 h at
///   every timescale chosen here). FFmpeg's mov demuxer drops a track's whole `ctts` when an
///   offset exceeds 2²⁸ ticks ("CTTS invalid") and a reordered frame's offset can reach a
///   frame's duration, so samples stay below that (the `stts` field itself holds 2³¹).
public enum TrackTiming {
    /// Timescales chosen from a rate never go below this (FFmpeg's mov muxer multiplies a
    /// smaller one by 2 until it reaches 10 000).
    public static let minimumTimescale: Int64 = 10_000
    /// The largest rate timescale kept: one hour is then 2.68 × 10⁸ ticks, under 2²⁸.
    public static let largestRateTimescale: Int64 = 74_565
    /// Used when the rate's numerator is larger than ``largestRateTimescale``: 60 000
    /// (exact for 24, 25, 30, 48, 50, 60, 120, 30000/1001 and 60000/1001 fps).
    public static let fallbackTimescale: Int32 = 60_000
    /// The most ticks one sample (frame) may last: 2²⁸ − 2 (one tick below FFmpeg's
    /// composition-offset limit, a margin for rounding both ends).
    public static let longestSampleTicks: Int64 = (1 << 28) - 2

    /// The track timescale for a stream whose nominal rate is `rate` (see the type's
    /// documentation). Always in `10_000 ... 74_565` or 60 000.
    public static func timescale(for rate: FrameRate) -> Int32 {
        let numerator = rate.numerator
        guard numerator > 0, numerator <= largestRateTimescale else { return fallbackTimescale }
        var timescale = numerator
        while timescale < minimumTimescale { timescale *= 2 }
        guard timescale <= largestRateTimescale else { return Int32(numerator) }
        return Int32(timescale)
    }

    /// The longest one frame can last in a track of `timescale`: ``longestSampleTicks`` ticks.
    public static func longestSample(atTimescale timescale: Int32) -> MediaTime { MediaTime(value: longestSampleTicks, timescale: timescale) }

    /// `time` in ticks of `timescale`, rounded half away from zero; nil when it does not fit
    /// in Int64.
    static func ticks(_ time: MediaTime, atTimescale timescale: Int32) -> Int64? {
        try? time.converted(toTimescale: timescale, rounding: .roundHalfAwayFromZero).value
    }
}
