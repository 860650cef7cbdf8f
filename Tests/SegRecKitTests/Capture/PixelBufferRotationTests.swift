import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// NV12 quarter turns: every luma pixel and CbCr pair lands exactly where a clockwise turn
/// puts it; a region of the turned picture equals the turned region.
@Suite("Capture: NV12 rotation", .tags(.capture)) struct PixelBufferRotationTests {
    /// A `width`x`height` picture whose every luma byte and CbCr pair differs from its
    /// neighbours (so a misplaced pixel shows), with `padding` extra bytes per row.
    static func numbered(width: Int, height: Int, padding: Int = 0) -> PixelBuffer {
        let lumaStride = width + padding
        let chromaStride = width + padding
        var luma = [UInt8](repeating: 0, count: lumaStride * height)
        var chroma = [UInt8](repeating: 0, count: chromaStride * (height / 2))
        for y in 0..<height { for x in 0..<width { luma[y * lumaStride + x] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 13 &+ (x * y) / 5) } }
        for y in 0..<(height / 2) {
            for u in 0..<(width / 2) {
                chroma[y * chromaStride + 2 * u] = UInt8(truncatingIfNeeded: u &* 11 &+ y &* 3)
                chroma[y * chromaStride + 2 * u + 1] = UInt8(truncatingIfNeeded: u &* 5 &+ y &* 17 &+ 1)
            }
        }
        return PixelBuffer(width: width, height: height, lumaPlane: luma, lumaBytesPerRow: lumaStride, chromaPlane: chroma, chromaBytesPerRow: chromaStride)
    }

    static func luma(_ b: PixelBuffer, _ x: Int, _ y: Int) -> UInt8 { b.lumaPlane[y * b.lumaBytesPerRow + x] }
    static func pair(_ b: PixelBuffer, _ u: Int, _ v: Int) -> [UInt8] {
        [b.chromaPlane[v * b.chromaBytesPerRow + 2 * u], b.chromaPlane[v * b.chromaBytesPerRow + 2 * u + 1]]
    }

    /// Where turned pixel (x', y') comes from in a `w`x`h` source (clockwise turns).
    static func source(of x: Int, _ y: Int, w: Int, h: Int, angle: VideoRotationAngle) -> (Int, Int) {
        switch angle {
        case .degrees0: (x, y)
        case .degrees90: (y, h - 1 - x)
        case .degrees180: (w - 1 - x, h - 1 - y)
        case .degrees270: (w - 1 - y, x)
        }
    }

    /// Packed planes with the same pixels (for equality across strides and padding).
    static func packed(_ b: PixelBuffer) -> ([UInt8], [UInt8]) {
        var luma: [UInt8] = []
        var chroma: [UInt8] = []
        for y in 0..<b.height { luma += b.lumaPlane[(y * b.lumaBytesPerRow)..<(y * b.lumaBytesPerRow + b.width)] }
        for y in 0..<(b.height / 2) { chroma += b.chromaPlane[(y * b.chromaBytesPerRow)..<(y * b.chromaBytesPerRow + b.width)] }
        return (luma, chroma)
    }

    @Test(
        "every pixel moves as a clockwise turn says (odd tile counts, padded rows)", arguments: VideoRotationAngle.allCases,
        [(6, 4, 0), (130, 70, 6), (200, 66, 0)]) func exactMapping(_ angle: VideoRotationAngle, size: (Int, Int, Int))
    {
        let (w, h, padding) = size
        let picture = Self.numbered(width: w, height: h, padding: padding)
        let turned = picture.rotated(angle, pixelBufferPool: PixelBufferPool())
        #expect(turned.dimensions == angle.rotated(VideoDimensions(width: w, height: h)))
        var wrongLuma = 0
        var wrongChroma = 0
        for y in 0..<turned.height {
            for x in 0..<turned.width {
                let (sx, sy) = Self.source(of: x, y, w: w, h: h, angle: angle)
                if Self.luma(turned, x, y) != Self.luma(picture, sx, sy) { wrongLuma += 1 }
            }
        }
        for v in 0..<(turned.height / 2) {
            for u in 0..<(turned.width / 2) {
                let (su, sv) = Self.source(of: u, v, w: w / 2, h: h / 2, angle: angle)
                if Self.pair(turned, u, v) != Self.pair(picture, su, sv) { wrongChroma += 1 }
            }
        }
        #expect(wrongLuma == 0 && wrongChroma == 0)
        #expect(turned.hasPlanePadding || angle == .degrees0)
    }

    @Test("turns compose: 4 x 90 and 90 + 270 are the identity, 90 + 90 is 180") func composition() {
        let pool = PixelBufferPool()
        let picture = Self.numbered(width: 96, height: 40)
        var p = picture
        for _ in 0..<4 { p = p.rotated(.degrees90, pixelBufferPool: pool) }
        #expect(Self.packed(p) == Self.packed(picture))
        #expect(Self.packed(picture.rotated(.degrees90, pixelBufferPool: pool).rotated(.degrees270, pixelBufferPool: pool)) == Self.packed(picture))
        #expect(
            Self.packed(picture.rotated(.degrees90, pixelBufferPool: pool).rotated(.degrees90, pixelBufferPool: pool))
                == Self.packed(picture.rotated(.degrees180, pixelBufferPool: pool)))
    }

    @Test("a region of the turned picture equals the turned region (no whole-picture turn needed)", arguments: VideoRotationAngle.allCases) func regions(
        _ angle: VideoRotationAngle
    ) {
        let pool = PixelBufferPool()
        let picture = Self.numbered(width: 84, height: 46, padding: 2)
        let turned = picture.rotated(angle, pixelBufferPool: pool)
        for (x, y, w, h) in [(0, 0, 2, 2), (4, 6, 10, 20), (turned.width - 12, turned.height - 8, 12, 8), (0, 0, turned.width, turned.height), (2, 10, 30, 16)]
        {
            let dims = VideoDimensions(width: w, height: h)
            let direct = picture.rotatedRegion(angle, x: x, y: y, dimensions: dims, pixelBufferPool: pool)
            let reference = turned.cropped(x: x, y: y, dimensions: dims, pixelBufferPool: pool)
            #expect(direct.dimensions == dims)
            #expect(Self.packed(direct) == Self.packed(reference), "region \(dims) at (\(x), \(y)) turned \(angle)")
        }
    }
}
