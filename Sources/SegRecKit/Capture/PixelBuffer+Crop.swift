extension PixelBuffer {
    /// The centred `dimensions` region of this picture, as a new tightly packed buffer. The
    /// origin is rounded down to even pixels so the 4:2:0 chroma stays aligned.
    /// Precondition: `dimensions` are even and fit inside the picture.
    /// - Parameters:
    ///   - dimensions: the size of the region, in pixels.
    ///   - pixelBufferPool: where the new buffer's planes come from:
    ///     the recording's pool. Not used when the picture is returned as it is
    ///     (already `dimensions` and packed).
    public func centreCropped(to dimensions: VideoDimensions,
                              pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        if dimensions == self.dimensions && lumaBytesPerRow == width && chromaBytesPerRow == width { return self }
        let w = dimensions.width, h = dimensions.height
        precondition(w <= width && h <= height && w % 2 == 0 && h % 2 == 0,
                     "cannot crop \(width)x\(height) to \(dimensions)")
        let x0 = ((width - w) / 2) & ~1, y0 = ((height - h) / 2) & ~1
        return cropped(x: x0, y: y0, dimensions: dimensions, pixelBufferPool: pixelBufferPool)
    }

    /// The region at (`x`, `y`) (both even) of size `dimensions`, as a new packed buffer
    /// whose planes carry ``PixelBuffer/planePadding``.
    /// - Parameters:
    ///   - x: left edge in pixels (even).
    ///   - y: top edge in pixels (even).
    ///   - dimensions: the size of the region, in pixels (even; inside the picture).
    ///   - pixelBufferPool: where the new buffer's planes come from:
    ///     the recording's pool.
    public func cropped(x: Int, y: Int, dimensions: VideoDimensions,
                        pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        let w = dimensions.width, h = dimensions.height
        precondition(x % 2 == 0 && y % 2 == 0 && x + w <= width && y + h <= height)
        // Pooled planes (recycled after encoding); every row is written below. The padding
        // after the last row is for libswscale, which may scale this crop next.
        var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: w, height: h))
        var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: w, height: h))
        lumaPlane.withUnsafeBufferPointer { source in
            luma.withUnsafeMutableBufferPointer { plane in
                for row in 0..<h {
                    (plane.baseAddress! + row * w)
                        .update(from: source.baseAddress! + (y + row) * lumaBytesPerRow + x, count: w)
                }
            }
        }
        chromaPlane.withUnsafeBufferPointer { source in
            chroma.withUnsafeMutableBufferPointer { plane in
                for row in 0..<(h / 2) {
                    (plane.baseAddress! + row * w)
                        .update(from: source.baseAddress! + (y / 2 + row) * chromaBytesPerRow + x, count: w)
                }
            }
        }
        var buffer = PixelBuffer(width: w, height: h, lumaPlane: luma, lumaBytesPerRow: w,
                                 chromaPlane: chroma, chromaBytesPerRow: w)
        buffer.clearPadding()
        return buffer
    }
}
