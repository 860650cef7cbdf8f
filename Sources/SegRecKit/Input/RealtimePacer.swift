/// Paces a source at its frame rate, like a camera, and drops the frames the recorder could
/// not take in time (`segrec record --realtime`).
///
/// ## Model
/// The camera captures frame *i* at `t(i) = t0 + (sessionTime(i) − sessionTime(0))` on
/// `ContinuousClock` (`t0` = the first pull). Between the camera and the recorder sits a
/// **one-slot buffer**, which is how `AVCaptureVideoDataOutput` behaves with
/// `alwaysDiscardsLateVideoFrames = true`: while the recorder is busy with a frame, the
/// first frame captured meanwhile waits in the slot and every later one is discarded. When
/// the recorder asks for the next event at time `now`, having taken its previous frame at
/// time `s`:
///
/// - a frame captured at or before `s` was captured while the slot was full: it is
///   **dropped**, delivered in-band as ``CaptureOutputEvent/frameDropped(_:)`` with
///   ``DropReason/late`` (`captureOutput(_:didDrop:from:)` with `FrameWasLate`);
/// - the first frame captured in `(s, now]` is the one in the slot: delivered at once;
/// - if none was captured yet, the call sleeps until the next capture time (an `await` that
///   blocks no thread; with ``HostPacingClock`` the wake-up is a Dispatch timer, so a busy
///   cooperative pool cannot delay it) and delivers that frame.
///
/// "Busy" is the muxer's time per frame: queueing the picture to the segment's writer.
/// With ``SegmentMuxer/Configuration/dropsFramesWhenBehind`` (as `segrec record --realtime`
/// sets it) that never waits for the encoder: when ``SegmentMuxer/framesInFlight`` pictures
/// are already queued the muxer drops the frame itself (`late`), as an app drops a frame
/// while `AVAssetWriterInput.isReadyForMoreMediaData` is false; frames dropped here are
/// those the capture path itself was too slow for. Delivered frames carry their capture instant in
/// ``VideoFrame/deliveredAt`` (time spent waiting in the slot counts as latency).
/// A frame the source itself delivers late (its `next()` waited: a live producer that
/// paused, a pipe without data) moves the pace with it: the recorder was idle meanwhile, so
/// that frame counts as captured when it arrived and the frames after it keep their spacing
/// from it (`t0` moves by the wait); only the recorder's own time drops frames.
/// Completions, notes and warnings pass through unpaced, in order. Deterministic given the
/// recorder's timings; the pictures of frames that end up dropped are still rendered, which
/// makes it slightly pessimistic when the recorder is already behind. Time is read from a
/// ``PacingClock``: the host's by default, or one a test advances itself.
package final class RealtimePacer: CaptureOutputEventSource {
    private let source: any CaptureOutputEventSource
    private let clock: any PacingClock
    private var origin: (instant: ContinuousClock.Instant, session: MediaTime)?
    /// When the recorder took its previous frame (`s`).
    private var lastTake: ContinuousClock.Instant?

    /// Frames dropped as late so far.
    package private(set) var droppedFrameCount = 0

    /// True after ``stopRunning()``.
    private var isStopped = false

    /// - Parameters:
    ///   - source: the events to pace (frames carry session times).
    ///   - clock: the time capture and delivery are measured on (default: the host's
    ///     `ContinuousClock`).
    package init(wrapping source: any CaptureOutputEventSource, clock: any PacingClock = HostPacingClock()) {
        self.source = source
        self.clock = clock
    }

    /// Stops the wrapped source; what it still delivers is passed on at once, unpaced
    /// (those frames were captured already).
    package func stopRunning() {
        source.stopRunning()
        isStopped = true
    }

    package nonisolated(nonsending) func next() async throws -> sending CaptureOutputEvent? {
        let now = clock.now
        guard let event = try await source.next() else { return nil }
        guard case .frame(var frame) = event else { return event }
        if isStopped {
            frame.deliveredAt = now
            return .frame(frame)
        }
        var captured = try captureInstant(of: frame.sessionTime, now: now)
        let arrived = clock.now
        if captured < arrived, arrived > now, let start = origin?.instant {
            // The source itself made the frame late (a live producer that paused, a pipe
            // that waited for data): the recorder was idle meanwhile, so the pace follows
            // the producer: the frame counts as captured when it arrived, and later frames
            // keep their spacing from it.
            let shift = arrived - max(captured, now)
            origin?.instant = start + shift
            captured = captured + shift
        }
        if let lastTake, captured <= lastTake {
            droppedFrameCount += 1
            return .frameDropped(DroppedFrame(index: frame.index, reason: .late))
        }
        if captured > now { await clock.sleep(until: captured) }
        lastTake = max(captured, now)
        frame.deliveredAt = captured
        return .frame(frame)
    }

    /// The instant at which the camera captures the frame at `sessionTime`.
    private func captureInstant(of sessionTime: MediaTime, now: ContinuousClock.Instant) throws -> ContinuousClock.Instant {
        guard let origin else {
            origin = (now, sessionTime)
            return now
        }
        let offset = try sessionTime.subtracting(origin.session).converted(toTimescale: 1_000_000_000)
        return offset.value <= 0 ? origin.instant : origin.instant + .nanoseconds(offset.value)
    }
}
