import SegRecTime

/// The video codec of a segment, and the libavcodec encoder that produces it.
public enum VideoCodec: String, Sendable, Hashable, Codable, CaseIterable {
    /// H.264 / AVC, encoded by `libx264`, tagged `avc1`.
    case h264
    /// H.265 / HEVC, encoded by `libx265`, tagged `hvc1` (what Apple players require).
    case hevc

    /// The libavcodec encoder name (`avcodec_find_encoder_by_name`).
    package var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        }
    }

    /// The allowed spellings for error messages: `h264, hevc`.
    package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The smallest picture the encoder takes (segrec's pictures are NV12: even sizes only).
    /// - `h264`: 2x2 (libx264 takes any size; 4:2:0 needs even dimensions).
    /// - `hevc`: 16x16: libx265 refuses a smaller width or height ("Image size is too small",
    ///   `avcodec_open2` then fails with EINVAL).
    package var minimumDimensions: VideoDimensions {
        switch self {
        case .h264: VideoDimensions(width: 2, height: 2)
        case .hevc: VideoDimensions(width: 16, height: 16)
        }
    }

    /// Whether the encoder takes pictures of `dimensions` (both at least
    /// ``minimumDimensions``).
    package func accepts(_ dimensions: VideoDimensions) -> Bool { dimensions.width >= minimumDimensions.width && dimensions.height >= minimumDimensions.height }

    /// A display name for messages: `H.264 (libx264)`, `HEVC (libx265)`.
    package var displayName: String {
        switch self {
        case .h264: "H.264 (\(encoderName))"
        case .hevc: "HEVC (\(encoderName))"
        }
    }

    /// Pictures narrower than this are encoded by libx265 without its CU-tree rate control
    /// (`cutree=0`): libx265 3.5's propagate-cost routine writes past its per-row buffers
    /// when the half-resolution lookahead picture is under 4 blocks of 8 pixels wide
    /// (width ≤ 48; heap corruption, an abort at 34x18, 36x20, 40x24). CU-tree only shifts
    /// bits between blocks; at these sizes it changes next to nothing.
    package static let x265CUTreeMinimumWidth = 50

    /// The `x265-params` segrec passes for a picture of `dimensions`: only errors logged
    /// (x265 prints straight to stderr), closed GOPs (`open-gop=0`: every keyframe an IDR
    /// with no leading pictures, so the HLS export can start a media segment at any
    /// keyframe, as with x264's default), and `cutree=0` below ``x265CUTreeMinimumWidth``.
    static func x265Parameters(for dimensions: VideoDimensions) -> String {
        var parameters = ["log-level=error", "open-gop=0"]
        if dimensions.width < x265CUTreeMinimumWidth { parameters.append("cutree=0") }
        return parameters.joined(separator: ":")
    }
}

/// How `SegmentWriter` encodes: codec, x264/x265 preset and CRF, GOP length, threads,
/// and the nominal frame rate.
///
/// Mirrors the `ffmpeg` options `-c:v`, `-preset`, `-crf`, `-g`, `-threads`, `-r`.
/// Call `validate()` before use (`SegmentWriter` does).
public struct EncoderSettings: Sendable, Hashable, Codable {
    /// The codec (default ``VideoCodec/h264``).
    public var codec: VideoCodec
    /// x264/x265 speed preset (`preset` private option), one of `allowedPresets`;
    /// default `"veryfast"`.
    public var preset: String
    /// Constant rate factor (`crf` private option), 0...51 (0 lossless-ish, 51 worst);
    /// default 23.
    public var crf: Int
    /// Maximum distance between keyframes in frames (`AVCodecContext.gop_size`), ≥ 1;
    /// default 60.
    public var keyframeInterval: Int
    /// Encoder threads (`AVCodecContext.thread_count`), 0 = automatic; default 0.
    public var threads: Int
    /// Nominal frame rate (`AVCodecContext.framerate`): lets x264/x265 choose rate control
    /// and a level that fits. Frame timestamps stay exact whatever it is; default 30.
    public var frameRate: FrameRate
    /// Interlaced input's field order, to encode interlaced keeping it (H.264 only:
    /// `AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME`, x264 MBAFF, like
    /// `ffmpeg -flags +ildct+ilme -top 1`); nil or progressive: progressive encoding.
    /// A segment whose height is not a multiple of 4 (x264 codes each field in whole
    /// 4:2:0 macroblock pairs) is encoded progressive (`encodesInterlaced(height:)`).
    package var fieldOrder: VideoFieldOrder?
    /// What the pictures' samples mean, written into the stream (VUI colour description
    /// and aspect ratio) and the container (`colr`, `pasp`); default
    /// ``PictureDescription/bt709VideoRange``, what the synthetic sensor draws. Not encoded
    /// by `Codable` (a recording's files state it; ffprobe reads it back).
    package var pictureDescription: PictureDescription = .bt709VideoRange

