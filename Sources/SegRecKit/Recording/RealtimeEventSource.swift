/// Paces a source at its frame rate, like a camera, and drops the frames the recorder could
/// not take in time (`segrec record --realtime`).
///
/// ## Model
/// The camera captures frame *i* at wall time `t(i) = t0 + (sessionTime(i) − sessionTime(0))`
/// on ``MonotonicClock`` (`t0` = the first pull). Between the camera and the recorder sits
/// a **one-slot buffer**, which is how `AVCaptureVideoDataOutput` behaves with
/// `alwaysDiscardsLateVideoFrames = true`: while the delegate (here: the recorder, called
/// from the pipeline's thread) is busy with a frame, the first frame captured meanwhile
/// waits in the slot and every later one is discarded. When the recorder asks for the next
/// event (``next()``) at time `now`, having taken its previous frame at time `s`:
///
/// - frames captured at or before `s` were captured while the slot was full: **dropped**,
///   counted with ``Recorder/countDroppedFrame(_:)`` as ``DropReason/late``;
/// - the first frame captured in `(s, now]` is the one in the slot: delivered at once;
/// - if none was captured yet, the call sleeps until the next capture time and delivers
///   that frame.
///
/// The two-thread arrangement (a capture thread filling the slot on schedule, the recorder
/// emptying it) gives exactly these drops when capture takes no time; this single-threaded
/// form is deterministic given the recorder's timings and needs no locks. Its one
/// difference: the synthetic pictures of frames that end up dropped are still rendered (a
/// camera would not spend the recorder's time on them), which makes it slightly
/// pessimistic when the recorder is already behind.
///
/// "Busy" is the capture path's time per frame: with ``SegmentingRecorder`` and
/// ``MovieFileRecorder`` that is handing the picture to the segment's writer queue
/// (``SegmentFileSequence/framesInFlight`` pictures deep), so frames are dropped when the
/// encoder falls that far behind — as `AVAssetWriterInput.isReadyForMoreMediaData` going
/// false makes an app drop frames.
///
/// Completions of `setDynamicAspectRatio` pass through unpaced, in order.
/// ``lastDeliveryNanoseconds`` is the delivered frame's capture time `t(i)` (time spent
/// waiting in the slot counts as latency).
public final class RealtimeEventSource: CaptureOutputEventSource {
    private let source: any CaptureOutputEventSource
    private let recorder: any Recorder
    private var origin: (wall: UInt64, session: MediaTime)?
    /// When the recorder took its previous frame (`s`).
    private var lastTake: UInt64?

    /// Capture time of the frame returned last, on ``MonotonicClock``.
    public private(set) var lastDeliveryNanoseconds: UInt64 = 0
    /// Frames dropped as late so far.
    public private(set) var droppedFrameCount = 0

    /// - Parameters:
    ///   - source: the events to pace (frames carry session times in nanoseconds).
    ///   - recorder: where dropped frames are counted.
    public init(wrapping source: any CaptureOutputEventSource, recorder: any Recorder) {
        self.source = source
        self.recorder = recorder
    }

    public func next() throws -> CaptureOutputEvent? {
        let now = MonotonicClock.nanoseconds()
        while let event = try source.next() {
            guard case .frame(let frame) = event else { return event }
            let captured = try captureTime(of: frame, now: now)
            if let lastTake, captured <= lastTake {
                droppedFrameCount += 1
                recorder.countDroppedFrame(.late)
                continue
            }
            if captured > now { MonotonicClock.sleep(until: captured) }
            lastTake = max(captured, now)
            lastDeliveryNanoseconds = captured
            return event
        }
        return nil
    }

    /// Wall time at which the camera captures `frame`.
    private func captureTime(of frame: VideoFrame, now: UInt64) throws -> UInt64 {
        guard let origin else {
            origin = (now, frame.sessionTime)
            return now
        }
        let offset = try frame.sessionTime.subtracting(origin.session).converted(toTimescale: 1_000_000_000)
        return offset.value <= 0 ? origin.wall : origin.wall &+ UInt64(offset.value)
    }
}
