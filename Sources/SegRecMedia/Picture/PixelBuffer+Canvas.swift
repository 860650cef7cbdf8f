extension PixelBuffer {
    /// Video-range black: luma 16, Cb and Cr 128 (what every ``PixelBuffer`` from
    /// `VideoFileDecoder` holds: its conversion makes full range video range).
    package static let blackLuma: UInt8 = 16
    /// The chroma of black (and of any grey).
    package static let neutralChroma: UInt8 = 128

    /// This NV12 picture copied onto a black canvas of `canvas` pixels with its top-left
    /// corner at (`x`, `y`), as a new packed NV12 buffer whose planes carry
    /// ``PixelBuffer/planePadding`` (so the encoder takes it without a copy): the
    /// padding step of a letterbox or pillarbox (``CanvasPlacement``). Returns the picture
    /// itself when it already is the canvas.
    /// Precondition: NV12; `x`, `y` even; the picture lies inside the canvas.
    /// - Parameter pixelBufferPool: where the new planes come from.
    package func placed(onCanvas canvas: VideoDimensions, x: Int, y: Int, pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        precondition(pixelFormat == .nv12, "placed(onCanvas:) takes NV12")
        precondition(
            x >= 0 && y >= 0 && x % 2 == 0 && y % 2 == 0 && x + width <= canvas.width && y + height <= canvas.height,
            "\(dimensions) at (\(x), \(y)) is not inside \(canvas)")
        if x == 0, y == 0, dimensions == canvas { return self }
        let stride = canvas.width
        var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: stride, height: canvas.height))
        var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: stride, height: canvas.height))
        luma.withUnsafeMutableBytes { destination in
            destination.initializeMemory(as: UInt8.self, repeating: Self.blackLuma)
            lumaPlane.withUnsafeBytes { source in
                for row in 0..<height {
                    (destination.baseAddress! + (y + row) * stride + x).copyMemory(from: source.baseAddress! + row * lumaBytesPerRow, byteCount: width)
                }
            }
        }
        chroma.withUnsafeMutableBytes { destination in
            destination.initializeMemory(as: UInt8.self, repeating: Self.neutralChroma)
            chromaPlane.withUnsafeBytes { source in
                for row in 0..<(height / 2) {
                    (destination.baseAddress! + (y / 2 + row) * stride + x).copyMemory(from: source.baseAddress! + row * chromaBytesPerRow, byteCount: width)
                }
            }
        }
        var buffer = PixelBuffer(
            width: canvas.width, height: canvas.height, lumaPlane: consume luma, lumaBytesPerRow: stride, chromaPlane: consume chroma, chromaBytesPerRow: stride
        )
        buffer.clearPadding()
        return buffer
    }
}
