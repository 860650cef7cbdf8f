import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Every producer in Capture takes its planes from the pool it is given.
extension CapturePixelBufferPoolTests {
    /// A pool holding the two planes of one `width`x`height` picture.
    func pool(holding width: Int, _ height: Int) -> PixelBufferPool {
        let pool = PixelBufferPool()
        pool.recycle(PixelBuffer(width: width, height: height))
        return pool
    }

    @Test func syntheticSensorUsesItsPool() {
        let pool = pool(holding: 64, 32)
        let sensor = SyntheticSensor(pixelBufferPool: pool)
        #expect(sensor.pixelBufferPool === pool)
        let buffer = sensor.pixelBuffer(forFrame: 5, dimensions: VideoDimensions(width: 64, height: 32))
        #expect(pool.pooledByteCount == 0, "both planes came from the pool")
        #expect(FrameIndexStamp.read(buffer) == 5)
    }

    @Test func cropsUseTheGivenPool() {
        var source = PixelBuffer(width: 64, height: 32)
        for y in 0..<32 { for x in 0..<64 { source.lumaPlane[y * 64 + x] = UInt8(x) } }
        let centrePool = pool(holding: 32, 16)
        let centre = source.centreCropped(to: VideoDimensions(width: 32, height: 16), pixelBufferPool: centrePool)
        #expect(centrePool.pooledByteCount == 0)
        #expect(Array(centre.lumaPlane.prefix(32)) == (16..<48).map(UInt8.init))
        let cornerPool = pool(holding: 16, 8)
        let corner = source.cropped(x: 2, y: 4, dimensions: VideoDimensions(width: 16, height: 8), pixelBufferPool: cornerPool)
        #expect(cornerPool.pooledByteCount == 0)
        #expect(Array(corner.lumaPlane.prefix(16)) == (2..<18).map(UInt8.init))
    }

    @Test func decodedClipSensorUsesItsPool() throws {
        let file = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("flat.y4m")
        try MediaTestSupport.writeY4M(to: file, width: 32, height: 16, frames: 2)
        let pool = pool(holding: 32, 32)  // the scaled 32x32 square
        let sensor = try DecodedClipSensor(squareSide: 32, canReopen: true, pixelBufferPool: pool) {
            try VideoFileDecoder(path: file.path, pixelBufferPool: PixelBufferPool())
        }
        #expect(sensor.pixelBufferPool === pool)
        let square = try sensor.pixelBuffer(forFrame: 0, dimensions: VideoDimensions(width: 32, height: 32))
        #expect(pool.pooledByteCount == 0, "the scaled square's planes came from the pool")
        #expect(square.lumaPlane.prefix(32 * 32).allSatisfy { abs(Int($0) - 16) <= 1 })
    }

    @Test func scenarioSessionHandsItsPoolToTheSyntheticSensor() throws {
        let pool = PixelBufferPool()
        let session = try CaptureSession(scenario: .tapToRotate, pixelBufferPool: pool)
        // The zoom is drawn by a ZoomingImageSource around the sensor: both take the pool.
        let zooming = try #require(session.output.frameSource as? ZoomingImageSource)
        let sensor = try #require(zooming.base as? SyntheticSensor)
        #expect(sensor.pixelBufferPool === pool && zooming.pixelBufferPool === pool)
        let defaulted = try CaptureSession(scenario: .tapToRotate)
        // Without one, the sensor gets a pool of its own (no process-wide pool exists).
        let defaultedSensor = try #require((defaulted.output.frameSource as? ZoomingImageSource)?.base as? SyntheticSensor)
        #expect(defaultedSensor.pixelBufferPool !== pool)
    }
}
