import CFFmpeg

/// What a picture's sample values mean, as a segment file states it: the colour
/// description (range, primaries, transfer characteristic, matrix; the H.264/HEVC VUI
/// `colour_description` and the MP4 `colr` box) and the pixel aspect ratio (VUI
/// `aspect_ratio_info`, the MP4 `pasp` box).
///
/// The values are FFmpeg's (`AVColorRange`, `AVColorPrimaries`, `AVColorTransferCharacteristic`,
/// `AVColorSpace`, which number the ITU-T H.273 code points), kept as integers so that the
/// layers above `SegRecMedia` need no FFmpeg type. `SegmentWriter` puts them on the
/// encoder (`AVCodecContext.color_range`, `color_primaries`, `color_trc`, `colorspace`,
/// `sample_aspect_ratio`), and libx264 / libx265 and the mp4 muxer write them.
package struct PictureDescription: Sendable, Hashable, CustomStringConvertible {
    /// `AVColorRange`: 1 video (limited, "tv"), 2 full ("pc").
    package var range: Int32
    /// `AVColorPrimaries`: 1 BT.709, 6 SMPTE 170M (BT.601 525), 5 BT.470BG (BT.601 625), 9 BT.2020, …
    package var primaries: Int32
    /// `AVColorTransferCharacteristic`: 1 BT.709, 6 SMPTE 170M, 13 sRGB (IEC 61966-2-1), 16 PQ, 18 HLG, …
    package var transfer: Int32
    /// `AVColorSpace` (the YCbCr matrix): 1 BT.709, 6 SMPTE 170M (BT.601), 5 BT.470BG, 9 BT.2020 NCL, …
    package var matrix: Int32
    /// Pixel (sample) aspect ratio, width : height of one pixel; 1:1 for square pixels.
    package var sampleAspectRatio: (width: Int32, height: Int32)

    /// A description; see the properties.
    package init(range: Int32, primaries: Int32, transfer: Int32, matrix: Int32, sampleAspectRatio: (width: Int32, height: Int32) = (1, 1)) {
        self.range = range
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.sampleAspectRatio = sampleAspectRatio
    }

    /// BT.709 primaries, transfer and matrix, video range, square pixels: what segrec's
    /// synthetic sensor declares (its pattern is drawn straight in video-range YCbCr, 16–235
    /// luma, so no other matrix is truer) and what players assume for HD pictures.
    package static let bt709VideoRange = PictureDescription(
        range: Int32(AVCOL_RANGE_MPEG.rawValue), primaries: Int32(AVCOL_PRI_BT709.rawValue), transfer: Int32(AVCOL_TRC_BT709.rawValue),
        matrix: Int32(AVCOL_SPC_BT709.rawValue))

    /// BT.601 (SMPTE 170M primaries, transfer and matrix), video range, square pixels: what
    /// players assume for standard-definition pictures (576 lines or fewer) that state nothing.
    package static let bt601VideoRange = PictureDescription(
        range: Int32(AVCOL_RANGE_MPEG.rawValue), primaries: Int32(AVCOL_PRI_SMPTE170M.rawValue), transfer: Int32(AVCOL_TRC_SMPTE170M.rawValue),
        matrix: Int32(AVCOL_SPC_SMPTE170M.rawValue))

    /// What players assume for a picture of `dimensions` that states no colour: BT.709 from
    /// 720 lines or 1280 columns up, else BT.601 (the rule of FFmpeg's and browsers' players).
    package static func assumed(for dimensions: VideoDimensions) -> PictureDescription {
        dimensions.height >= 720 || dimensions.width >= 1280 ? .bt709VideoRange : .bt601VideoRange
    }

    /// `range/primaries/transfer/matrix` in FFmpeg's (and ffprobe's) names, e.g.
    /// `tv/bt709/bt709/bt709`, then the pixel aspect ratio, e.g. `SAR 1:1`.
    package var description: String {
        func name(_ c: UnsafePointer<CChar>?) -> String { c.map { String(cString: $0) } ?? "unknown" }
        let range = name(av_color_range_name(AVColorRange(UInt32(bitPattern: self.range))))
        let primaries = name(av_color_primaries_name(AVColorPrimaries(UInt32(bitPattern: self.primaries))))
        let transfer = name(av_color_transfer_name(AVColorTransferCharacteristic(UInt32(bitPattern: self.transfer))))
        let matrix = name(av_color_space_name(AVColorSpace(UInt32(bitPattern: self.matrix))))
        return "\(range)/\(primaries)/\(transfer)/\(matrix), SAR \(sampleAspectRatio.width):\(sampleAspectRatio.height)"
    }

    package static func == (a: PictureDescription, b: PictureDescription) -> Bool {
        a.range == b.range && a.primaries == b.primaries && a.transfer == b.transfer && a.matrix == b.matrix
            && a.sampleAspectRatio.width == b.sampleAspectRatio.width && a.sampleAspectRatio.height == b.sampleAspectRatio.height
    }

    package func hash(into hasher: inout Hasher) {
        for v in [range, primaries, transfer, matrix, sampleAspectRatio.width, sampleAspectRatio.height] { hasher.combine(v) }
    }

    /// The description of a decoded picture of pixel format `format` after
    /// `PictureConverter` made it NV12 or kept it yuv420p: every field the frame states is
    /// kept, except what the conversion changes (RGB and palette become BT.601 video-range
    /// YCbCr, libswscale's default matrix; `yuvj*` full range becomes video range); a field
    /// the frame leaves unspecified gets what players assume for its size
    /// (``assumed(for:)``), and `assumedFields` names those fields. A pixel aspect ratio of
    /// 0 (unknown) is 1:1.
    static func of(_ frame: UnsafePointer<AVFrame>, format: AVPixelFormat, dimensions: VideoDimensions) -> (PictureDescription, assumedFields: [String]) {
        let f = frame.pointee
        return of(
            range: f.color_range, primaries: f.color_primaries, transfer: f.color_trc, matrix: f.colorspace, sampleAspectRatio: f.sample_aspect_ratio,
            format: format, dimensions: dimensions)
    }

    /// The same for a stream's codec parameters (what its pictures will be, before one is decoded).
    static func of(_ parameters: UnsafePointer<AVCodecParameters>) -> (PictureDescription, assumedFields: [String]) {
        let p = parameters.pointee
        return of(
            range: p.color_range, primaries: p.color_primaries, transfer: p.color_trc, matrix: p.color_space, sampleAspectRatio: p.sample_aspect_ratio,
            format: AVPixelFormat(rawValue: p.format), dimensions: VideoDimensions(width: Int(p.width) & ~1, height: Int(p.height) & ~1))
    }

    private static func of(
        range: AVColorRange, primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic, matrix: AVColorSpace, sampleAspectRatio: AVRational,
        format: AVPixelFormat, dimensions: VideoDimensions
    ) -> (PictureDescription, assumedFields: [String]) {
        let assumed = Self.assumed(for: dimensions)
        let descriptor = av_pix_fmt_desc_get(format)
        let flags = descriptor?.pointee.flags ?? 0
        let isRGB = (flags & UInt64(AV_PIX_FMT_FLAG_RGB)) != 0 || (flags & UInt64(AV_PIX_FMT_FLAG_PAL)) != 0
        let isFullRangeFormat = (descriptor.map { String(cString: $0.pointee.name) } ?? "").hasPrefix("yuvj")
        var fields: [String] = []
        var result = assumed
        if isRGB || isFullRangeFormat {
            result.range = Int32(AVCOL_RANGE_MPEG.rawValue)
        } else if range != AVCOL_RANGE_UNSPECIFIED {
            result.range = Int32(range.rawValue)
        } else {
            fields.append("range")
        }
        if isRGB {
            result.matrix = Int32(AVCOL_SPC_SMPTE170M.rawValue)
        } else if matrix != AVCOL_SPC_UNSPECIFIED && matrix != AVCOL_SPC_RESERVED {
            result.matrix = Int32(matrix.rawValue)
        } else {
            fields.append("matrix")
        }
        if primaries != AVCOL_PRI_UNSPECIFIED && primaries != AVCOL_PRI_RESERVED && primaries != AVCOL_PRI_RESERVED0 {
            result.primaries = Int32(primaries.rawValue)
        } else {
            fields.append("primaries")
        }
        if transfer != AVCOL_TRC_UNSPECIFIED && transfer != AVCOL_TRC_RESERVED && transfer != AVCOL_TRC_RESERVED0 {
            result.transfer = Int32(transfer.rawValue)
        } else {
            fields.append("transfer")
        }
        if sampleAspectRatio.num > 0, sampleAspectRatio.den > 0 {
            var num = sampleAspectRatio.num
            var den = sampleAspectRatio.den
            let g = gcd(num, den)
            num /= g
            den /= g
            result.sampleAspectRatio = (num, den)
        }
        return (result, fields)
    }

    private static func gcd(_ a: Int32, _ b: Int32) -> Int32 { b == 0 ? max(1, a) : gcd(b, a % b) }
}
