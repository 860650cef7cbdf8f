/// One uncompressed picture in NV12: the analog of a `CVPixelBuffer` in iOS's
/// `kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange` ("420v") layout.
///
/// - Plane 0 (luma, Y): `height` rows of `lumaBytesPerRow` bytes, video range 16...235.
/// - Plane 1 (chroma, interleaved Cb Cr): `height / 2` rows of `chromaBytesPerRow` bytes;
///   each pair of bytes covers 2x2 luma pixels. FFmpeg calls this layout `AV_PIX_FMT_NV12`.
///
/// Width and height are even (4:2:0 subsampling). Rows are tightly packed
/// (`bytesPerRow == width`) unless a producer says otherwise. A plane may be longer than
/// its rows: producers whose planes go to FFmpeg add ``planePadding`` bytes after the last
/// row (``hasPlanePadding``), as FFmpeg's own buffers have.
public struct PixelBuffer: Sendable {
    /// Width in pixels (even).
    public let width: Int
    /// Height in pixels (even).
    public let height: Int
    /// Y plane, `lumaBytesPerRow · height` bytes.
    public var lumaPlane: [UInt8]
    /// Interleaved CbCr plane, `chromaBytesPerRow · height / 2` bytes.
    public var chromaPlane: [UInt8]
    /// Bytes per luma row (≥ width).
    public let lumaBytesPerRow: Int
    /// Bytes per chroma row (≥ width).
    public let chromaBytesPerRow: Int

    /// Wraps existing NV12 planes. Preconditions: even, positive dimensions; planes large
    /// enough for their strides.
    public init(width: Int, height: Int, lumaPlane: [UInt8], lumaBytesPerRow: Int,
                chromaPlane: [UInt8], chromaBytesPerRow: Int) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0,
                     "NV12 needs even, positive dimensions, got \(width)x\(height)")
        precondition(lumaBytesPerRow >= width && lumaPlane.count >= lumaBytesPerRow * height)
        precondition(chromaBytesPerRow >= width && chromaPlane.count >= chromaBytesPerRow * (height / 2))
        self.width = width
        self.height = height
        self.lumaPlane = lumaPlane
        self.chromaPlane = chromaPlane
        self.lumaBytesPerRow = lumaBytesPerRow
        self.chromaBytesPerRow = chromaBytesPerRow
    }

    /// A tightly packed buffer filled with mid-grey (Y 128, Cb 128, Cr 128).
    public init(width: Int, height: Int) {
        self.init(width: width, height: height,
                  lumaPlane: [UInt8](repeating: 128, count: width * height), lumaBytesPerRow: width,
                  chromaPlane: [UInt8](repeating: 128, count: width * (height / 2)), chromaBytesPerRow: width)
    }

    /// The picture's dimensions.
    public var dimensions: VideoDimensions { VideoDimensions(width: width, height: height) }

    /// Bytes after the last row of a plane that libswscale and libavcodec may read or
    /// write (their SIMD loops run up to 16 pixels past a row's end: a 2-pixel-wide
    /// picture's last row overruns by 12 bytes): FFmpeg's `AV_INPUT_BUFFER_PADDING_SIZE`
    /// (64), the padding `av_frame_get_buffer` and `av_image_alloc` add.
    public static let planePadding = 64

    /// Luma plane length for `height` rows of `bytesPerRow` bytes plus ``planePadding``.
    public static func paddedLumaByteCount(bytesPerRow: Int, height: Int) -> Int {
        bytesPerRow * height + planePadding
    }

    /// Chroma plane length for `height / 2` rows of `bytesPerRow` bytes plus ``planePadding``.
    public static func paddedChromaByteCount(bytesPerRow: Int, height: Int) -> Int {
        bytesPerRow * (height / 2) + planePadding
    }

    /// Zeroes every byte after the last row of each plane (the padding), so that two
    /// pictures with the same pixels compare equal whatever FFmpeg left there.
    public mutating func clearPadding() {
        let lumaEnd = lumaBytesPerRow * height, chromaEnd = chromaBytesPerRow * (height / 2)
        if lumaPlane.count > lumaEnd {
            lumaPlane.withUnsafeMutableBufferPointer { $0[lumaEnd...].update(repeating: 0) }
        }
        if chromaPlane.count > chromaEnd {
            chromaPlane.withUnsafeMutableBufferPointer { $0[chromaEnd...].update(repeating: 0) }
        }
    }

    /// Whether both planes hold at least ``planePadding`` bytes after their last row, so
    /// they may be handed to libswscale as they are.
    public var hasPlanePadding: Bool {
        lumaPlane.count >= Self.paddedLumaByteCount(bytesPerRow: lumaBytesPerRow, height: height)
            && chromaPlane.count >= Self.paddedChromaByteCount(bytesPerRow: chromaBytesPerRow, height: height)
    }
}
