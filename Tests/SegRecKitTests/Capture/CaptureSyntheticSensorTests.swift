import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Capture: synthetic sensor", .tags(.capture)) struct CaptureSyntheticSensorTests {
    static let sizes = [
        VideoDimensions(width: 1920, height: 1080), VideoDimensions(width: 1080, height: 1920), VideoDimensions(width: 1280, height: 720),
        VideoDimensions(width: 3024, height: 4032), VideoDimensions(width: 4032, height: 3024), VideoDimensions(width: 3840, height: 3840),
        VideoDimensions(width: 64, height: 32)
    ]
    static let indices: [Int64] = [0, 1, 2, 3, 127, 128, 255, 256, 1000, 65_535, 65_536, 2_147_483_653, 4_294_967_295]

    @Test("every frame index reads back from the stamp", arguments: sizes) func stampReadsBack(size: VideoDimensions) {
        let sensor = SyntheticSensor()
        for index in Self.indices {
            let buffer = sensor.pixelBuffer(forFrame: index, dimensions: size)
            #expect(buffer.dimensions == size)
            // Packed rows plus FFmpeg's padding (the encoder references the planes as they are).
            #expect(buffer.lumaPlane.count == size.width * size.height + PixelBuffer.planePadding)
            #expect(buffer.chromaPlane.count == size.width * size.height / 2 + PixelBuffer.planePadding)
            #expect(buffer.hasPlanePadding && buffer.lumaBytesPerRow == size.width)
            #expect(FrameIndexStamp.read(buffer) == UInt32(index))
        }
    }

    @Test("the first 600 frames at 1280x720 read back their index") func consecutiveIndices() {
        let sensor = SyntheticSensor()
        for index in Int64(0)..<600 {
            let buffer = sensor.pixelBuffer(forFrame: index, dimensions: VideoDimensions(width: 1280, height: 720))
            #expect(FrameIndexStamp.read(buffer) == UInt32(index))
        }
    }

    @Test("the picture is textured and moves every frame, in luma and chroma") func moving() {
        let sensor = SyntheticSensor()
        let size = VideoDimensions(width: 1920, height: 1080)
        var previous: PixelBuffer?
        for index in Int64(0)..<8 {
            let buffer = sensor.pixelBuffer(forFrame: index, dimensions: size)
            // The rows only: the planes end with FFmpeg's (zeroed) padding.
            let picture = buffer.lumaPlane[(16 * 1920)..<(1920 * 1080)]
            #expect(Set(stride(from: picture.startIndex, to: picture.endIndex, by: 97).map { picture[$0] }).count > 100, "luma is textured")
            #expect(picture.allSatisfy { (16...235).contains($0) }, "video range")
            let chroma = buffer.chromaPlane[(8 * 1920)..<(1920 * 540)]
            #expect(Set(stride(from: chroma.startIndex, to: chroma.endIndex, by: 31).map { chroma[$0] }).count > 40, "chroma is textured")
            if let previous {
                #expect(previous.lumaPlane[(16 * 1920)..<(1920 * 1080)] != picture, "luma moves")
                #expect(previous.chromaPlane[(8 * 1920)..<(1920 * 540)] != chroma, "chroma moves")
            }
            previous = buffer
        }
    }
}
