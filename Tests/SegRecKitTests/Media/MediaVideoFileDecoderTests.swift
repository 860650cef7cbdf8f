import CFFmpeg
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

    /// A yuv420p YUV4MPEG2 file of `frames` flat pictures of `width`x`height` (any parity:
    /// chroma planes are rounded up, as libavformat reads them) whose luma is 16 + index.
    static func writeOddY4M(to url: URL, width: Int, height: Int, frames: Int) throws {
        var data = Data("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n".utf8)
        for index in 0..<frames {
            data.append(Data("FRAME\n".utf8))
            data.append(Data(repeating: UInt8(16 + index), count: width * height))
            data.append(Data(repeating: 128, count: 2 * ((width + 1) / 2) * ((height + 1) / 2)))
        }
        try data.write(to: url)
    }

    @Test("yuv420p kept as decoded stays in the decoder's buffers: no plane is copied, references share them, the crop to even is the size alone")
    func keepsTheDecodersBuffers() throws {
        let file = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("odd.y4m")
        try Self.writeOddY4M(to: file, width: 33, height: 17, frames: 3)
        let pool = PixelBufferPool()
        pool.recycle(PixelBuffer(width: 32, height: 16))
        let pooled = pool.pooledByteCount
        let decoder = try VideoFileDecoder(path: file.path, pixelBufferPool: pool, keepsYUV420P: true)
        for index in 0..<3 {
            let picture = try #require(try decoder.nextPicture())
            guard case .decoded(let decoded) = picture.pixels else {
                Issue.record("picture \(index) was copied into a PixelBuffer")
                continue
            }
            #expect(decoded.dimensions == VideoDimensions(width: 32, height: 16) && decoded.pixelFormat == .yuv420p)
            #expect(picture.decodedDimensions == VideoDimensions(width: 33, height: 17))
            #expect(pool.pooledByteCount == pooled, "no plane was taken from the pool")
            let original = decoded.frame.pointer.pointee
            #expect(original.linesize.0 >= 33, "the rows are the decoder's, 33 samples wide")
            // What a source hands on: another AVFrame over the same planes.
            guard case .decoded(let handedOn) = FramePixels.decoded(decoded).detached() else {
                Issue.record("picture \(index) was copied when handed on")
                continue
            }
            let reference = handedOn.frame.pointer.pointee
            #expect(handedOn.frame.pointer != decoded.frame.pointer)
            #expect(reference.data.0 == original.data.0 && reference.data.1 == original.data.1 && reference.data.2 == original.data.2)
            #expect(
                reference.buf.0 != original.buf.0 && reference.buf.0?.pointee.buffer == original.buf.0?.pointee.buffer, "a new AVBufferRef to the same AVBuffer"
            )
            #expect((reference.width, reference.height, reference.pts) == (32, 16, segrec_av_nopts_value()), "only the picture, cropped; no timestamp")
            // Copied out only on request, cropped.
            let copy = picture.pixelBuffer
            #expect(copy.dimensions == VideoDimensions(width: 32, height: 16) && copy.lumaBytesPerRow == 32)
            #expect(copy.lumaPlane.prefix(32 * 16).allSatisfy { Int($0) == 16 + index } && copy.chromaPlane.prefix(32 * 8).allSatisfy { $0 == 128 })
        }
        #expect(try decoder.nextPicture() == nil)
    }
}
