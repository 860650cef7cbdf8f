/// One uncompressed 8-bit 4:2:0 picture: the analog of a `CVPixelBuffer` in iOS's
/// `kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange` ("420v", NV12: the capture format) or
/// `kCVPixelFormatType_420YpCbCr8Planar` ("y420", yuv420p: what most video files decode
/// to, kept as decoded so that it reaches the encoder without a conversion pass).
///
/// - Plane 0 (luma, Y): `height` rows of `lumaBytesPerRow` bytes, video range 16...235.
/// - ``pixelFormat`` `.nv12`: plane 1 (chroma, interleaved Cb Cr) holds `height / 2` rows of
///   `chromaBytesPerRow` (≥ width) bytes; each pair of bytes covers 2x2 luma pixels
///   (FFmpeg's `AV_PIX_FMT_NV12`).
/// - ``pixelFormat`` `.yuv420p`: plane 1 holds the Cb plane's `height / 2` rows followed by
///   the Cr plane's `height / 2` rows, each `chromaBytesPerRow` (≥ width / 2) bytes, one byte
///   per 2x2 luma pixels (FFmpeg's `AV_PIX_FMT_YUV420P`, planes stored back to back as in
///   an I420 file).
///
/// Width and height are even (4:2:0 subsampling). Rows are tightly packed
/// (`bytesPerRow == width`, or `width / 2` for planar chroma) unless a producer says
/// otherwise. A plane may be longer than its rows: producers whose planes go to FFmpeg add
/// `planePadding` bytes after the last row (`hasPlanePadding`), as FFmpeg's own buffers
/// have.
public struct PixelBuffer: Sendable {
    /// The layout of the chroma samples.
    public enum PixelFormat: Sendable, Equatable {
        /// Interleaved CbCr (NV12, iOS's "420v").
        case nv12
        /// Separate Cb and Cr planes, stored back to back (yuv420p, iOS's "y420").
        case yuv420p
    }

    /// Width in pixels (even).
    public let width: Int
    /// Height in pixels (even).
    public let height: Int
    /// The chroma layout (NV12 unless a producer keeps a decoded planar picture).
    public let pixelFormat: PixelFormat
    /// Y plane, `lumaBytesPerRow · height` bytes.
    public var lumaPlane: [UInt8]
    /// Chroma: `chromaBytesPerRow · chromaRows` bytes (see the type's description).
    public var chromaPlane: [UInt8]
    /// Bytes per luma row (≥ width).
    public let lumaBytesPerRow: Int
    /// Bytes per chroma row (≥ `minimumChromaBytesPerRow(width:pixelFormat:)`).
    public let chromaBytesPerRow: Int

    /// Wraps existing planes. Preconditions: even, positive dimensions; planes large
    /// enough for their strides.
    /// - Parameter pixelFormat: the layout of `chromaPlane` (default NV12).
    public init(
        width: Int, height: Int, lumaPlane: [UInt8], lumaBytesPerRow: Int, chromaPlane: [UInt8], chromaBytesPerRow: Int, pixelFormat: PixelFormat = .nv12
    ) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "4:2:0 needs even, positive dimensions, got \(width)x\(height)")
        precondition(lumaBytesPerRow >= width && lumaPlane.count >= lumaBytesPerRow * height)
        precondition(
            chromaBytesPerRow >= Self.minimumChromaBytesPerRow(width: width, pixelFormat: pixelFormat)
                && chromaPlane.count >= chromaBytesPerRow * Self.chromaRows(height: height, pixelFormat: pixelFormat))
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.lumaPlane = lumaPlane
        self.chromaPlane = chromaPlane
        self.lumaBytesPerRow = lumaBytesPerRow
        self.chromaBytesPerRow = chromaBytesPerRow
    }

    /// Bytes of chroma per row of a packed picture `width` pixels wide: `width` for NV12
    /// (Cb Cr pairs), `width / 2` for planar.
    package static func minimumChromaBytesPerRow(width: Int, pixelFormat: PixelFormat) -> Int { pixelFormat == .nv12 ? width : width / 2 }

    /// Rows of the chroma plane: `height / 2` for NV12, `height` for planar (Cb then Cr).
    package static func chromaRows(height: Int, pixelFormat: PixelFormat) -> Int { pixelFormat == .nv12 ? height / 2 : height }

    /// Rows of this picture's chroma plane (see ``chromaRows(height:pixelFormat:)``).
    package var chromaRows: Int { Self.chromaRows(height: height, pixelFormat: pixelFormat) }

    /// A tightly packed buffer filled with mid-grey (Y 128, Cb 128, Cr 128).
    public init(width: Int, height: Int) {
        self.init(
            width: width, height: height, lumaPlane: [UInt8](repeating: 128, count: width * height), lumaBytesPerRow: width,
            chromaPlane: [UInt8](repeating: 128, count: width * (height / 2)), chromaBytesPerRow: width)
    }

    /// The picture's dimensions.
    public var dimensions: VideoDimensions { VideoDimensions(width: width, height: height) }

    /// Bytes after the last row of a plane that libswscale and libavcodec may read or
    /// write (their SIMD loops run up to 16 pixels past a row's end: a 2-pixel-wide
    /// picture's last row overruns by 12 bytes): FFmpeg's `AV_INPUT_BUFFER_PADDING_SIZE`
    /// (64), the padding `av_frame_get_buffer` and `av_image_alloc` add.
    package static let planePadding = 64

    /// Luma plane length for `height` rows of `bytesPerRow` bytes plus ``planePadding``.
    package static func paddedLumaByteCount(bytesPerRow: Int, height: Int) -> Int { bytesPerRow * height + planePadding }

    /// Chroma plane length for the rows of a `height`-row picture (`height / 2` for NV12,
    /// `height` for planar) of `bytesPerRow` bytes plus ``planePadding``.
    package static func paddedChromaByteCount(bytesPerRow: Int, height: Int, pixelFormat: PixelFormat = .nv12) -> Int {
        bytesPerRow * chromaRows(height: height, pixelFormat: pixelFormat) + planePadding
    }

    /// Zeroes every byte after the last row of each plane (the padding), so that two
    /// pictures with the same pixels compare equal whatever FFmpeg left there.
    package mutating func clearPadding() {
        let lumaEnd = lumaBytesPerRow * height
        let chromaEnd = chromaBytesPerRow * chromaRows
        if lumaPlane.count > lumaEnd { lumaPlane.withUnsafeMutableBufferPointer { $0[lumaEnd...].update(repeating: 0) } }
        if chromaPlane.count > chromaEnd { chromaPlane.withUnsafeMutableBufferPointer { $0[chromaEnd...].update(repeating: 0) } }
    }

    /// Whether both planes hold at least ``planePadding`` bytes after their last row, so
    /// they may be handed to libswscale as they are.
    package var hasPlanePadding: Bool {
        lumaPlane.count >= Self.paddedLumaByteCount(bytesPerRow: lumaBytesPerRow, height: height)
            && chromaPlane.count >= Self.paddedChromaByteCount(bytesPerRow: chromaBytesPerRow, height: height, pixelFormat: pixelFormat)
    }
}
