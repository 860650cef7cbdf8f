import Dispatch
import Foundation

/// Finishes closed segments off the capture path.
///
/// Finishing an MP4 segment means flushing the encoder (x264 still holds the frames of its
/// lookahead and threads), writing the `moov` trailer and renaming the partial file. That
/// takes tens of milliseconds at 1080p — longer than a 60 fps frame interval — so doing it
/// inline would stall the frame that starts the next segment. ``SegmentFileSequence``
/// hands the old ``SegmentWriter`` to this serial background queue and opens the new one
/// at once; the results (byte count or error) are collected later, at the next close
/// (without waiting) and when the recording ends (waiting for all).
///
/// At most ``maximumInFlight`` segments are being finished at once: a further close waits
/// for the oldest, so a burst of switches cannot pile up encoders in memory.
final class SegmentFinalizer: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`; `queue` is serial and only
    // touches writers handed to it (see `WriterHandOff`).

    /// The outcome of finishing one segment.
    struct Outcome {
        let segment: Int
        let result: Result<SegmentWriterSummary, any Error>
        let nanoseconds: UInt64
    }

    /// A writer moving from the capture path to the finalizer queue. `SegmentWriter` is not
    /// `Sendable` (it wraps FFmpeg contexts that must not be used from two threads at once);
    /// the hand-off is safe because the capture path gives up its only reference when it
    /// submits (`submit` takes the writer as `sending`) and the queue is the sole owner
    /// from then on.
    private struct WriterHandOff: @unchecked Sendable {
        let writer: SegmentWriter
    }

    static let maximumInFlight = 1

    private let queue = DispatchQueue(label: "segrec.segment-finalizer", qos: .userInitiated)
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private var outcomes: [Outcome] = []
    private var inFlight = 0

    /// Finishes `writer` at `endTime` (relative to its start) on the background queue.
    /// Waits first while ``maximumInFlight`` segments are still being finished.
    /// - Parameter statistics: where to record how long finishing took, or nil.
    func submit(_ writer: SegmentWriter, endTime: MediaTime, segment: Int, statistics: RecordingStatistics?) {
        while lock.withLock({ inFlight >= Self.maximumInFlight }) {
            finished.wait()
        }
        lock.withLock { inFlight += 1 }
        let handOff = WriterHandOff(writer: writer)
        queue.async { [self] in
            let start = MonotonicClock.nanoseconds()
            let result = Result { try handOff.writer.finish(endTime: endTime) }
            let elapsed = MonotonicClock.nanoseconds() - start
            statistics?.recordFinalization(segment: segment, nanoseconds: elapsed)
            lock.withLock {
                outcomes.append(Outcome(segment: segment, result: result, nanoseconds: elapsed))
                inFlight -= 1
            }
            finished.signal()
        }
    }

    /// The outcomes available now, in completion order, without waiting.
    func takeCompleted() -> [Outcome] {
        lock.withLock {
            defer { outcomes.removeAll() }
            return outcomes
        }
    }

    /// Waits until every submitted segment is finished, then returns the outcomes not yet taken.
    func waitForAll() -> [Outcome] {
        queue.sync {}
        return takeCompleted()
    }
}
