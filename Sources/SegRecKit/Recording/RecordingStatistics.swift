import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock (`CLOCK_MONOTONIC`) in nanoseconds: the time base of
/// ``RecordingStatistics`` and of real-time pacing. Unaffected by wall-clock changes.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Sleeps until the monotonic clock reads `deadline` (returns at once if it has passed).
    public static func sleep(until deadline: UInt64) {
        while true {
            let now = nanoseconds()
            guard now < deadline else { return }
            let wait = deadline - now
            var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }
}

/// Per-frame and per-switch timings of one recording, for benchmarks (`segrec record
/// --stats FILE`).
///
/// - Frames: for every frame *written*, its index and segment, when the pipeline got it
///   from the source (`deliveredNs`; with real-time pacing, when the camera captured it),
///   when the capture path had handed it to the segment's writer queue (`queuedNs`: the
///   capture path is free again) and when `SegmentWriter.append` returned on that queue
///   (`acceptedNs`), all on ``MonotonicClock``. For a segment's first frame `queuedNs`
///   includes closing the old segment (the hand-off) and queueing the new writer's opening.
/// - Switches: for every segment opened after the first, how long closing the previous
///   segment took on the capture path (`closeNs`) and how long opening the new writer took
///   on its queue (`openNs`: avformat + encoder init + header).
/// - Finalizations: per segment, from the hand-off to the file in place (frames still
///   queued, flush, trailer, rename), off the capture path.
///
/// Appending takes an uncontended lock (frames are accepted on the writer queues);
/// ``write(to:)`` formats everything at the end as JSON lines, sorted.
public final class RecordingStatistics: @unchecked Sendable {
    /// One written frame.
    public struct Frame: Sendable, Equatable {
        /// The frame's capture index.
        public var index: Int64
        /// Index of the segment it was written to.
        public var segment: Int
        /// When the pipeline got it from the source (monotonic clock, nanoseconds).
        public var deliveredNs: UInt64
        /// When the capture path had handed the frame to the segment's writer queue (and
        /// was free for the next frame).
        public var queuedNs: UInt64
        /// When `SegmentWriter.append` returned for it (monotonic clock, nanoseconds).
        public var acceptedNs: UInt64
        /// `acceptedNs − deliveredNs`: delivery to encoded.
        public var latencyNs: UInt64 { acceptedNs &- deliveredNs }
        /// `queuedNs − deliveredNs`: how long the capture path was busy with the frame.
        public var capturePathNs: UInt64 { queuedNs &- deliveredNs }
    }

    /// One segment switch on the capture path.
    public struct Switch: Sendable, Equatable {
        /// Index of the segment opened.
        public var segment: Int
        /// Index of its first frame.
        public var frameIndex: Int64
        /// Closing (handing off) the previous segment.
        public var closeNs: UInt64
        /// Opening the new writer (on the segment's writer queue, off the capture path).
        public var openNs: UInt64
    }

    /// One segment finished by the background finalizer.
    public struct Finalization: Sendable, Equatable {
        /// Index of the segment finished.
        public var segment: Int
        /// From the hand-off to the file in place (flush, trailer, rename), nanoseconds.
        public var durationNs: UInt64
    }

    private var framesStorage: [Frame] = []
    private var switchesStorage: [Switch] = []
    private var finalizationsStorage: [Finalization] = []
    private let lock = NSLock()

    /// Delivery time of the frame being processed (set by the pipeline, read on the capture path).
    var pendingDeliveredNs: UInt64 = 0

    /// - Parameter expectedFrames: capacity reserved so appending never reallocates.
    public init(expectedFrames: Int = 0) {
        framesStorage.reserveCapacity(max(0, expectedFrames))
        switchesStorage.reserveCapacity(64)
    }

    /// Frames written, by index.
    public var frames: [Frame] { lock.withLock { framesStorage }.sorted { $0.index < $1.index } }
    /// Segment switches, by segment.
    public var switches: [Switch] { lock.withLock { switchesStorage }.sorted { $0.segment < $1.segment } }
    /// Segments finished, by segment.
    public var finalizations: [Finalization] {
        lock.withLock { finalizationsStorage }.sorted { $0.segment < $1.segment }
    }

    /// Marks the frame about to be processed as delivered at `nanoseconds`.
    public func frameDelivered(at nanoseconds: UInt64) { pendingDeliveredNs = nanoseconds }

    func frameAccepted(index: Int64, segment: Int, deliveredNs: UInt64, queuedNs: UInt64, acceptedNs: UInt64) {
        let frame = Frame(index: index, segment: segment, deliveredNs: deliveredNs, queuedNs: queuedNs,
                          acceptedNs: acceptedNs)
        lock.withLock { framesStorage.append(frame) }
    }

    func segmentOpened(_ segment: Int, firstFrame: Int64, closeNs: UInt64?, openNs: UInt64) {
        guard segment > 0 else { return }
        let record = Switch(segment: segment, frameIndex: firstFrame, closeNs: closeNs ?? 0, openNs: openNs)
        lock.withLock { switchesStorage.append(record) }
    }

    func recordFinalization(segment: Int, nanoseconds: UInt64) {
        lock.withLock { finalizationsStorage.append(Finalization(segment: segment, durationNs: nanoseconds)) }
    }

    /// The statistics as JSON lines:
    /// `{"frame":…,"segment":…,"deliveredNs":…,"queuedNs":…,"acceptedNs":…}`
    /// per written frame, then `{"switch":…,"frame":…,"closeNs":…,"openNs":…}` per switch and
    /// `{"finalize":…,"durationNs":…}` per finished segment.
    public func jsonLines() -> String {
        var out = ""
        let frames = self.frames
        out.reserveCapacity(frames.count * 110 + 200)
        for f in frames {
            out += "{\"frame\":\(f.index),\"segment\":\(f.segment),\"deliveredNs\":\(f.deliveredNs),\"queuedNs\":\(f.queuedNs),\"acceptedNs\":\(f.acceptedNs)}\n"
        }
        for s in switches {
            out += "{\"switch\":\(s.segment),\"frame\":\(s.frameIndex),\"closeNs\":\(s.closeNs),\"openNs\":\(s.openNs)}\n"
        }
        for f in finalizations {
            out += "{\"finalize\":\(f.segment),\"durationNs\":\(f.durationNs)}\n"
        }
        return out
    }

    /// Writes ``jsonLines()`` to `url` (atomically). - Throws: ``RecordingError/io(_:)``-style
    /// errors from Foundation.
    public func write(to url: URL) throws {
        try Data(jsonLines().utf8).write(to: url, options: .atomic)
    }
}
