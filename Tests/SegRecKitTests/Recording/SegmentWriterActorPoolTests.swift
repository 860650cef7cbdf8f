import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The segment writer lets go of a picture as soon as it is encoded: while it waits for the
/// next one it keeps no reference to the planes the encoder gave back to the pool, so the
/// producer's next write into them happens in place (a kept reference made that write copy
/// the whole plane, copy-on-write: 3.5 MB and a fresh allocation per 1080p frame).
@Suite("SegmentWriterActor and the pixel pool", .tags(.recording)) struct SegmentWriterActorPoolTests {
    @Test func anEncodedPicturesPlanesAreReusedInPlaceWhileTheWriterWaits() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let (width, height) = (64, 48)
        let pool = PixelBufferPool()
        let parameters = SegmentWriterActor.Parameters(
            segment: 0, url: dir.appendingPathComponent("segment-000.mp4"), dimensions: VideoDimensions(width: width, height: height), timescale: 15360,
            settings: EncoderSettings(codec: .h264, preset: "ultrafast", crf: 30, keyframeInterval: 30), displayRotationDegrees: nil, fragmentInterval: nil,
            firstFrameIndex: 0, closeDuration: nil, journal: nil, journalGeneration: 0)
        let slots = FrameSlots(capacity: 6)
        let handle = SegmentWriterActor.start(parameters, slots: slots, pool: pool, statistics: nil)
        var encodedPlane: UnsafeRawPointer?
        for index in 0..<3 {
            await slots.acquire()
            var luma = pool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: width, height: height))
            let handedOut = luma.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            // The write a producer makes: in place when nobody else holds the plane.
            let written = luma.withUnsafeMutableBufferPointer { plane in
                plane.update(repeating: UInt8(16 + index))
                return UnsafeRawPointer(plane.baseAddress)
            }
            if index > 0 {
                #expect(handedOut == encodedPlane, "the pool handed out picture \(index - 1)'s luma plane again")
                #expect(written == handedOut, "picture \(index) was written into that plane in place, not into a copy")
            }
            let chroma = [UInt8](repeating: 128, count: PixelBuffer.paddedChromaByteCount(bytesPerRow: width, height: height))
            var picture = PixelBuffer(
                width: width, height: height, lumaPlane: consume luma, lumaBytesPerRow: width, chromaPlane: chroma, chromaBytesPerRow: width)
            picture.clearPadding()
            encodedPlane = picture.lumaPlane.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            handle.append(.pixelBuffer(picture), presentationTime: MediaTime(value: Int64(index), timescale: 30), frameIndex: Int64(index), delivered: .now)
            // Wait until the encoder has given the planes back, with nothing else queued:
            // the writer is then waiting for its next command.
            let deadline = ContinuousClock.now + .seconds(20)
            while pool.pooledByteCount == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
            #expect(pool.pooledByteCount > 0, "picture \(index)'s planes came back to the pool")
            try await Task.sleep(for: .milliseconds(20))
        }
        handle.finish(endTime: MediaTime(value: 3, timescale: 30))
        let summary = try await handle.outcome.value.get()
        #expect(summary.frameCount == 3)
    }
}
