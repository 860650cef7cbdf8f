/// A `setDynamicAspectRatio` request as the ``CaptureDevice`` recorded it: when it was made,
/// the frame it takes effect on, and the completion the output will report.
package struct DynamicAspectRatioRequest: Sendable, Hashable {
    /// Position of the request in the order requests were made, from 0 (completions are FIFO).
    package let sequenceNumber: Int
    /// The ratio asked for.
    package let aspectRatio: DynamicAspectRatio
    /// Host time (session clock, nanoseconds) at which the request was made.
    package let requestTime: MediaTime
    /// Index of the first frame not yet captured when the request was made: its completion
    /// is never delivered before this frame.
    package let requestFrameIndex: Int64
    /// `k`: the first frame captured with the requested ratio.
    package let effectiveFrameIndex: Int64
    /// What the completion reports: the ratio, its dimensions, `D(k)` and its session time.
    package let change: DynamicAspectRatioChange
    /// `false` when the ratio was already in effect at frame `k` (counting earlier pending
    /// requests): the request completes but no frame changes size.
    package let changesDimensions: Bool
}

/// Which ratio is in effect at each frame index: the initial ratio, overridden by each
/// request from its effective frame on (a later request wins from its own frame on).
struct AspectRatioSchedule: Sendable {
    let initial: DynamicAspectRatio
    /// `(first frame, ratio)`, frames strictly increasing.
    private var entries: [(frame: Int64, ratio: DynamicAspectRatio)] = []

    init(initial: DynamicAspectRatio) { self.initial = initial }

    /// The ratio frame `index` is captured with: the entry with the largest first frame
    /// ≤ `index` (binary search, O(log n)).
    func ratio(atFrame index: Int64) -> DynamicAspectRatio {
        var low = 0
        var high = entries.count  // entries[..<low] start ≤ index; entries[high...] start > index
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].frame <= index { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initial : entries[low - 1].ratio
    }

    /// The ratio frames will have once every recorded request has taken effect.
    var latest: DynamicAspectRatio { entries.last?.ratio ?? initial }

    /// Applies `ratio` from frame `index` on; entries from frame `index` on are overridden
    /// (removed from the end, so a run of requests costs amortized O(1) each; entries stay
    /// strictly increasing in frame).
    mutating func apply(_ ratio: DynamicAspectRatio, fromFrame index: Int64) {
        while let last = entries.last, last.frame >= index { entries.removeLast() }
        entries.append((index, ratio))
    }
}
