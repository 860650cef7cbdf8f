import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Every tiny size in every common pixel format decodes and converts to the right NV12
/// picture, or is refused cleanly; the planes handed to libswscale carry FFmpeg's padding.
/// (The built binary runs a sweep under `MALLOC_CHECK_=3` in Tests/EndToEnd/test_input_cases.py.)
@Suite("Cases: input memory safety", .tags(.cases, .media)) struct CasesInputMemorySafetyTests {
    typealias C = CasesTestSupport

    static let formats = ["gray", "yuv420p", "yuv422p", "yuv444p", "yuv420p10le", "rgb24"]
    static let heights = [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 47, 48, 63, 99, 100]

    /// Widths 1...8 x `heights` in `format`: 2 pictures each, through ``VideoFileDecoder``.
    @Test("tiny sizes 1...8 x 1...100 decode to even NV12 pictures or are refused as too small", arguments: formats) func tinySizes(_ format: String) throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        for width in 1...8 {
            for height in Self.heights {
                let url: URL
                var options = VideoSourceOptions()
                if format == "rgb24" {
                    url = dir.appendingPathComponent("\(width)x\(height).yuv")
                    try Data((0..<(width * height * 3 * 2)).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: url)
                    options = VideoSourceOptions(videoSize: VideoDimensions(width: width, height: height), pixelFormat: "rgb24")
                } else {
                    url = dir.appendingPathComponent("\(width)x\(height)-\(format).y4m")
                    try C.writeY4M(to: url, width: width, height: height, format: format, frames: 2) { i in
                        C.y4mFrame(
                            width: width, height: height, format: format, luma: { x, y in 16 + (x * 31 + y * 7 + i) % 220 },
                            cb: { x, _ in x % 2 == 0 ? 90 : 160 }, cr: { _, y in y % 2 == 0 ? 100 : 150 })
                    }
                }
                let decoder = try VideoFileDecoder(path: url.path, options: options)
                if width < 2 || height < 2 {
                    #expect(throws: MediaInputError.self, "\(width)x\(height) \(format)") { _ = try decoder.nextPicture() }
                    continue
                }
                var pictures: [DecodedPicture] = []
                while let picture = try decoder.nextPicture() { pictures.append(picture) }
                #expect(pictures.count == 2, "\(width)x\(height) \(format)")
                for picture in pictures {
                    let buffer = picture.pixelBuffer
                    #expect(buffer.dimensions == VideoDimensions(width: width & ~1, height: height & ~1), "\(width)x\(height) \(format)")
                    #expect(buffer.hasPlanePadding)
                    if format == "gray" {
                        // No colour: every chroma sample neutral.
                        let rows = buffer.height / 2
                        let chroma = (0..<rows).flatMap { r in
                            buffer.chromaPlane[(r * buffer.chromaBytesPerRow)..<(r * buffer.chromaBytesPerRow + buffer.width)]
                        }
                        #expect(chroma.allSatisfy { $0 == 128 }, "\(width)x\(height) gray chroma \(chroma.min()!)...\(chroma.max()!)")
                    }
                }
            }
        }
    }

    @Test("scaled and cropped pictures carry padding; an unpadded picture is scaled from a padded copy") func paddedPlanes() throws {
        let pool = PixelBufferPool()
        let tight = PixelBuffer(width: 2, height: 2)
        #expect(!tight.hasPlanePadding)
        let scaled = try PictureScaler(pixelBufferPool: pool).scaled(tight, to: VideoDimensions(width: 4, height: 6))
        #expect(scaled.hasPlanePadding && scaled.lumaBytesPerRow == 4)
        #expect(scaled.lumaPlane.count == 4 * 6 + PixelBuffer.planePadding)
        #expect(scaled.lumaPlane.prefix(24).allSatisfy { abs(Int($0) - 128) <= 1 })
        let crop = PixelBuffer(width: 8, height: 8).cropped(x: 2, y: 2, dimensions: VideoDimensions(width: 2, height: 4), pixelBufferPool: pool)
        #expect(crop.hasPlanePadding && crop.chromaPlane.count == 2 * 2 + PixelBuffer.planePadding)
    }
}
