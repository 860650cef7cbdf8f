import Foundation

/// A synthetic square sensor: NV12 pictures of any size whose luma rows 0–15 carry the
/// frame index (``FrameIndexStamp``) and whose remaining pixels show a textured pattern
/// that moves every frame, in luma and chroma, so an encoder does real work.
///
/// Speed: a periodic texture (period ``period`` pixels in both directions, rows
/// ``period`` pixels wider than the widest picture asked for) is computed once; each frame
/// is then assembled with one `memcpy` per row at a per-frame offset (luma moves 5 pixels
/// right and 3 down per frame; chroma 2 pairs right and 1 row down), so there is no
/// per-pixel work in the hot path.
///
/// Concurrency: a non-`Sendable` class (it caches the texture); use it from one task.
package final class SyntheticSensor: SensorImageSource {
    /// Texture period in luma pixels (both directions). Chroma has half of it.
    package let period: Int
    /// Always `true`: every buffer carries its frame index.
    package var stampsFrameIndex: Bool { true }
    /// Where the planes of its pictures come from.
    package let pixelBufferPool: PixelBufferPool
    /// Which camera's look (0 for the single camera): each iPhone Duo camera gets its own
    /// (`pattern(forCameraPosition:)`), so pictures from different cameras differ visibly:
    /// pattern `p > 0` tints the chroma (``tint(of:)``) and moves the texture the other way
    /// along x when `p` is odd.
    package let pattern: Int

    private var textureRowLength = 0
    private var lumaTexture: [UInt8] = []  // period rows × textureRowLength bytes
    private var chromaTexture: [UInt8] = []  // period/2 rows × textureRowLength bytes (Cb Cr pairs)

    /// Creates a sensor.
    /// - Parameters:
    ///   - period: texture period in pixels, a multiple of 4 ≥ 16.
    ///   - pixelBufferPool: where the planes of its pictures come from; default
    ///     a pool of its own; pass the recording's pool, which the muxer's writers
    ///     recycle encoded pictures into (planes come back only to the pool they are recycled into).
    ///   - pattern: the camera look, ≥ 0 (default 0: the single camera's).
    package init(period: Int = 256, pixelBufferPool: PixelBufferPool = PixelBufferPool(), pattern: Int = 0) {
        precondition(period >= 16 && period % 4 == 0, "period must be a multiple of 4, ≥ 16")
        precondition(pattern >= 0, "pattern must be ≥ 0")
        self.period = period
        self.pattern = pattern
        self.pixelBufferPool = pixelBufferPool
    }

    /// The picture of frame `index` at `dimensions`: stamp in rows 0–15, moving texture below.
    /// Never throws; width must be ≥ 32 and height ≥ 16 (the stamp's size), both even.
    package func pixelBuffer(forFrame index: Int64, dimensions: VideoDimensions) -> PixelBuffer {
        let width = dimensions.width
        let height = dimensions.height
        precondition(
            width >= 32 && height >= FrameIndexStamp.rows && width % 2 == 0 && height % 2 == 0,
            "synthetic frames need even dimensions ≥ 32x16, got \(dimensions)")
        ensureTexture(width: width)
        let p = Int64(period)
        let half = Int64(period / 2)
        let frame = index.magnitude
        let forwardX = Int(frame % UInt64(p) * 5 % UInt64(p))
        let lumaX = pattern % 2 == 1 ? (period - forwardX) % period : forwardX
        let lumaY = Int(frame % UInt64(p) * 3 % UInt64(p))
        let chromaX = 2 * Int(frame % UInt64(half) * 2 % UInt64(half))
        let chromaY = Int(frame % UInt64(half))
        let rowLength = textureRowLength
        let periodRows = period
        let chromaPeriodRows = period / 2
        let stampRows = FrameIndexStamp.rows

        // Planes from the pool (recycled after encoding); every row is written below. With
        // FFmpeg's padding after the last row, the encoder takes them as they are (no copy).
        var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: width, height: height))
        var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: width, height: height))
        lumaTexture.withUnsafeBufferPointer { texture in
            luma.withUnsafeMutableBufferPointer { plane in
                let base = plane.baseAddress!
                let source = texture.baseAddress!
                for y in stampRows..<height {
                    let row = (y + lumaY) % periodRows
                    (base + y * width).update(from: source + row * rowLength + lumaX, count: width)
                }
                base.update(repeating: FrameIndexStamp.zeroLuma, count: stampRows * width)
            }
        }
        chromaTexture.withUnsafeBufferPointer { texture in
            chroma.withUnsafeMutableBufferPointer { plane in
                let base = plane.baseAddress!
                let source = texture.baseAddress!
                let neutralRows = stampRows / 2
                base.update(repeating: 128, count: neutralRows * width)
                for y in neutralRows..<(height / 2) {
                    let row = (y + chromaY) % chromaPeriodRows
                    (base + y * width).update(from: source + row * rowLength + chromaX, count: width)
                }
            }
        }
        FrameIndexStamp.write(UInt32(truncatingIfNeeded: index), intoLuma: &luma, width: width, bytesPerRow: width)
        // Consumed: a plane still referenced here would be copied whole by clearPadding.
        var buffer = PixelBuffer(
            width: width, height: height, lumaPlane: consume luma, lumaBytesPerRow: width, chromaPlane: consume chroma, chromaBytesPerRow: width)
        buffer.clearPadding()
        return buffer
    }

    /// Builds the periodic textures once, wide enough for pictures `width` pixels wide.
    private func ensureTexture(width: Int) {
        guard width + period > textureRowLength else { return }
        // Round up so the texture is built rarely: at least 4032 + period.
        let rowLength = max(width, 4032) + period
        let p = period
        let half = period / 2
        var luma = [UInt8](repeating: 0, count: p * rowLength)
        var chroma = [UInt8](repeating: 0, count: half * rowLength)
        // One period of each row, computed per pixel once, then repeated along the row.
        var lumaTile = [UInt8](repeating: 0, count: p * p)
        for y in 0..<p { for x in 0..<p { lumaTile[y * p + x] = Self.lumaSample(x: x, y: y, period: p) } }
        var chromaTile = [UInt8](repeating: 0, count: half * p)
        for y in 0..<half {
            for u in 0..<half {
                var (cb, cr) = Self.chromaSample(u: u, v: y, period: half)
                if pattern > 0 {
                    let (dcb, dcr) = Self.tint(of: pattern)
                    cb = UInt8(min(240, max(16, Int(cb) + dcb)))
                    cr = UInt8(min(240, max(16, Int(cr) + dcr)))
                }
                chromaTile[y * p + 2 * u] = cb
                chromaTile[y * p + 2 * u + 1] = cr
            }
        }
        Self.repeatRows(tile: lumaTile, rows: p, tileWidth: p, into: &luma, rowLength: rowLength)
        Self.repeatRows(tile: chromaTile, rows: half, tileWidth: p, into: &chroma, rowLength: rowLength)
        lumaTexture = luma
        chromaTexture = chroma
        textureRowLength = rowLength
    }

    private static func repeatRows(tile: [UInt8], rows: Int, tileWidth: Int, into texture: inout [UInt8], rowLength: Int) {
        for y in 0..<rows {
            var x = 0
            while x < rowLength {
                let n = min(tileWidth, rowLength - x)
                for i in 0..<n { texture[y * rowLength + x + i] = tile[y * tileWidth + i] }
                x += n
            }
        }
    }

    /// Luma of the periodic texture at (x, y) in `0..<period`: smooth waves, a checkerboard
    /// and fine deterministic noise, in video range 16...235.
    static func lumaSample(x: Int, y: Int, period: Int) -> UInt8 {
        let tau = 2 * Double.pi / Double(period)
        let fx = Double(x) * tau
        let fy = Double(y) * tau
        var v = 120 + 45 * sin(fx) * cos(2 * fy) + 22 * sin(3 * fx + 2 * fy)
        v += ((x / 32 + y / 32) % 2 == 0) ? 14 : -14
        var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
        h = (h ^ (h >> 13)) &* 0x5bd1_e995
        v += Double(Int(h >> 28) - 8)  // ±8
        return UInt8(min(235, max(16, v.rounded())))
    }

    /// The chroma offsets (Cb, Cr) of camera look `pattern` (> 0): red, blue, green, then
    /// repeating.
    package static func tint(of pattern: Int) -> (Int, Int) {
        switch (pattern - 1) % 3 {
        case 0: (-30, 45)
        case 1: (45, -25)
        default: (-35, -35)
        }
    }

    /// (Cb, Cr) of the periodic chroma texture at pair (u, v) in `0..<period`.
    static func chromaSample(u: Int, v: Int, period: Int) -> (UInt8, UInt8) {
        let tau = 2 * Double.pi / Double(period)
        let cb = 128 + 50 * sin(Double(u) * tau) * cos(Double(v) * tau)
        let cr = 128 + 50 * cos(Double(u + 2 * v) * tau * 2)
        return (UInt8(min(240, max(16, cb.rounded()))), UInt8(min(240, max(16, cr.rounded()))))
    }
}
