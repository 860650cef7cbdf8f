extension PixelBuffer {
    /// Calls `body` with the plane addresses and strides in FFmpeg's order (NV12: Y, CbCr;
    /// yuv420p: Y, Cb, Cr), on storage that holds ``PixelBuffer/planePadding`` bytes after
    /// each plane's last row, as libswscale's SIMD loops need (they read past a row's end):
    /// the planes themselves when they carry the padding, else padded copies (a tightly
    /// sized plane handed to `sws_scale` is read out of bounds for small widths).
    /// - Throws: what `body` throws.
    func withPaddedPlanes<R>(_ body: (_ planes: [UnsafePointer<UInt8>?], _ strides: [Int32]) throws(FFmpegError) -> R) throws(FFmpegError) -> R {
        var luma = lumaPlane
        var chroma = chromaPlane
        if !hasPlanePadding {
            luma.append(contentsOf: repeatElement(0, count: max(0, Self.paddedLumaByteCount(bytesPerRow: lumaBytesPerRow, height: height) - luma.count)))
            chroma.append(
                contentsOf: repeatElement(
                    128, count: max(0, Self.paddedChromaByteCount(bytesPerRow: chromaBytesPerRow, height: height, pixelFormat: pixelFormat) - chroma.count)))
        }
        let crOffset = chromaBytesPerRow * (height / 2)
        let result: Result<R, FFmpegError> = luma.withUnsafeBufferPointer { l in
            chroma.withUnsafeBufferPointer { c in
                do throws(FFmpegError) {
                    switch pixelFormat {
                    case .nv12: return .success(try body([l.baseAddress, c.baseAddress, nil, nil], [Int32(lumaBytesPerRow), Int32(chromaBytesPerRow), 0, 0]))
                    case .yuv420p:
                        return .success(
                            try body(
                                [l.baseAddress, c.baseAddress, c.baseAddress! + crOffset, nil],
                                [Int32(lumaBytesPerRow), Int32(chromaBytesPerRow), Int32(chromaBytesPerRow), 0]))
                    }
                } catch { return .failure(error) }
            }
        }
        return try result.get()
    }
}
