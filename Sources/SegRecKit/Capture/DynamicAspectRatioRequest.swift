/// A `setDynamicAspectRatio` request as the ``CaptureDevice`` recorded it: when it was made,
/// the frame it takes effect on, and the completion the output will report.
public struct DynamicAspectRatioRequest: Sendable, Hashable {
    /// Position of the request in the order requests were made, from 0 (completions are FIFO).
    public let sequenceNumber: Int
    /// The ratio asked for.
    public let aspectRatio: DynamicAspectRatio
    /// Host time (session clock, nanoseconds) at which the request was made.
    public let requestTime: MediaTime
    /// Index of the first frame not yet captured when the request was made: its completion
    /// is never delivered before this frame.
    public let requestFrameIndex: Int64
    /// `k`: the first frame captured with the requested ratio.
    public let effectiveFrameIndex: Int64
    /// What the completion reports: the ratio, its dimensions, `D(k)` and its session time.
    public let change: DynamicAspectRatioChange
    /// `false` when the ratio was already in effect at frame `k` (counting earlier pending
    /// requests): the request completes but no frame changes size.
    public let changesDimensions: Bool
}

/// Which ratio is in effect at each frame index: the initial ratio, overridden by each
/// request from its effective frame on (a later request wins from its own frame on).
struct AspectRatioSchedule: Sendable {
    let initial: DynamicAspectRatio
    /// `(first frame, ratio)`, frames non-decreasing; later entries win ties.
    private var entries: [(frame: Int64, ratio: DynamicAspectRatio)] = []

    init(initial: DynamicAspectRatio) { self.initial = initial }

    /// The ratio frame `index` is captured with.
    func ratio(atFrame index: Int64) -> DynamicAspectRatio {
        entries.last { $0.frame <= index }?.ratio ?? initial
    }

    /// The ratio frames will have once every recorded request has taken effect.
    var latest: DynamicAspectRatio { entries.last?.ratio ?? initial }

    /// Applies `ratio` from frame `index` on; later frames of earlier entries are overridden.
    mutating func apply(_ ratio: DynamicAspectRatio, fromFrame index: Int64) {
        entries.removeAll { $0.frame > index }
        entries.append((index, ratio))
    }
}
