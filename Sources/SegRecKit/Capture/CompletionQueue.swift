/// Places `setDynamicAspectRatio` completions in the output stream (DESIGN.md): a request
/// taking effect on frame `k` completes just before frame `k + completionDelayFrames`, but
/// never before the first frame at/after the request (`requestFrameIndex`), and never before
/// an earlier request's completion (FIFO).
struct CompletionQueue {
    private var pending: [(position: Int64, change: DynamicAspectRatioChange)] = []
    private var head = 0
    private var lastPosition = Int64.min

    /// Adds `request`'s completion, to be delivered before frame
    /// `max(k + delay, requestFrameIndex, previous position)`.
    mutating func enqueue(_ request: DynamicAspectRatioRequest, completionDelayFrames delay: Int64) {
        let (shifted, overflow) = request.effectiveFrameIndex.addingReportingOverflow(delay)
        let target = overflow ? (delay > 0 ? Int64.max : Int64.min) : shifted
        let position = max(target, request.requestFrameIndex, lastPosition)
        lastPosition = position
        pending.append((position, request.change))
    }

    /// The oldest completion due before frame `index`, removed; `nil` when none is due.
    mutating func popDue(beforeFrame index: Int64) -> DynamicAspectRatioChange? {
        guard head < pending.count, pending[head].position <= index else { return nil }
        return pop()
    }

    /// The oldest completion whatever its position (end of stream), removed.
    mutating func pop() -> DynamicAspectRatioChange? {
        guard head < pending.count else { return nil }
        let change = pending[head].change
        head += 1
        if head == pending.count { pending.removeAll(keepingCapacity: true); head = 0 }
        return change
    }
}
