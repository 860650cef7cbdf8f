extension PixelBuffer {
    /// The centred `dimensions` region of this picture, as a new tightly packed buffer. The
    /// origin is rounded down to even pixels so the 4:2:0 chroma stays aligned.
    /// Precondition: `dimensions` are even and fit inside the picture.
    /// - Parameters:
    ///   - dimensions: the size of the region, in pixels.
    ///   - pixelBufferPool: where the new buffer's planes come from:
    ///     the recording's pool. Not used when the picture is returned as it is
    ///     (already `dimensions` and packed).
    package func centreCropped(to dimensions: VideoDimensions, pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        if dimensions == self.dimensions && lumaBytesPerRow == width
            && chromaBytesPerRow == Self.minimumChromaBytesPerRow(width: width, pixelFormat: pixelFormat)
        {
            return self
        }
        let w = dimensions.width
        let h = dimensions.height
        precondition(w <= width && h <= height && w % 2 == 0 && h % 2 == 0, "cannot crop \(width)x\(height) to \(dimensions)")
        let x0 = ((width - w) / 2) & ~1
        let y0 = ((height - h) / 2) & ~1
        return cropped(x: x0, y: y0, dimensions: dimensions, pixelBufferPool: pixelBufferPool)
    }

    /// The region at (`x`, `y`) (both even) of size `dimensions`, as a new packed buffer of
    /// the same ``PixelBuffer/pixelFormat`` whose planes carry ``PixelBuffer/planePadding``.
    /// - Parameters:
    ///   - x: left edge in pixels (even).
    ///   - y: top edge in pixels (even).
    ///   - dimensions: the size of the region, in pixels (even; inside the picture).
    ///   - pixelBufferPool: where the new buffer's planes come from:
    ///     the recording's pool.
    package func cropped(x: Int, y: Int, dimensions: VideoDimensions, pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        let w = dimensions.width
        let h = dimensions.height
        precondition(x % 2 == 0 && y % 2 == 0 && x + w <= width && y + h <= height)
        let chromaStride = Self.minimumChromaBytesPerRow(width: w, pixelFormat: pixelFormat)
        // Pooled planes (recycled after encoding); every row is written below. The padding
        // after the last row is for libswscale, which may scale this crop next.
        var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: w, height: h))
        var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: chromaStride, height: h, pixelFormat: pixelFormat))
        Self.copyRows(h, of: w, from: lumaPlane, stride: lumaBytesPerRow, at: y * lumaBytesPerRow + x, into: &luma, stride: w, at: 0)
        switch pixelFormat {
        case .nv12:
            Self.copyRows(h / 2, of: w, from: chromaPlane, stride: chromaBytesPerRow, at: (y / 2) * chromaBytesPerRow + x, into: &chroma, stride: w, at: 0)
        case .yuv420p:
            // Cb rows, then Cr rows (each plane height / 2 rows).
            for plane in 0..<2 {
                Self.copyRows(
                    h / 2, of: w / 2, from: chromaPlane, stride: chromaBytesPerRow, at: (plane * height / 2 + y / 2) * chromaBytesPerRow + x / 2, into: &chroma,
                    stride: chromaStride, at: plane * (h / 2) * chromaStride)
            }
        }
        var buffer = PixelBuffer(
            width: w, height: h, lumaPlane: consume luma, lumaBytesPerRow: w, chromaPlane: consume chroma, chromaBytesPerRow: chromaStride,
            pixelFormat: pixelFormat)
        buffer.clearPadding()
        return buffer
    }

    /// Copies `rows` rows of `count` bytes from `source` (starting at `sourceStart`, rows
    /// `sourceStride` apart) into `destination` (from `destinationStart`, `destinationStride` apart).
    private static func copyRows(
        _ rows: Int, of count: Int, from source: [UInt8], stride sourceStride: Int, at sourceStart: Int, into destination: inout [UInt8],
        stride destinationStride: Int, at destinationStart: Int
    ) {
        source.withUnsafeBufferPointer { from in
            destination.withUnsafeMutableBufferPointer { to in
                for row in 0..<rows {
                    (to.baseAddress! + destinationStart + row * destinationStride).update(
                        from: from.baseAddress! + sourceStart + row * sourceStride, count: count)
                }
            }
        }
    }
}
