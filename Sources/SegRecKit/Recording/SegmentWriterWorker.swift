import Dispatch
import Foundation

/// One segment's ``SegmentWriter``, run on its own serial queue so that the capture path
/// never waits for the encoder: the analog of an `AVAssetWriterInput` that takes sample
/// buffers and encodes them on the writer's own threads.
///
/// - Opening (avformat + encoder init + header, 10–60 ms at 1080p) runs on the queue, so a
///   segment switch costs the capture path only the hand-off.
/// - ``append(_:presentationTime:frameIndex:deliveredNs:)`` waits for one of the shared
///   `slots` (frames in flight across all segments: the bound on buffered pictures and on
///   how far the files lag behind capture), then queues the picture and returns.
/// - ``finish(endTime:completion:)`` queues the flush, trailer and rename; frames queued
///   before it are written first (the queue is serial).
/// - Errors happen on the queue; the first one is kept, the writer is cancelled (its
///   partial file deleted), later appends are skipped, and ``failure`` reports it so the
///   capture path throws it at its next call; ``finish(endTime:completion:)`` reports it as
///   its result.
///
/// Every operation enters the shared `group`, so waiting on it waits for all segments.
final class SegmentWriterWorker: @unchecked Sendable {
    // @unchecked: `writer` is touched only on `queue` (serial); `error` is guarded by `lock`.
    // SegmentWriter is not Sendable; it is created on the queue and never leaves it.

    /// Ticks per second of the writer's time base.
    let timescale: Int32
    let segment: Int
    private let queue: DispatchQueue
    private let group: DispatchGroup
    private let slots: DispatchSemaphore
    private let statistics: RecordingStatistics?
    private let lock = NSLock()
    private var error: (any Error)?
    private var writer: SegmentWriter?

    /// Starts opening the writer on the queue.
    /// - Parameters:
    ///   - firstFrameIndex, closeNs: for the switch timings in `statistics`.
    init(segment: Int, url: URL, dimensions: VideoDimensions, timescale: Int32, settings: EncoderSettings,
         displayRotationDegrees: Int?, group: DispatchGroup, slots: DispatchSemaphore,
         statistics: RecordingStatistics?, firstFrameIndex: Int64, closeNs: UInt64?) {
        self.segment = segment
        self.timescale = timescale
        self.group = group
        self.slots = slots
        self.statistics = statistics
        queue = DispatchQueue(label: "segrec.segment-writer.\(segment)", qos: .userInitiated)
        queue.async(group: group) { [self] in
            let start = MonotonicClock.nanoseconds()
            do {
                writer = try SegmentWriter(url: url, dimensions: dimensions, timescale: timescale,
                                           settings: settings, displayRotationDegrees: displayRotationDegrees)
            } catch {
                fail(error)
            }
            statistics?.segmentOpened(segment, firstFrame: firstFrameIndex, closeNs: closeNs,
                                      openNs: MonotonicClock.nanoseconds() - start)
        }
    }

    /// The first error of this segment's writer, if any.
    var failure: (any Error)? { lock.withLock { error } }

    /// Queues one picture. - Throws: the segment's first error, if one happened already.
    func append(_ buffer: PixelBuffer, presentationTime: MediaTime, frameIndex: Int64, deliveredNs: UInt64) throws {
        if let failure { throw failure }
        slots.wait()
        let queuedNs = statistics == nil ? 0 : MonotonicClock.nanoseconds()
        queue.async(group: group) { [self] in
            defer { slots.signal() }
            guard let writer, failure == nil else { return }
            do {
                try writer.append(buffer, presentationTime: presentationTime)
                PixelBufferPool.shared.recycle(buffer)  // its pixels are in the encoder's frame now
                statistics?.frameAccepted(index: frameIndex, segment: segment, deliveredNs: deliveredNs,
                                          queuedNs: queuedNs, acceptedNs: MonotonicClock.nanoseconds())
            } catch {
                fail(error)
            }
        }
    }

    /// Queues finishing the file at `endTime` (relative to its start); `completion` gets the
    /// summary, or this segment's first error, on the queue.
    func finish(endTime: MediaTime, completion: @escaping @Sendable (Result<SegmentWriterSummary, any Error>) -> Void) {
        queue.async(group: group) { [self] in
            let result: Result<SegmentWriterSummary, any Error>
            if let failure {
                result = .failure(failure)
            } else if let writer {
                result = Result { try writer.finish(endTime: endTime) }
            } else {
                result = .failure(RecordingError.invalidState("segment \(segment) has no writer"))
            }
            writer = nil
            completion(result)
        }
    }

    /// Queues abandoning the segment (its partial file is deleted).
    func cancel() {
        queue.async(group: group) { [self] in
            writer?.cancel()
            writer = nil
        }
    }

    /// On the queue: keeps the first error and abandons the writer.
    private func fail(_ error: any Error) {
        lock.withLock { if self.error == nil { self.error = error } }
        writer?.cancel()
        writer = nil
    }
}
