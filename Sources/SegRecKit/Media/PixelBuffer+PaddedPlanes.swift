extension PixelBuffer {
    /// Calls `body` with the luma and chroma plane addresses and strides, on storage that
    /// holds ``PixelBuffer/planePadding`` bytes after each plane's last row, as libswscale's
    /// SIMD loops need (they read past a row's end): the planes themselves when they carry
    /// the padding, else padded copies (a tightly sized plane handed to `sws_scale` is read
    /// out of bounds for small widths).
    /// - Throws: what `body` throws.
    func withPaddedPlanes<R>(_ body: (_ planes: [UnsafePointer<UInt8>?], _ strides: [Int32]) throws(FFmpegError) -> R)
        throws(FFmpegError) -> R {
        let strides: [Int32] = [Int32(lumaBytesPerRow), Int32(chromaBytesPerRow), 0, 0]
        var luma = lumaPlane, chroma = chromaPlane
        if !hasPlanePadding {
            luma.append(contentsOf: repeatElement(0, count: max(0, Self.paddedLumaByteCount(
                bytesPerRow: lumaBytesPerRow, height: height) - luma.count)))
            chroma.append(contentsOf: repeatElement(128, count: max(0, Self.paddedChromaByteCount(
                bytesPerRow: chromaBytesPerRow, height: height) - chroma.count)))
        }
        let result: Result<R, FFmpegError> = luma.withUnsafeBufferPointer { l in
            chroma.withUnsafeBufferPointer { c in
                do throws(FFmpegError) {
                    return .success(try body([l.baseAddress, c.baseAddress, nil, nil], strides))
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }
}
