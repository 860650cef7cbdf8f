// RawStreamFormat: what a raw frame stream is (YUV4MPEG2 or headerless), with the stream facts libavformat would report for it: time base, frame rates, field order, colour, pixel aspect, where it ends.
import CFFmpeg
import SegRecTime

/// A raw frame stream's description, computed as FFmpeg 5.1's `yuv4mpegpipe` and `rawvideo`
/// demuxers (and `avformat_find_stream_info`) report it, so that a recording reads the same
/// whichever reads it:
///
/// - time base: the inverse of the frame rate, reduced (`avpriv_set_pts_info`); the frame
///   rate and `r_frame_rate` are that inverse (see ``isRateReadHere(_:)`` for the rates
///   where libavformat's guess differs, which stay with libavformat);
/// - timestamps: YUV4MPEG2's `(position of the FRAME line − header length) / (picture +
///   6 bytes)`, raw video's `position / picture bytes` (the frame index when every `FRAME`
///   line is 6 bytes);
/// - end: a regular file's `(size − header) / packet` frames, nothing for a pipe.
struct RawStreamFormat {
    let layout: RawFrameLayout
    /// YUV4MPEG2 (a header and `FRAME` lines) or headerless raw video.
    let isY4M: Bool
    /// Bytes before the first frame (the YUV4MPEG2 header line).
    let dataOffset: Int64
    /// Bytes a frame takes in the stream as libavformat counts them (+ 6 for `FRAME\n`).
    let packetBytes: Int64
    let timeBase: (num: Int32, den: Int32)
    let fieldOrder: AVFieldOrder
    let chromaLocation: AVChromaLocation
    let colorRange: AVColorRange
    /// The stream's pixel aspect ratio after `av_guess_sample_aspect_ratio` (0/1: unknown).
    let sampleAspectRatio: AVRational

    /// A YUV4MPEG2 stream with `header`, `dataOffset` bytes long.
    init(y4m header: Y4MHeader, dataOffset: Int64) throws(RawFrameLayout.Problem) {
        layout = try RawFrameLayout(format: header.pixelFormat, width: header.width, height: header.height)
        isY4M = true
        self.dataOffset = dataOffset
        packetBytes = Int64(layout.frameBytes) + 6
        var (num, den) = (Int32(0), Int32(0))
        av_reduce(&num, &den, Int64(header.rateNumerator), Int64(header.rateDenominator), Int64(Int32.max))
        timeBase = Self.reducedTimeBase(num: den, den: num)
        fieldOrder = header.fieldOrder
        chromaLocation = header.chromaLocation
        colorRange = header.colorRange
        sampleAspectRatio = Self.guessed(AVRational(num: header.aspectNumerator, den: header.aspectDenominator))
    }

    /// Headerless raw video of `layout` at `rate` (FFmpeg's `-framerate`, default 25).
    init(raw layout: RawFrameLayout, rate: FrameRate) {
        self.layout = layout
        isY4M = false
        dataOffset = 0
        packetBytes = Int64(layout.frameBytes)
        timeBase = Self.reducedTimeBase(num: Int32(clamping: rate.denominator), den: Int32(clamping: rate.numerator))
        fieldOrder = AV_FIELD_UNKNOWN
        chromaLocation = AVCHROMA_LOC_UNSPECIFIED
        colorRange = AVCOL_RANGE_UNSPECIFIED
        sampleAspectRatio = AVRational(num: 0, den: 1)
    }

    /// The frame rate (`avg_frame_rate` = `r_frame_rate` = 1 / time base), if representable.
    var frameRate: FrameRate? { try? FrameRate(Int64(timeBase.den), Int64(timeBase.num)) }

    /// The timestamp of the frame whose `FRAME` line (or data, for raw video) starts at `offset`.
    func pts(atOffset offset: Int64) -> Int64 { (offset - dataOffset) / packetBytes }

    /// Where the stream's presentation ends (time-base ticks from 0) for a regular file of
    /// `fileSize` bytes, nil for a pipe or when it is not after 0: YUV4MPEG2's whole packets
    /// (the demuxer's `st->duration`); for raw video libavformat's estimate from the bit rate
    /// (`estimate_timings_from_bit_rate`: the bit rate and the duration each rounded to the
    /// nearest, so a file cut short by less than half a picture ends where the whole one would).
    func presentationEnd(fileSize: Int64?) -> Int64? {
        guard let size = fileSize else { return nil }
        func rescaled(_ a: Int128, _ b: Int128, _ c: Int128) -> Int128 { c > 0 ? (a * b + c / 2) / c : 0 }
        let frames: Int128
        if isY4M {
            frames = Int128((size - dataOffset) / packetBytes)
        } else {
            let bitRate = rescaled(Int128(packetBytes), 8 * Int128(timeBase.den), Int128(timeBase.num))
            frames = rescaled(Int128(size), 8 * Int128(timeBase.den), bitRate * Int128(timeBase.num))
        }
        return frames > 0 ? Int64(clamping: frames) : nil
    }

    /// `avpriv_set_pts_info`'s reduction of `num/den`.
    private static func reducedTimeBase(num: Int32, den: Int32) -> (num: Int32, den: Int32) {
        var (n, d) = (Int32(0), Int32(0))
        av_reduce(&n, &d, Int64(num), Int64(den), Int64(Int32.max))
        return (n, d)
    }

    /// `av_guess_sample_aspect_ratio` of a stream whose codec parameters and frames state
    /// none: the stream's, reduced, when positive; else 0/1.
    private static func guessed(_ sar: AVRational) -> AVRational {
        var (n, d) = (Int32(0), Int32(0))
        av_reduce(&n, &d, Int64(sar.num), Int64(sar.den), Int64(Int32.max))
        return n > 0 && d > 0 ? AVRational(num: n, den: d) : AVRational(num: 0, den: 1)
    }

    /// FFmpeg's standard frame rates (`get_std_framerate`: k/12 fps for k = 1…360, 80, 120,
    /// 240, and 24, 30, 60, 12, 15, 48 × 1000/1001), as fractions of 12 · 1001.
    private static let standardRates: [Int64] =
        (1...360).map { Int64($0) * 1001 } + [80, 120, 240].map { Int64($0) * 1001 * 12 } + [24, 30, 60, 12, 15, 48].map { Int64($0) * 1000 * 12 }

    /// Whether a stream at `rate` is read here: libavformat's `avformat_find_stream_info`
    /// rounds `r_frame_rate` to one of its standard rates when the stream's rate is close
    /// to one without being it (120000/1001 becomes 120), which this reader does not
    /// reproduce; such streams (a rate within 1 % of a standard rate, not equal to it) stay
    /// with libavformat, every other rate is exactly the stream's.
    static func isRateReadHere(_ rate: FrameRate) -> Bool {
        let base = Int128(12 * 1001)
        // rate = n/d, standard = s/base: equal when n·base == s·d; within 1 % when |n·base − s·d| < s·d/100.
        let differences = standardRates.map { (Int128(rate.numerator) * base - Int128($0) * Int128(rate.denominator), Int128($0) * Int128(rate.denominator)) }
        if differences.contains(where: { $0.0 == 0 }) { return true }
        return !differences.contains { $0.0.magnitude * 100 < $0.1.magnitude }
    }
}
