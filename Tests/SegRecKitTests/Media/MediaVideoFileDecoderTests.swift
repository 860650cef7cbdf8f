import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: VideoFileDecoder", .tags(.media)) struct MediaVideoFileDecoderTests {
    @Test("decodes a YUV4MPEG2 file to NV12 pictures in order, then ends") func decodesInOrder() throws {
        let file = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("flat.y4m")
        try MediaTestSupport.writeY4M(to: file, width: 32, height: 16, frames: 3)
        let decoder = try VideoFileDecoder(path: file.path)
        for index in Int64(0)..<3 {
            let picture = try #require(try decoder.nextPicture())
            #expect(picture.index == index && picture.pixelBuffer.dimensions == VideoDimensions(width: 32, height: 16))
            #expect(picture.pixelBuffer.lumaPlane.prefix(32 * 16).allSatisfy { Int($0) == 16 + Int(index) })
        }
        #expect(try decoder.nextPicture() == nil)
    }

    @Test("decoded pictures take their planes from the pool it was given") func usesItsPool() throws {
        let file = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("flat.y4m")
        try MediaTestSupport.writeY4M(to: file, width: 32, height: 16, frames: 1)
        let pool = PixelBufferPool()
        pool.recycle(PixelBuffer(width: 32, height: 16))
        #expect(pool.pooledByteCount == 32 * 16 * 3 / 2)
        let decoder = try VideoFileDecoder(path: file.path, pixelBufferPool: pool)
        #expect(decoder.pixelBufferPool === pool)
        let picture = try #require(try decoder.nextPicture())
        #expect(pool.pooledByteCount == 0, "both planes came from the pool")
        #expect(picture.pixelBuffer.lumaPlane.prefix(32 * 16).allSatisfy { $0 == 16 })
    }
}
