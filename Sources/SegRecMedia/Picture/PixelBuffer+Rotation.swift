extension PixelBuffer {
    /// This picture turned clockwise by `angle`, as a new tightly packed NV12 buffer (what a
    /// player shows for a track whose display matrix says `angle`; `ffmpeg -autorotate`'s
    /// `transpose=clock` for 90, `hflip,vflip` for 180, `transpose=cclock` for 270). A
    /// `width`x`height` picture becomes `height`x`width` for 90 and 270. Luma pixels and
    /// CbCr pairs move exactly (no filtering), so 4:2:0 siting stays aligned.
    ///
    /// - Parameters:
    ///   - angle: the clockwise turn; `.degrees0` returns the picture itself.
    ///   - pixelBufferPool: where the new planes come from (the recording's pool); they
    ///     carry ``PixelBuffer/planePadding`` so libswscale may scale the result.
    package func rotated(_ angle: VideoRotationAngle, pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        guard angle != .degrees0 else { return self }
        let out = angle.rotated(dimensions)
        var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: out.width, height: out.height))
        var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: out.width, height: out.height))
        lumaPlane.withUnsafeBytes { source in
            luma.withUnsafeMutableBytes { destination in
                Self.rotatePlane(
                    UInt8.self, source: source.baseAddress!, sourceStride: lumaBytesPerRow, width: width, height: height, destination: destination.baseAddress!,
                    destinationStride: out.width, angle: angle)
            }
        }
        chromaPlane.withUnsafeBytes { source in
            chroma.withUnsafeMutableBytes { destination in
                // One element = one Cb Cr pair covering 2x2 luma pixels.
                Self.rotatePlane(
                    UInt16.self, source: source.baseAddress!, sourceStride: chromaBytesPerRow, width: width / 2, height: height / 2,
                    destination: destination.baseAddress!, destinationStride: out.width, angle: angle)
            }
        }
        var buffer = PixelBuffer(
            width: out.width, height: out.height, lumaPlane: consume luma, lumaBytesPerRow: out.width, chromaPlane: consume chroma, chromaBytesPerRow: out.width
        )
        buffer.clearPadding()
        return buffer
    }

    /// The region at (`x`, `y`) of size `dimensions` of this picture turned by `angle`,
    /// without turning the rest: the matching region of this picture
    /// (``sourceRegion(ofRotatedRegionAt:dimensions:angle:)``) is cropped, then turned.
    /// Equal, pixel for pixel, to `rotated(angle).cropped(x:y:dimensions:)`.
    /// Precondition: `x`, `y` and `dimensions` even, inside the turned picture.
    package func rotatedRegion(_ angle: VideoRotationAngle, x: Int, y: Int, dimensions: VideoDimensions, pixelBufferPool: PixelBufferPool) -> PixelBuffer {
        let source = sourceRegion(ofRotatedRegionAt: (x, y), dimensions: dimensions, angle: angle)
        return cropped(x: source.x, y: source.y, dimensions: source.dimensions, pixelBufferPool: pixelBufferPool).rotated(
            angle, pixelBufferPool: pixelBufferPool)
    }

    /// Where the region at `origin` of size `dimensions` of this picture turned clockwise
    /// by `angle` lies in this picture (`x`, `y`, size before the turn). Even inputs give
    /// even outputs (the picture's sides are even).
    package func sourceRegion(ofRotatedRegionAt origin: (x: Int, y: Int), dimensions: VideoDimensions, angle: VideoRotationAngle) -> (
        x: Int, y: Int, dimensions: VideoDimensions
    ) {
        let turned = angle.rotated(self.dimensions)
        precondition(
            origin.x >= 0 && origin.y >= 0 && origin.x % 2 == 0 && origin.y % 2 == 0 && dimensions.width % 2 == 0 && dimensions.height % 2 == 0
                && origin.x + dimensions.width <= turned.width && origin.y + dimensions.height <= turned.height,
            "region \(dimensions) at (\(origin.x), \(origin.y)) is not an even region of \(turned)")
        let (rx, ry, rw, rh) = (origin.x, origin.y, dimensions.width, dimensions.height)
        let size = angle.inverse.rotated(dimensions)
        switch angle {
        case .degrees0: return (rx, ry, size)
        case .degrees90: return (ry, height - rx - rw, size)  // turned (x', y') = this (y', h−1−x')
        case .degrees180: return (width - rx - rw, height - ry - rh, size)
        case .degrees270: return (width - ry - rh, rx, size)  // turned (x', y') = this (w−1−y', x')
        }
    }

    /// Tile side for the quarter turns: 64x64 one- or two-byte elements stay in L1 both
    /// as rows read and as columns written.
    private static let rotationTile = 64

    /// Turns a plane of `width`x`height` elements of type `T` clockwise by `angle` into a
    /// plane of `destinationStride` bytes per row. Source element (x, y) goes to
    /// 90: (h−1−y, x); 180: (w−1−x, h−1−y); 270: (y, w−1−x).
    static func rotatePlane<T: FixedWidthInteger>(
        _: T.Type, source: UnsafeRawPointer, sourceStride: Int, width: Int, height: Int, destination: UnsafeMutableRawPointer, destinationStride: Int,
        angle: VideoRotationAngle
    ) {
        let size = MemoryLayout<T>.size
        @inline(__always) func load(_ x: Int, _ y: Int) -> T { source.loadUnaligned(fromByteOffset: y * sourceStride + x * size, as: T.self) }
        @inline(__always) func store(_ value: T, _ x: Int, _ y: Int) {
            destination.storeBytes(of: value, toByteOffset: y * destinationStride + x * size, as: T.self)
        }
        switch angle {
        case .degrees0: for y in 0..<height { (destination + y * destinationStride).copyMemory(from: source + y * sourceStride, byteCount: width * size) }
        case .degrees180:
            for y in 0..<height {
                let dy = height - 1 - y
                for x in 0..<width { store(load(x, y), width - 1 - x, dy) }
            }
        case .degrees90, .degrees270:
            let tile = rotationTile
            for tileY in stride(from: 0, to: height, by: tile) {
                let yEnd = min(tileY + tile, height)
                for tileX in stride(from: 0, to: width, by: tile) {
                    let xEnd = min(tileX + tile, width)
                    if angle == .degrees90 {
                        for y in tileY..<yEnd {
                            let dx = height - 1 - y
                            for x in tileX..<xEnd { store(load(x, y), dx, x) }
                        }
                    } else {
                        for y in tileY..<yEnd { for x in tileX..<xEnd { store(load(x, y), y, width - 1 - x) } }
                    }
                }
            }
        }
    }
}
