import CFFmpeg

/// Resizes NV12 pictures with libswscale's bicubic filter (`sws_scale`, `SWS_BICUBIC`): the
/// Swift face of libswscale for layers that see only ``PixelBuffer`` values, never FFmpeg's
/// C types.
///
/// It keeps the `SwsContext` of the last source and destination sizes and makes a new one
/// when either changes, so scaling a stream of same-size pictures costs one context.
///
/// Not `Sendable`: it owns a C context; use it from one task.
package final class PictureScaler {
    /// Where the planes of the pictures it makes come from.
    package let pixelBufferPool: PixelBufferPool
    private var context: ScaleContext?

    /// Creates a scaler; the libswscale context is made on the first ``scaled(_:to:)``.
    /// - Parameter pixelBufferPool: where the planes of scaled pictures come from; default
    ///   a pool of its own; pass the recording's pool, which the muxer's writers
    ///   recycle encoded pictures into.
    package init(pixelBufferPool: PixelBufferPool = PixelBufferPool()) { self.pixelBufferPool = pixelBufferPool }

    /// `picture` resized to `destination` (bicubic) as a new NV12 buffer with packed rows
    /// and padded planes (``PixelBuffer/planePadding``);
    /// `picture` itself when it already has that size. New planes come from
    /// ``pixelBufferPool``.
    /// - Parameters:
    ///   - picture: the source picture, any strides.
    ///   - destination: the output size in pixels (even and positive).
    /// - Throws: ``FFmpegError`` when libswscale cannot make a context for these sizes or
    ///   fails to scale.
    package func scaled(_ picture: PixelBuffer, to destination: VideoDimensions) throws(FFmpegError) -> PixelBuffer {
        precondition(
            destination.width > 0 && destination.height > 0 && destination.width % 2 == 0 && destination.height % 2 == 0,
            "NV12 needs even, positive dimensions, got \(destination)")
        if picture.dimensions == destination { return picture }
        let scaler = try context(from: picture.dimensions, to: destination)
        return try picture.withPaddedPlanes { (planes, strides) throws(FFmpegError) in
            try scaler.scaleToNV12(sourcePlanes: planes, sourceStrides: strides, pixelBufferPool: pixelBufferPool)
        }
    }

    /// The cached context for `source` → `destination`, made anew when the sizes changed.
    private func context(from source: VideoDimensions, to destination: VideoDimensions) throws(FFmpegError) -> ScaleContext {
        if let context, context.width == source.width, context.height == source.height, context.destinationWidth == destination.width,
            context.destinationHeight == destination.height
        {
            return context
        }
        let made = try ScaleContext(
            sourceWidth: source.width, sourceHeight: source.height, source: AV_PIX_FMT_NV12, destinationWidth: destination.width,
            destinationHeight: destination.height, destination: AV_PIX_FMT_NV12, flags: SWS_BICUBIC)
        context = made
        return made
    }
}
