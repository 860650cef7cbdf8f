import CFFmpeg

/// A picture of packed 8-bit RGB samples with alpha, as an app's renderer or a camera
/// preview hands it over (`kCVPixelFormatType_32BGRA`, or RGBA): one plane, 4 bytes a
/// pixel, `bytesPerRow` ≥ 4 · `width` (any stride).
public struct PackedPicture: Sendable {
    /// The byte order of a pixel.
    public enum Layout: Sendable, Hashable {
        /// B, G, R, A (`kCVPixelFormatType_32BGRA`, FFmpeg's `bgra`).
        case bgra
        /// R, G, B, A (FFmpeg's `rgba`).
        case rgba
    }

    /// Width in pixels (even, ≥ 2).
    public let width: Int
    /// Height in pixels (even, ≥ 2).
    public let height: Int
    /// The byte order of each pixel.
    public let layout: Layout
    /// Bytes from one row's start to the next (≥ 4 · `width`).
    public let bytesPerRow: Int
    /// The samples, `bytesPerRow · height` bytes at least.
    public let bytes: [UInt8]

    /// A packed picture; see the properties.
    public init(width: Int, height: Int, layout: Layout, bytesPerRow: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.layout = layout
        self.bytesPerRow = bytesPerRow
        self.bytes = bytes
    }

    /// The picture's dimensions.
    public var dimensions: VideoDimensions { VideoDimensions(width: width, height: height) }
}

/// Converts ``PackedPicture``s to NV12 ``PixelBuffer``s with libswscale (`sws_scale`, alpha
/// blended over black), keeping one context per source size and layout.
package final class PackedPictureConverter {
    private let pool: PixelBufferPool
    private var context: ScaleContext?
    private var contextKey: (VideoDimensions, PackedPicture.Layout)?

    /// - Parameter pixelBufferPool: where the NV12 planes come from.
    package init(pixelBufferPool: PixelBufferPool) { pool = pixelBufferPool }

    /// `picture` as NV12 (BT.601 limited range, libswscale's default matrix).
    /// - Throws: ``FFmpegError`` when libswscale cannot convert it; the caller checks sizes
    ///   and strides first.
    package func nv12(_ picture: PackedPicture) throws(FFmpegError) -> PixelBuffer {
        let key = (picture.dimensions, picture.layout)
        if contextKey.map({ $0.0 != key.0 || $0.1 != key.1 }) ?? true {
            context = try ScaleContext(
                sourceWidth: picture.width, sourceHeight: picture.height, source: picture.layout == .bgra ? AV_PIX_FMT_BGRA : AV_PIX_FMT_RGBA,
                destinationWidth: picture.width, destinationHeight: picture.height, destination: AV_PIX_FMT_NV12, flags: PictureConverter.scaleFlags,
                compositeAlphaOverBlack: true)
            contextKey = key
        }
        guard let context else { throw FFmpegError(call: "sws_alloc_context", code: segrec_averror_enomem(), context: "packed picture") }
        return try picture.bytes.withUnsafeBufferPointer { bytes throws(FFmpegError) in
            try context.scaleToNV12(
                sourcePlanes: [bytes.baseAddress, nil, nil, nil], sourceStrides: [Int32(picture.bytesPerRow), 0, 0, 0], pixelBufferPool: pool)
        }
    }
}
