import Dispatch
import Foundation

/// Finishes closed segments off the capture path.
///
/// Finishing an MP4 segment means flushing the encoder (x264 still holds the frames of its
/// lookahead and threads), writing the `moov` trailer and renaming the partial file. That
/// takes tens of milliseconds at 1080p — longer than a 60 fps frame interval — so doing it
/// inline would stall the frame that starts the next segment. ``SegmentFileSequence``
/// queues the finish on the old segment's ``SegmentWriterWorker`` and opens the new one at
/// once; the results (byte count or error) are collected later, at the next close
/// (without waiting) and when the recording ends (waiting for all).
///
/// At most ``maximumInFlight`` segments are being finished at once: a further close waits
/// for the oldest, so a burst of switches cannot pile up encoders in memory.
final class SegmentFinalizer: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.

    /// The outcome of finishing one segment.
    struct Outcome {
        let segment: Int
        let result: Result<SegmentWriterSummary, any Error>
        let nanoseconds: UInt64
    }

    static let maximumInFlight = 1

    /// Every operation of every segment's worker (open, appends, finish) enters this group.
    let group = DispatchGroup()
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private var outcomes: [Outcome] = []
    private var inFlight = 0

    /// Finishes `worker`'s segment at `endTime` (relative to its start) after the frames it
    /// has queued. Waits first while ``maximumInFlight`` segments are still being finished.
    /// - Parameter statistics: where to record how long finishing took, or nil.
    func submit(_ worker: SegmentWriterWorker, endTime: MediaTime, statistics: RecordingStatistics?) {
        while lock.withLock({ inFlight >= Self.maximumInFlight }) {
            finished.wait()
        }
        lock.withLock { inFlight += 1 }
        let segment = worker.segment
        let start = MonotonicClock.nanoseconds()
        worker.finish(endTime: endTime) { [self] result in
            // From the hand-off to the file in place, including frames still queued.
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

    /// Waits until every segment's queued work is done, then returns the outcomes not yet taken.
    func waitForAll() -> [Outcome] {
        group.wait()
        return takeCompleted()
    }
}
