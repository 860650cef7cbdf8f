import Foundation
import Synchronization

/// Per-frame and per-switch timings of one recording, for benchmarks (`segrec record
/// --stats FILE`). Every time is nanoseconds on `ContinuousClock` since the statistics
/// were created (only differences are meaningful).
///
/// - Frames: for every frame *written*, its index and segment, when it was delivered
///   (``VideoFrame/deliveredAt``: with real-time pacing, when the camera captured it;
///   otherwise when the pipeline took it from the source), when the muxer had queued it to
///   the segment's writer (`queuedNs`: the capture path is free again) and when
///   `SegmentWriter.append` returned on the writer (`acceptedNs`). For a segment's first
///   frame `queuedNs` includes closing the old segment and starting the new writer.
/// - Switches: for every segment opened after the first, how long closing the previous
///   segment took on the capture path (`closeNs`) and how long opening the new writer took
///   on its own executor (`openNs`: avformat + encoder init + header).
/// - Finalizations: per segment, from the hand-off to the file in place (frames still
///   queued, flush, trailer, rename), off the capture path.
///
/// Sendable: records are appended from the muxer and the writers under one `Mutex`;
/// ``write(to:)`` formats everything at the end as JSON lines, sorted.
package final class RecordingStatistics: Sendable {
    /// One written frame.
    package struct Frame: Sendable, Equatable {
        /// The frame's capture index.
        package var index: Int64
        /// Index of the segment it was written to.
        package var segment: Int
        /// When it was delivered (nanoseconds since the statistics were created).
        package var deliveredNs: UInt64
        /// When the muxer had queued the frame to the segment's writer (and the capture path
        /// was free for the next frame).
        package var queuedNs: UInt64
        /// When `SegmentWriter.append` returned for it.
        package var acceptedNs: UInt64
        /// `acceptedNs − deliveredNs`: delivery to encoded.
        package var latencyNs: UInt64 { acceptedNs &- deliveredNs }
        /// `queuedNs − deliveredNs`: how long the capture path was busy with the frame.
        package var capturePathNs: UInt64 { queuedNs &- deliveredNs }
    }

    /// One segment switch on the capture path.
    package struct Switch: Sendable, Equatable {
        /// Index of the segment opened.
        package var segment: Int
        /// Index of its first frame.
        package var frameIndex: Int64
        /// Closing (handing off) the previous segment, nanoseconds.
        package var closeNs: UInt64
        /// Opening the new writer (on the writer's executor, off the capture path), nanoseconds.
        package var openNs: UInt64
    }

    /// One segment finished off the capture path.
    package struct Finalization: Sendable, Equatable {
        /// Index of the segment finished.
        package var segment: Int
        /// From the hand-off to the file in place (flush, trailer, rename), nanoseconds.
        package var durationNs: UInt64
    }

    private struct Records {
        var frames: [Frame] = []
        var switches: [Switch] = []
        var finalizations: [Finalization] = []
    }

    /// The instant all times are measured from.
    package let origin: ContinuousClock.Instant
    private let records: Mutex<Records>

    /// - Parameter expectedFrames: capacity reserved so appending never reallocates.
    package init(expectedFrames: Int = 0) {
        var records = Records()
        records.frames.reserveCapacity(max(0, expectedFrames))
        records.switches.reserveCapacity(64)
        self.records = Mutex(records)
        origin = .now
    }

    /// Frames written, by index.
    package var frames: [Frame] { records.withLock { $0.frames }.sorted { $0.index < $1.index } }
    /// Segment switches, by segment.
    package var switches: [Switch] { records.withLock { $0.switches }.sorted { $0.segment < $1.segment } }
    /// Segments finished, by segment.
    package var finalizations: [Finalization] { records.withLock { $0.finalizations }.sorted { $0.segment < $1.segment } }

    /// Nanoseconds from ``origin`` to `instant` (0 for instants before it).
    package func nanoseconds(at instant: ContinuousClock.Instant) -> UInt64 { UInt64(clamping: (instant - origin).nanoseconds) }

    func frameAccepted(index: Int64, segment: Int, delivered: ContinuousClock.Instant, queued: ContinuousClock.Instant, accepted: ContinuousClock.Instant) {
        let frame = Frame(
            index: index, segment: segment, deliveredNs: nanoseconds(at: delivered), queuedNs: nanoseconds(at: queued), acceptedNs: nanoseconds(at: accepted))
        records.withLock { $0.frames.append(frame) }
    }

    func segmentOpened(_ segment: Int, firstFrame: Int64, close: Duration?, open: Duration) {
        guard segment > 0 else { return }
        let record = Switch(
            segment: segment, frameIndex: firstFrame, closeNs: UInt64(clamping: close?.nanoseconds ?? 0), openNs: UInt64(clamping: open.nanoseconds))
        records.withLock { $0.switches.append(record) }
    }

    func recordFinalization(segment: Int, duration: Duration) {
        let record = Finalization(segment: segment, durationNs: UInt64(clamping: duration.nanoseconds))
        records.withLock { $0.finalizations.append(record) }
    }

    /// The statistics as JSON lines:
    /// `{"frame":…,"segment":…,"deliveredNs":…,"queuedNs":…,"acceptedNs":…}`
    /// per written frame, then `{"switch":…,"frame":…,"closeNs":…,"openNs":…}` per switch and
    /// `{"finalize":…,"durationNs":…}` per finished segment.
    package func jsonLines() -> String {
        var out = ""
        let frames = self.frames
        out.reserveCapacity(frames.count * 110 + 200)
        for f in frames {
            out +=
                "{\"frame\":\(f.index),\"segment\":\(f.segment),\"deliveredNs\":\(f.deliveredNs),\"queuedNs\":\(f.queuedNs),\"acceptedNs\":\(f.acceptedNs)}\n"
        }
        for s in switches { out += "{\"switch\":\(s.segment),\"frame\":\(s.frameIndex),\"closeNs\":\(s.closeNs),\"openNs\":\(s.openNs)}\n" }
        for f in finalizations { out += "{\"finalize\":\(f.segment),\"durationNs\":\(f.durationNs)}\n" }
        return out
    }

    /// Writes ``jsonLines()`` to `url` (atomically). - Throws: Foundation's file errors.
    package func write(to url: URL) throws { try Data(jsonLines().utf8).write(to: url, options: .atomic) }
}
