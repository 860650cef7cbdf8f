import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Capture: PixelBufferPool", .tags(.capture)) struct CapturePixelBufferPoolTests {
    @Test func reusesRecycledPlanesOfTheSameSize() {
        let pool = PixelBufferPool(maximumPooledBytes: 1 << 20)
        let buffer = PixelBuffer(width: 64, height: 32)
        pool.recycle(buffer)
        #expect(pool.pooledByteCount == 64 * 32 + 64 * 16)
        let luma = pool.makePlane(byteCount: 64 * 32)
        #expect(luma.count == 64 * 32)
        #expect(luma.allSatisfy { $0 == 128 })  // the recycled plane came back
        #expect(pool.pooledByteCount == 64 * 16)
        #expect(pool.makePlane(byteCount: 100).count == 100)  // no plane of that size: a new one
        #expect(pool.pooledByteCount == 64 * 16)
    }

    @Test func keepsAtMostItsBudgetDroppingTheOldest() {
        let pool = PixelBufferPool(maximumPooledBytes: 3 * 64 * 32)
        for _ in 0..<4 { pool.recycle(PixelBuffer(width: 64, height: 32)) }  // 4 · 3072 bytes
        #expect(pool.pooledByteCount <= 3 * 64 * 32)
        // Each picture adds 2048 + 1024 bytes; over 6144 the oldest planes go: two pictures stay.
        #expect(pool.pooledByteCount == 2 * (64 * 32 + 64 * 16))
    }

    /// A plane recycled while someone still holds it is never shared: writing into the
    /// reused plane copies (copy-on-write), the holder's pixels stay as they were.
    @Test func reuseNeverSharesPixels() {
        let pool = PixelBufferPool()
        let kept = PixelBuffer(width: 64, height: 32)
        pool.recycle(kept)
        var reused = pool.makePlane(byteCount: 64 * 32)
        reused.withUnsafeMutableBufferPointer { $0.update(repeating: 7) }
        #expect(kept.lumaPlane.allSatisfy { $0 == 128 })
        #expect(reused.allSatisfy { $0 == 7 })
    }
}
