import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// videoZoomFactor drawn into the picture: the centre 1/zoom scaled back, same dimensions,
/// the frame-index stamp still readable.
@Suite("Capture: zoom drawn into the picture", .tags(.capture)) struct ZoomingImageSourceTests {
    static let size = VideoDimensions(width: 1280, height: 720)

    /// The synthetic pattern without its stamp (rows 0–15 mid-grey): a source that does not stamp.
    struct UnstampedPattern: SensorImageSource {
        let sensor = SyntheticSensor()
        var stampsFrameIndex: Bool { false }
        func pixelBuffer(forFrame index: Int64, dimensions: VideoDimensions) throws -> PixelBuffer {
            var picture = sensor.pixelBuffer(forFrame: index, dimensions: dimensions)
            picture.lumaPlane.replaceSubrange(
                0..<(FrameIndexStamp.rows * picture.lumaBytesPerRow), with: repeatElement(128, count: FrameIndexStamp.rows * picture.lumaBytesPerRow))
            return picture
        }
    }

    /// Mean absolute luma difference between `zoomed` averaged over 2x2 blocks and the
    /// `width/2`x`height/2` region of `picture` at (`x0`, `y0`), from box row `firstRow` on.
    static func boxDifference(_ zoomed: PixelBuffer, _ picture: PixelBuffer, x0: Int, y0: Int, firstRow: Int) -> Double {
        var sum = 0
        var count = 0
        for by in firstRow..<(zoomed.height / 2) {
            for bx in 0..<(zoomed.width / 2) {
                let z = zoomed.lumaPlane
                let s = zoomed.lumaBytesPerRow
                let box =
                    (Int(z[2 * by * s + 2 * bx]) + Int(z[2 * by * s + 2 * bx + 1]) + Int(z[(2 * by + 1) * s + 2 * bx]) + Int(z[(2 * by + 1) * s + 2 * bx + 1])
                        + 2) / 4
                sum += abs(box - Int(picture.lumaPlane[(y0 + by) * picture.lumaBytesPerRow + x0 + bx]))
                count += 1
            }
        }
        return Double(sum) / Double(count)
    }

    @Test("zoom 2.0: same dimensions, the centre half enlarged, the stamp intact") func zoomTwo() throws {
        let zoom = ZoomingImageSource(base: SyntheticSensor(), videoZoomFactor: 2)
        let plain = SyntheticSensor().pixelBuffer(forFrame: 7, dimensions: Self.size)
        let zoomed = try zoom.pixelBuffer(forFrame: 7, dimensions: Self.size)
        #expect(zoomed.dimensions == Self.size)
        #expect(zoom.stampsFrameIndex && FrameIndexStamp.read(zoomed) == 7)
        #expect(zoomed.lumaPlane[0..<(16 * 1280)] == plain.lumaPlane[0..<(16 * 1280)])
        // The centre 640x360 of the plain picture starts at (320, 180); box rows 0–7 are the kept stamp rows.
        let centre = Self.boxDifference(zoomed, plain, x0: 320, y0: 180, firstRow: 8)
        #expect(centre < 2, "zoomed picture vs the 2x-scaled centre: mean abs difference \(centre)")
        // The same comparison 8 pixels off, or against the unzoomed picture, is far worse.
        let shifted = Self.boxDifference(zoomed, plain, x0: 328, y0: 180, firstRow: 8)
        let unzoomed = Self.boxDifference(plain, plain, x0: 320, y0: 180, firstRow: 8)
        #expect(shifted > 3 * centre && unzoomed > 3 * centre, "shifted \(shifted), unzoomed \(unzoomed), centre \(centre)")
        // Zoom changes nothing but the picture: back to 1.0 gives the base picture itself.
        zoom.videoZoomFactor = 1
        let back = try zoom.pixelBuffer(forFrame: 7, dimensions: Self.size)
        #expect(back.lumaPlane == plain.lumaPlane && back.chromaPlane == plain.chromaPlane)
    }

    @Test("a base that does not stamp: the output stamps the zoomed picture afterwards") func outputStampsAfterZoom() throws {
        let output = VideoDataOutput(frameSource: ZoomingImageSource(base: UnstampedPattern(), videoZoomFactor: 1.3), stampFrameIndex: true)
        #expect(!output.frameSource.stampsFrameIndex && output.deliversStampedFrames)
        let t = MediaTime(value: 1_000_000_000, timescale: 1_000_000_000)
        for index: Int64 in [0, 1, 254, 100_000] {
            let frame = try output.frame(
                index: index, dimensions: Self.size, deviceTime: t, sessionTime: t,
                nextSessionTime: try t.adding(MediaTime(value: 33_333_333, timescale: 1_000_000_000)))
            #expect(frame.pixelBuffer.dimensions == Self.size)
            #expect(FrameIndexStamp.read(frame.pixelBuffer) == UInt32(index))
        }
    }

    @Test("zoomed region sizes are even and centred; preserved rows configurable") func regions() throws {
        #expect(ZoomingImageSource.zoomedRegion(of: Self.size, factor: 2) == VideoDimensions(width: 640, height: 360))
        #expect(ZoomingImageSource.zoomedRegion(of: Self.size, factor: 1.3) == VideoDimensions(width: 984, height: 554))
        #expect(ZoomingImageSource.zoomedRegion(of: Self.size, factor: 1) == Self.size)
        #expect(ZoomingImageSource.zoomedRegion(of: VideoDimensions(width: 32, height: 16), factor: 16) == VideoDimensions(width: 2, height: 2))
        let zoom = ZoomingImageSource(base: SyntheticSensor(), videoZoomFactor: 4, preservedRows: 32)
        let plain = SyntheticSensor().pixelBuffer(forFrame: 3, dimensions: VideoDimensions(width: 1080, height: 1920))
        let zoomed = try zoom.pixelBuffer(forFrame: 3, dimensions: VideoDimensions(width: 1080, height: 1920))
        #expect(zoomed.lumaPlane[0..<(32 * 1080)] == plain.lumaPlane[0..<(32 * 1080)])
        #expect(zoomed.chromaPlane[0..<(16 * 1080)] == plain.chromaPlane[0..<(16 * 1080)])
        #expect(zoomed.lumaPlane[(32 * 1080)..<(64 * 1080)] != plain.lumaPlane[(32 * 1080)..<(64 * 1080)])
        #expect(FrameIndexStamp.read(zoomed) == 3)
    }
}
