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
/// - Frames: for every frame *written*, its index, when the pipeline got it from the source
///   (`deliveredNs`; with real-time pacing, when the camera captured it) and when
///   `SegmentWriter.append` returned (`acceptedNs`), both on ``MonotonicClock``. For the
///   first frame of a segment `acceptedNs` includes closing the old file and opening the
///   new one.
/// - Switches: for every segment opened after the first, how long handing the old segment
///   off took on the capture path (`closeNs`) and how long opening the new writer took
///   (`openNs`, avformat + encoder init + header).
/// - Finalizations: how long finishing each segment took off the capture path (flush,
///   trailer, rename).
///
/// The hot path only appends to arrays reserved up front; ``write(to:)`` formats everything
/// at the end as JSON lines. Not thread-safe except ``recordFinalization(segment:nanoseconds:)``,
/// which the background finalizer calls (under a lock).
public final class RecordingStatistics: @unchecked Sendable {
    /// One written frame.
    public struct Frame: Sendable, Equatable {
        public var index: Int64
        public var segment: Int
        public var deliveredNs: UInt64
        public var acceptedNs: UInt64
        /// `acceptedNs − deliveredNs`.
        public var latencyNs: UInt64 { acceptedNs &- deliveredNs }
    }

    /// One segment switch on the capture path.
    public struct Switch: Sendable, Equatable {
        /// Index of the segment opened.
        public var segment: Int
        /// Index of its first frame.
        public var frameIndex: Int64
        /// Closing (handing off) the previous segment.
        public var closeNs: UInt64
        /// Opening the new writer.
        public var openNs: UInt64
    }

    /// One segment finished by the background finalizer.
    public struct Finalization: Sendable, Equatable {
        public var segment: Int
        public var durationNs: UInt64
    }

    /// Frames written, in order.
    public private(set) var frames: [Frame] = []
    /// Segment switches, in order.
    public private(set) var switches: [Switch] = []
    private var finalizationsStorage: [Finalization] = []
    private let lock = NSLock()

    /// Delivery time of the frame being processed (set by the pipeline).
    var pendingDeliveredNs: UInt64 = 0
    /// Duration of the last close, consumed by the next open.
    var pendingCloseNs: UInt64?

    /// - Parameter expectedFrames: capacity reserved so appending never reallocates.
    public init(expectedFrames: Int = 0) {
        frames.reserveCapacity(max(0, expectedFrames))
        switches.reserveCapacity(64)
    }

    /// Segments finished off the capture path, in completion order.
    public var finalizations: [Finalization] { lock.withLock { finalizationsStorage } }

    /// Marks the frame about to be processed as delivered at `nanoseconds`.
    public func frameDelivered(at nanoseconds: UInt64) { pendingDeliveredNs = nanoseconds }

    func frameAccepted(index: Int64, segment: Int, at nanoseconds: UInt64) {
        frames.append(Frame(index: index, segment: segment, deliveredNs: pendingDeliveredNs, acceptedNs: nanoseconds))
    }

    func segmentOpened(_ segment: Int, firstFrame: Int64, openNs: UInt64) {
        guard segment > 0 else { pendingCloseNs = nil; return }
        switches.append(Switch(segment: segment, frameIndex: firstFrame, closeNs: pendingCloseNs ?? 0, openNs: openNs))
        pendingCloseNs = nil
    }

    func recordFinalization(segment: Int, nanoseconds: UInt64) {
        lock.withLock { finalizationsStorage.append(Finalization(segment: segment, durationNs: nanoseconds)) }
    }

    /// The statistics as JSON lines: `{"frame":…,"segment":…,"deliveredNs":…,"acceptedNs":…}`
    /// per written frame, then `{"switch":…,"frame":…,"closeNs":…,"openNs":…}` per switch and
    /// `{"finalize":…,"durationNs":…}` per finished segment.
    public func jsonLines() -> String {
        var out = ""
        out.reserveCapacity(frames.count * 90 + switches.count * 80 + 200)
        for f in frames {
            out += "{\"frame\":\(f.index),\"segment\":\(f.segment),\"deliveredNs\":\(f.deliveredNs),\"acceptedNs\":\(f.acceptedNs)}\n"
        }
        for s in switches {
            out += "{\"switch\":\(s.segment),\"frame\":\(s.frameIndex),\"closeNs\":\(s.closeNs),\"openNs\":\(s.openNs)}\n"
        }
        for f in finalizations.sorted(by: { $0.segment < $1.segment }) {
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
