// RawFrameLayout: the bytes of one raw picture (FFmpeg's packed plane layout, align 1), its bounds, and whether it can be read straight into pool planes.
import CFFmpeg

/// How the bytes of one picture of a raw frame stream lie: FFmpeg's planes one after the
/// other with no padding between rows (`av_image_get_buffer_size(…, align: 1)`, what the
/// `rawvideo` and `yuv4mpegpipe` demuxers cut packets by and the `rawvideo` decoder lays
/// its planes on).
///
/// Bounds (so that no number read from an input sizes an allocation beyond them): width and
/// height 1…``maximumSide`` and at most ``maximumFrameBytes`` a picture.
struct RawFrameLayout: Equatable {
    let format: AVPixelFormat
    let width: Int
    let height: Int
    /// Bytes of one picture.
    let frameBytes: Int

    /// Largest width or height: 16384 (x264's and most decoders' limit).
    static let maximumSide = 16384
    /// Largest picture: 512 MiB (16384x16384 4:2:0 8-bit is 384 MiB).
    static let maximumFrameBytes = 512 << 20

    /// Why a size or format cannot be read.
    enum Problem: Error, Equatable {
        /// FFmpeg's own refusal (`av_image_get_buffer_size` logged it: "Picture size 0x10 is invalid").
        case invalidSize(String)
        case tooLarge(String)
        case unsupportedFormat
    }

    /// The layout of `width` x `height` pictures in `format`.
    /// - Throws: ``Problem/invalidSize(_:)`` with FFmpeg's sentence when FFmpeg refuses the
    ///   size; ``Problem/tooLarge(_:)`` beyond the bounds; ``Problem/unsupportedFormat``
    ///   for a format this reader leaves to libavformat (see ``isReadable(_:)``).
    init(format: AVPixelFormat, width: Int32, height: Int32) throws(Problem) {
        guard Self.isReadable(format) else { throw .unsupportedFormat }
        let (size, logged) = FFmpegLog.errorLines { av_image_get_buffer_size(format, width, height, 1) }
        guard size > 0 else {
            throw .invalidSize(logged.last.map(FFmpegError.sentence) ?? "Picture size \(UInt32(bitPattern: width))x\(UInt32(bitPattern: height)) is invalid")
        }
        guard width <= Self.maximumSide, height <= Self.maximumSide, Int(size) <= Self.maximumFrameBytes else {
            throw .tooLarge(
                "\(width)x\(height) \(PictureConverter.name(of: format)) is \(size) bytes a picture; allowed: width and height 1–\(Self.maximumSide), at most \(Self.maximumFrameBytes >> 20) MiB a picture"
            )
        }
        self.format = format
        self.width = Int(width)
        self.height = Int(height)
        frameBytes = Int(size)
    }

    /// Whether pictures in `format` are read here: formats whose every sample takes whole
    /// bytes (8 to 16 bits a component: planar and semi-planar YUV, gray, packed YUV and
    /// RGB), which the `rawvideo` decoder hands out as the bytes read. Palette, bitstream,
    /// Bayer, float and hardware formats stay with libavformat and libavcodec.
    static func isReadable(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        let d = descriptor.pointee
        let excluded = UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BAYER | AV_PIX_FMT_FLAG_FLOAT)
        guard d.flags & excluded == 0, d.nb_components > 0 else { return false }
        let components = [d.comp.0, d.comp.1, d.comp.2, d.comp.3].prefix(Int(d.nb_components))
        return components.allSatisfy { $0.depth >= 8 && $0.depth <= 16 }
    }

    /// The pool-plane layout a picture is read into as it is, with no conversion: NV12
    /// always, yuv420p when the consumer keeps yuv420p; only at an even size (an odd one is
    /// cropped, which moves the planes). Nil: the picture is read into a reused frame and
    /// converted (``PictureConverter``).
    func directLayout(keepsYUV420P: Bool) -> PixelBuffer.PixelFormat? {
        guard width % 2 == 0, height % 2 == 0 else { return nil }
        if format == AV_PIX_FMT_NV12 { return .nv12 }
        if format == AV_PIX_FMT_YUV420P && keepsYUV420P { return .yuv420p }
        return nil
    }
}
