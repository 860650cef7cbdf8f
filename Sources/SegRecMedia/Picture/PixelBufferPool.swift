import Synchronization

/// Reuses the plane storage of pictures that have been encoded: the analog of CoreVideo's
/// `CVPixelBufferPool`.
///
/// A 1080p NV12 picture is 3 MiB; allocating two fresh planes per frame costs page faults
/// and zeroing in the kernel on every frame (glibc serves blocks that large with `mmap`),
/// which showed up as a third of segrec's CPU time. Producers (the synthetic sensor, the
/// file decoder) take planes with ``makePlane(byteCount:)`` and overwrite every byte; the
/// segment writer hands pictures back with ``recycle(_:)`` once their pixels are copied
/// into the encoder's frame.
///
/// Reuse is always safe: planes are `[UInt8]` values, so if anyone still holds a recycled
/// plane when a producer writes into it, copy-on-write gives the producer its own copy —
/// the pool can only save work, never share pixels. It keeps at most
/// ``maximumPooledBytes`` (oldest planes are dropped first), so memory stays bounded when
/// frame sizes change. Thread-safe (one `Mutex`).
///
/// Not a global: whoever sets up a recording creates one pool and hands it to the producers
/// (``SyntheticSensor``, ``DecodedClipSensor``, ``VideoFileDecoder``) and to the
/// ``SegmentMuxer`` (whose writers recycle into it).
package final class PixelBufferPool: Sendable {
    private struct Storage {
        var planes: [[UInt8]] = []
        var pooledBytes = 0
    }

    /// Upper bound on the bytes kept for reuse (32 MiB: the ~6 pictures in flight at 1920x1920).
    package let maximumPooledBytes: Int
    private let storage = Mutex(Storage())

    /// - Parameter maximumPooledBytes: bytes kept at most (default 32 MiB).
    package init(maximumPooledBytes: Int = 32 << 20) { self.maximumPooledBytes = maximumPooledBytes }

    /// A plane of exactly `byteCount` bytes whose contents are unspecified: the caller
    /// overwrites all of them. Reuses a recycled plane of that size, or one up to
    /// ``PixelBuffer/planePadding`` bytes longer or shorter (the same picture size with or
    /// without FFmpeg's padding), trimmed or extended to `byteCount`.
    package func makePlane(byteCount: Int) -> [UInt8] {
        let slack = PixelBuffer.planePadding
        let reused: [UInt8]? = storage.withLock { storage in
            let index = storage.planes.lastIndex(where: { $0.count == byteCount }) ?? storage.planes.lastIndex(where: { abs($0.count - byteCount) <= slack })
            guard let index else { return nil }
            storage.pooledBytes -= storage.planes[index].count
            return storage.planes.remove(at: index)
        }
        if var reused {
            if reused.count > byteCount {
                reused.removeLast(reused.count - byteCount)
            } else if reused.count < byteCount {
                reused.append(contentsOf: repeatElement(0, count: byteCount - reused.count))
            }
            return reused
        }
        // UInt8 is a trivial type: leaving the new bytes uninitialized is defined behaviour,
        // and the caller writes every one of them.
        return [UInt8](unsafeUninitializedCapacity: byteCount) { _, count in count = byteCount }
    }

    /// Takes back `buffer`'s planes for reuse (after their pixels have been consumed).
    package func recycle(_ buffer: consuming PixelBuffer) {
        let luma = buffer.lumaPlane
        let chroma = buffer.chromaPlane
        let limit = maximumPooledBytes
        storage.withLock { storage in
            for plane in [luma, chroma] where plane.count <= limit {
                storage.planes.append(plane)
                storage.pooledBytes += plane.count
            }
            while storage.pooledBytes > limit, !storage.planes.isEmpty { storage.pooledBytes -= storage.planes.removeFirst().count }
        }
    }

    /// Bytes currently kept for reuse.
    package var pooledByteCount: Int { storage.withLock { $0.pooledBytes } }
}