    private enum CodingKeys: String, CodingKey { case codec, preset, crf, keyframeInterval, threads, frameRate, fieldOrder }

    /// Whether a segment `height` pixels high is encoded interlaced: H.264, an interlaced
    /// ``fieldOrder``, and a height x264 takes interlaced (a multiple of 4).
    package func encodesInterlaced(height: Int) -> Bool { codec == .h264 && fieldOrder?.isInterlaced == true && height % 4 == 0 }

    /// The presets both x264 and x265 know, fastest first.
    package static let allowedPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    /// The allowed CRF range.
    package static let allowedCRF = 0...51
    /// Upper bound accepted for ``threads`` (x264's own limit is 128).
    package static let maximumThreads = 128

    /// Settings with the documented defaults for anything not given.
    public init(
        codec: VideoCodec = .h264, preset: String = "veryfast", crf: Int = 23, keyframeInterval: Int = 60, threads: Int = 0,
        frameRate: FrameRate = EncoderSettings.defaultFrameRate
    ) {
        self.codec = codec
        self.preset = preset
        self.crf = crf
        self.keyframeInterval = keyframeInterval
        self.threads = threads
        self.frameRate = frameRate
    }

    /// 30 frames per second.
    public static let defaultFrameRate: FrameRate = try! FrameRate(30)

    /// Checks every field.
    /// - Throws: ``EncoderSettingsError/invalid(field:value:allowed:)`` naming the first bad
    ///   field (`preset`, `crf`, `keyframeInterval`, `threads`, `frameRate`), its value and
    ///   what is allowed.
    package func validate() throws(EncoderSettingsError) {
        guard Self.allowedPresets.contains(preset) else { throw .invalid(field: "preset", value: preset, allowed: Self.allowedPresets.joined(separator: ", ")) }
        guard Self.allowedCRF.contains(crf) else { throw .invalid(field: "crf", value: "\(crf)", allowed: "0...51") }
        guard keyframeInterval >= 1, keyframeInterval <= Int(Int32.max) else {
            throw .invalid(field: "keyframeInterval", value: "\(keyframeInterval)", allowed: "an integer ≥ 1 (frames)")
        }
        guard (0...Self.maximumThreads).contains(threads) else {
            throw .invalid(field: "threads", value: "\(threads)", allowed: "0 (automatic) ... \(Self.maximumThreads)")
        }
        guard Int32(exactly: frameRate.numerator) != nil, Int32(exactly: frameRate.denominator) != nil else {
            throw .invalid(field: "frameRate", value: frameRate.description, allowed: "a rate whose reduced numerator and denominator fit in 32 bits")
        }
    }
}

/// A bad ``EncoderSettings`` field.
public enum EncoderSettingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `field` had `value`; `allowed` says what would be accepted.
    case invalid(field: String, value: String, allowed: String)

    /// The name of the bad field.
    public var field: String {
        switch self {
        case .invalid(let field, _, _): field
        }
    }

    /// `invalid encoder setting crf = 99: allowed 0...51`.
    public var description: String {
        switch self {
        case .invalid(let field, let value, let allowed): "invalid encoder setting \(field) = \(value): allowed \(allowed)"
        }
    }
}
