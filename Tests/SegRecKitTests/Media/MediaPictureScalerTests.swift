import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: PictureScaler", .tags(.media)) struct MediaPictureScalerTests {
    /// A packed picture whose luma is `luma` and chroma (Cb, Cr) is `chroma` everywhere.
    func flat(_ width: Int, _ height: Int, luma: UInt8, chroma: (UInt8, UInt8)) -> PixelBuffer {
        var c = [UInt8](repeating: 0, count: width * (height / 2))
        for i in stride(from: 0, to: c.count, by: 2) {
            c[i] = chroma.0
            c[i + 1] = chroma.1
        }
        return PixelBuffer(
            width: width, height: height, lumaPlane: [UInt8](repeating: luma, count: width * height), lumaBytesPerRow: width, chromaPlane: c,
            chromaBytesPerRow: width)
    }

    @Test("a flat picture scales to a flat, packed picture of the destination size, up and down") func flatStaysFlat() throws {
        let scaler = PictureScaler()
        for (source, destination) in [
            (VideoDimensions(width: 64, height: 64), VideoDimensions(width: 128, height: 128)),
            (VideoDimensions(width: 90, height: 90), VideoDimensions(width: 32, height: 32)),
            (VideoDimensions(width: 90, height: 90), VideoDimensions(width: 32, height: 32))
        ] {
            let out = try scaler.scaled(flat(source.width, source.height, luma: 100, chroma: (60, 200)), to: destination)
            #expect(out.dimensions == destination)
            #expect(out.lumaBytesPerRow == destination.width && out.chromaBytesPerRow == destination.width)
            #expect(out.lumaPlane.prefix(destination.width * destination.height).allSatisfy { abs(Int($0) - 100) <= 1 })
            let chroma = out.chromaPlane.prefix(destination.width * destination.height / 2)
            #expect(chroma.enumerated().allSatisfy { abs(Int($0.element) - ($0.offset % 2 == 0 ? 60 : 200)) <= 1 })
        }
    }

    @Test("padded rows are read through their strides") func strides() throws {
        let width = 32
        let height = 32
        let stride = 48
        var luma = [UInt8](repeating: 255, count: stride * height)  // padding is white
        for y in 0..<height { for x in 0..<width { luma[y * stride + x] = 50 } }
        let picture = PixelBuffer(
            width: width, height: height, lumaPlane: luma, lumaBytesPerRow: stride, chromaPlane: [UInt8](repeating: 128, count: stride * height / 2),
            chromaBytesPerRow: stride)
        let out = try PictureScaler().scaled(picture, to: VideoDimensions(width: 16, height: 16))
        #expect(out.lumaPlane.prefix(16 * 16).allSatisfy { abs(Int($0) - 50) <= 1 })
    }

    @Test("a picture already of the destination size is returned as it is") func sameSize() throws {
        let picture = flat(32, 16, luma: 7, chroma: (128, 128))
        let out = try PictureScaler().scaled(picture, to: picture.dimensions)
        #expect(out.lumaPlane == picture.lumaPlane && out.chromaPlane == picture.chromaPlane)
    }
}

extension MediaPictureScalerTests {
    @Test("scaled pictures take their planes from the pool it was given") func usesItsPool() throws {
        let pool = PixelBufferPool()
        pool.recycle(PixelBuffer(width: 32, height: 32))
        let scaler = PictureScaler(pixelBufferPool: pool)
        #expect(scaler.pixelBufferPool === pool)
        let out = try scaler.scaled(flat(64, 64, luma: 90, chroma: (128, 128)), to: VideoDimensions(width: 32, height: 32))
        #expect(pool.pooledByteCount == 0, "both planes came from the pool")
        #expect(out.lumaPlane.prefix(32 * 32).allSatisfy { abs(Int($0) - 90) <= 1 })
    }
}
