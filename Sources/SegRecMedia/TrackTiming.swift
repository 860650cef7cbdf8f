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
package enum TrackTiming {
    /// Timescales chosen from a rate never go below this (FFmpeg's mov muxer multiplies a
    /// smaller one by 2 until it reaches 10 000).
    package static let minimumTimescale: Int64 = 10_000
    /// The largest rate timescale kept: one hour is then 2.68 × 10⁸ ticks, under 2²⁸.
    package static let largestRateTimescale: Int64 = 74_565
    /// Used when the rate's numerator is larger than ``largestRateTimescale``: 60 000
    /// (exact for 24, 25, 30, 48, 50, 60, 120, 30000/1001 and 60000/1001 fps).
    package static let fallbackTimescale: Int32 = 60_000
    /// The most ticks one sample (frame) may last: 2²⁸ − 2 (one tick below FFmpeg's
    /// composition-offset limit, a margin for rounding both ends).
    package static let longestSampleTicks: Int64 = (1 << 28) - 2

    /// The movie timescale (`mvhd`, and the edit lists' durations) of a file whose video
    /// track ticks at `videoTimescale` and whose audio track (if any) at `audioSampleRate`:
    /// their least common multiple, so both edit lists are exact (15 360 and 48 000 →
    /// 384 000); without audio the video timescale. When the multiple exceeds `Int32.max`,
    /// the sample rate (the audio edit list stays exact to the sample).
    package static func movieTimescale(videoTimescale: Int32, audioSampleRate: Int?) -> Int64 {
        guard let rate = audioSampleRate, rate > 0 else { return Int64(videoTimescale) }
        var (a, b) = (Int64(videoTimescale), Int64(rate))
        while b != 0 { (a, b) = (b, a % b) }
        let lcm = Int64(videoTimescale) / a * Int64(rate)
        return lcm <= Int64(Int32.max) ? lcm : Int64(rate)
    }

    /// The track timescale for a stream whose nominal rate is `rate` (see the type's
    /// documentation). Always in `10_000 ... 74_565` or 60 000.
    package static func timescale(for rate: FrameRate) -> Int32 {
        let numerator = rate.numerator
        guard numerator > 0, numerator <= largestRateTimescale else { return fallbackTimescale }
        var timescale = numerator
        while timescale < minimumTimescale { timescale *= 2 }
        guard timescale <= largestRateTimescale else { return Int32(numerator) }
        return Int32(timescale)
    }

    /// One timescale for every file of a recording whose frames come at any of `rates` (a
    /// camera switch between 24 and 60 fps, an `activeFormat` that lowers the rate): the
    /// smallest `n · 2^k ≥ 10 000` for `n` the least common multiple of the rates'
    /// numerators, so a frame at each rate is a whole number of ticks (24 and 60 fps →
    /// 15 360, 640 and 256 ticks). FFmpeg's concat demuxer and HLS reader give every file the
    /// first file's time base, so files of one recording must share it to play in time.
    /// When `n` exceeds ``largestRateTimescale`` (30000/1001 with 24000/1001): nil, each
    /// file then keeps its own rate's timescale.
    package static func timescale(forEvery rates: [FrameRate]) -> Int32? {
        guard let first = rates.first else { return nil }
        var numerator = Int64(1)
        for rate in rates {
            guard rate.numerator > 0 else { return nil }
            numerator = numerator / gcd(numerator, rate.numerator) * rate.numerator
            guard numerator <= largestRateTimescale else { return nil }
        }
        return rates.count == 1 ? timescale(for: first) : timescale(for: try! FrameRate(numerator, 1))
    }

    /// Whether a frame at `rate` lasts a whole number of ticks of `timescale`.
    package static func isExact(_ rate: FrameRate, atTimescale timescale: Int32) -> Bool { rate.numerator > 0 && Int64(timescale) % rate.numerator == 0 }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }

    /// The longest one frame can last in a track of `timescale`: ``longestSampleTicks`` ticks.
    package static func longestSample(atTimescale timescale: Int32) -> MediaTime { MediaTime(value: longestSampleTicks, timescale: timescale) }

    /// `time` in ticks of `timescale`, rounded half away from zero; nil when it does not fit
    /// in Int64.
    package static func ticks(_ time: MediaTime, atTimescale timescale: Int32) -> Int64? {
        try? time.converted(toTimescale: timescale, rounding: .roundHalfAwayFromZero).value
    }
}
