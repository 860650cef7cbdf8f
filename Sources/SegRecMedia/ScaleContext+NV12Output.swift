import CFFmpeg

extension ScaleContext {
    /// `sws_scale` of a whole source picture (planes and strides in the context's source
    /// format and size; planes padded as FFmpeg's are) into a new NV12 ``PixelBuffer`` of
    /// the context's destination size, which must be NV12 and even: packed rows, and
    /// ``PixelBuffer/planePadding`` bytes after each plane, which `sws_scale` may write
    /// (12 bytes past the last row for a 2-pixel-wide picture).
    /// - Parameter pixelBufferPool: where the new buffer's planes come from.
    func scaleToNV12(sourcePlanes: [UnsafePointer<UInt8>?], sourceStrides: [Int32], pixelBufferPool: PixelBufferPool) throws(FFmpegError) -> PixelBuffer {
        let width = destinationWidth
        let height = destinationHeight
        // Pooled planes (recycled after encoding); sws_scale writes every row.
        var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: width, height: height))
        var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: width, height: height))
        let rows: Int32 = luma.withUnsafeMutableBufferPointer { l in
            chroma.withUnsafeMutableBufferPointer { c in
                let destination: [UnsafeMutablePointer<UInt8>?] = [l.baseAddress, c.baseAddress, nil, nil]
                let strides: [Int32] = [Int32(width), Int32(width), 0, 0]
                return sws_scale(pointer, sourcePlanes, sourceStrides, 0, Int32(self.height), destination, strides)
            }
        }
        try check(rows, "sws_scale", context: "\(self.width)x\(self.height) → \(width)x\(height)")
        var buffer = PixelBuffer(
            width: width, height: height, lumaPlane: consume luma, lumaBytesPerRow: width, chromaPlane: consume chroma, chromaBytesPerRow: width)
        buffer.clearPadding()  // sws_scale may have written past the last row
        return buffer
    }
}
