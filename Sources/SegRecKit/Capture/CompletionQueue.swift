/// Places `setDynamicAspectRatio` completions in the output stream (Docs/clocks.md): a request
/// taking effect on frame `k` completes just before frame `k + completionDelayFrames`, but
/// never before the first frame at/after the request (`requestFrameIndex`), and never before
/// an earlier request's completion (FIFO).
///
/// A request that a later one overrides on its own frame never takes effect: it completes
/// ``CaptureOutputEvent/dynamicAspectRatioChangeSuperseded(_:)`` instead of with a time.
/// Whether a request was superseded is decided when its completion is delivered, from the
/// requests made by then. With `completionDelayFrames ≥ 0` that is every request that can
/// still reach frame `k` (a request made after frame `k` was captured takes effect later);
/// with a negative delay a request made after an early completion may still override it:
/// ``CaptureSession`` holds such a completion back until its frame is captured and turns it
/// `superseded` when a later request or a camera or format switch comes first.
struct CompletionQueue {
    private var pending: [(position: Int64, request: DynamicAspectRatioRequest)] = []
    private var head = 0
    private var lastPosition = Int64.min
    /// Whether every request was enqueued with an effective frame ≥ the previous one's (the
    /// device guarantees it: request times never go back and the latency is fixed). Then
    /// only the next queued request can supersede the head, an O(1) check; otherwise the
    /// whole rest of the queue is searched.
    private var effectiveFramesNonDecreasing = true
    private var lastEffectiveFrame = Int64.min

    /// Adds `request`'s completion, to be delivered before frame
    /// `max(k + delay, requestFrameIndex, previous position)`.
    mutating func enqueue(_ request: DynamicAspectRatioRequest, completionDelayFrames delay: Int64) {
        let (shifted, overflow) = request.effectiveFrameIndex.addingReportingOverflow(delay)
        let target = overflow ? (delay > 0 ? Int64.max : Int64.min) : shifted
        let position = max(target, request.requestFrameIndex, lastPosition)
        lastPosition = position
        if request.effectiveFrameIndex < lastEffectiveFrame { effectiveFramesNonDecreasing = false }
        lastEffectiveFrame = request.effectiveFrameIndex
        pending.append((position, request))
    }

    /// The oldest completion due before frame `index`, removed, with its request; `nil`
    /// when none is due.
    mutating func popDue(beforeFrame index: Int64) -> (CaptureOutputEvent, DynamicAspectRatioRequest)? {
        guard head < pending.count, pending[head].position <= index else { return nil }
        let request = pending[head].request
        return pop().map { ($0, request) }
    }

    /// The oldest completion whatever its position (end of stream), removed.
    mutating func pop() -> CaptureOutputEvent? {
        guard head < pending.count else { return nil }
        let request = pending[head].request
        // A later request (still queued: completions are FIFO) that takes effect on the same
        // frame or earlier wins that frame; this one never takes effect.
        let superseded =
            effectiveFramesNonDecreasing
            ? head + 1 < pending.count && pending[head + 1].request.effectiveFrameIndex <= request.effectiveFrameIndex
            : pending[(head + 1)...].contains { $0.request.effectiveFrameIndex <= request.effectiveFrameIndex }
        head += 1
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        }
        if superseded { return .dynamicAspectRatioChangeSuperseded(DynamicAspectRatioSupersession(request)) }
        return .dynamicAspectRatioChangeCompleted(request.change)
    }

    /// Removes every queued request that has not taken effect by frame `index` (its
    /// effective frame is at or after it) and returns their `superseded` completions, in
    /// request order: what a camera switch does to the requests pending on the old camera.
    mutating func supersede(effectiveAtOrAfter index: Int64) -> [CaptureOutputEvent] {
        var kept: [(position: Int64, request: DynamicAspectRatioRequest)] = []
        var events: [CaptureOutputEvent] = []
        for entry in pending[head...] {
            if entry.request.effectiveFrameIndex >= index {
                events.append(.dynamicAspectRatioChangeSuperseded(DynamicAspectRatioSupersession(entry.request)))
            } else {
                kept.append(entry)
            }
        }
        pending = kept
        head = 0
        return events
    }
}
