/// Matches `setDynamicAspectRatio` completions to the segments the buffers open (Docs/clocks.md,
/// "Dynamic aspect ratio"): a pure value the muxer feeds with segment openings and
/// completions, in delivery order, and that answers with what to record.
///
/// The rule:
/// - A timed completion is attached to the segment whose first frame it announces: exactly
///   (same session time and dimensions), whether it arrives before that frame (kept
///   pending) or after it (the segment waits for it).
/// - If the announced time and the buffers disagree, the buffers win: the completion is
///   attached to the segment that changed to its dimensions around that time (the next
///   new-size segment for a pending one; the segment covering the announced time, or the
///   one after it, for a late one) and a warning is written.
/// - A request for the dimensions already in effect makes no segment and no warning.
/// - A later completion for the same instant overrides an earlier one (the earlier request
///   never took effect, as a `superseded` completion says outright).
/// - A segment whose completion has not arrived when the recording ends gets its first
///   frame's device and session time with `announced: false`, and no warning.
/// - A completion whose dimensions the buffers never had at the announced time is warned
///   about at the end (unless its time is at or after the recording's end).
struct ChangeAnnouncementMatcher: Sendable {
    /// What to record.
    enum Decision: Sendable, Equatable {
        /// Set `change` on the segment stored in `file`.
        case attach(file: String, ChangeRecord)
        /// Add a warning.
        case warn(String)
    }

    /// A segment as the matcher sees it.
    private struct Segment: Sendable {
        let file: String
        let dimensions: VideoDimensions
        let sessionStart: MediaTime
        let firstFrame: VideoFrameTimes
        /// Opened on new dimensions and no completion matched yet.
        var awaitingChange: Bool
    }

    /// The times and index of a segment's first frame.
    struct VideoFrameTimes: Sendable, Equatable {
        let index: Int64
        let deviceTime: MediaTime
        let sessionTime: MediaTime
        let dimensions: VideoDimensions

        init(_ frame: VideoFrame) {
            index = frame.index
            deviceTime = frame.deviceTime
            sessionTime = frame.sessionTime
            dimensions = frame.dimensions
        }
    }

    private var segments: [Segment] = []
    /// Completions for times still to come, in arrival order.
    private var pending: [DynamicAspectRatioChange] = []
    /// Completions for past times that matched no change of the buffers (warned at the end).
    private var unmatched: [DynamicAspectRatioChange] = []
    private var lastFrameTime: MediaTime?
    /// Completions for times still to come that asked for the dimensions in effect, kept
    /// until a frame reaches their time: a camera or format switch before then may start
    /// the new stream at other dimensions, and then they are a change after all.
    private var inEffectWhenAnnounced: [DynamicAspectRatioChange] = []

    /// Records that a frame at `sessionTime` was written (to the open segment).
    mutating func frameWritten(at sessionTime: MediaTime) {
        lastFrameTime = sessionTime
        inEffectWhenAnnounced.removeAll { $0.sessionTime <= sessionTime }
    }

    /// A segment opened on `frame`. With `newDimensions` (its size differs from the
    /// previous segment's) the announced change it realizes is looked up and returned as
    /// the segment's change record; without one yet it waits for its completion.
    /// - Returns: the change record (or nil) and what to warn about.
    /// A segment opened by a camera switch (`cameraSwitched`) carries its own change
    /// record: like the first segment, it realizes no pending request.
    mutating func segmentOpened(file: String, firstFrame frame: VideoFrame, newDimensions: Bool, cameraSwitched: Bool = false) -> (ChangeRecord?, [Decision]) {
        let times = VideoFrameTimes(frame)
        var decisions: [Decision] = []
        var change: ChangeRecord?
        if segments.isEmpty || cameraSwitched {
            // Completions that arrived before the first frame (of the recording or of the new
            // camera): changes realized by it are no change, and now that the dimensions in
            // effect are known, those asking for them make no segment and no warning (as for a
            // completion arriving later). One that matched the old camera's dimensions (made in
            // the switch gap) is a change again if the new camera starts at others.
            let waiting = (inEffectWhenAnnounced + pending).sorted { $0.sessionTime < $1.sessionTime }
            inEffectWhenAnnounced.removeAll()
            pending = Self.droppingNoChange(waiting, firstFrame: frame)
        } else if newDimensions {
            (change, decisions) = takePending(for: times)
        }
        segments.append(
            Segment(
                file: file, dimensions: frame.dimensions, sessionStart: frame.sessionTime, firstFrame: times,
                awaitingChange: newDimensions && change == nil && !cameraSwitched))
        return (change, decisions)
    }

    /// `pending` (in arrival order) without the completions the first frame of the recording
    /// or of a switched-to camera makes no change: those it realizes, and those asking for the dimensions in effect at their
    /// time (the first frame's, or the pending completion's before them).
    private static func droppingNoChange(_ pending: [DynamicAspectRatioChange], firstFrame frame: VideoFrame) -> [DynamicAspectRatioChange] {
        var kept: [DynamicAspectRatioChange] = []
        var inEffect = frame.dimensions
        for change in pending {
            if change.sessionTime <= frame.sessionTime {
                if change.dimensions != frame.dimensions { kept.append(change) }
                continue
            }
            if change.dimensions == inEffect { continue }
            inEffect = change.dimensions
            kept.append(change)
        }
        return kept
    }

    /// The pending completion that the new-size frame realizes, if it was announced already.
    private mutating func takePending(for frame: VideoFrameTimes) -> (ChangeRecord?, [Decision]) {
        guard
            let match = pending.firstIndex(where: { $0.dimensions == frame.dimensions && $0.sessionTime == frame.sessionTime })
                ?? pending.firstIndex(where: { $0.dimensions == frame.dimensions })
        else { return (nil, []) }
        let announced = pending[match]
        var decisions: [Decision] = []
        for skipped in pending[..<match] where skipped.sessionTime != announced.sessionTime {
            decisions.append(
                .warn(
                    "setDynamicAspectRatio(\(skipped.aspectRatio?.rawValue ?? "?")) announced \(skipped.dimensions) at session time \(skipped.sessionTime), but the buffers never had that size before frame \(frame.index)"
                ))
        }
        pending.removeSubrange(...match)
        if announced.sessionTime != frame.sessionTime {
            decisions.append(.warn(Self.disagreement(announced, bufferTime: frame.sessionTime, frameIndex: frame.index)))
        }
        return (ChangeRecord(announced), decisions)
    }

    /// A timed completion arrived.
    mutating func completed(_ change: DynamicAspectRatioChange) -> [Decision] {
        // A later completion for the same instant overrides an earlier unmatched one.
        unmatched.removeAll { $0.sessionTime == change.sessionTime }
        // 1. It announces exactly the start of a segment the buffers opened already.
        if let position = segments.firstIndex(where: { $0.awaitingChange && $0.dimensions == change.dimensions && $0.sessionStart == change.sessionTime }) {
            segments[position].awaitingChange = false
            return [.attach(file: segments[position].file, ChangeRecord(change))]
        }
        // 2. It announces a time still to come: keep it for the new-size frame, unless it asks
        //    for the dimensions in effect then. A later request wins from its own frame on, so
        //    pending completions at or after its time never reach the buffers.
        guard let last = lastFrameTime, change.sessionTime <= last else {
            pending.removeAll { $0.sessionTime >= change.sessionTime }
            let expected = pending.last?.dimensions ?? segments.last?.dimensions
            if change.dimensions != expected { pending.append(change) } else if pending.isEmpty { inEffectWhenAnnounced.append(change) }
            return []
        }
        // 3. A past time at which no segment started: if the buffers changed to its size
        //    around then (the segment covering that time, or the next one, has its size and
        //    awaits its change), they changed at another time than announced.
        let covering = segments.lastIndex { $0.sessionStart <= change.sessionTime }
        for position in [covering, covering.map { $0 + 1 } ?? 0].compactMap({ $0 }) where position < segments.count {
            guard segments[position].awaitingChange, segments[position].dimensions == change.dimensions else { continue }
            segments[position].awaitingChange = false
            return [
                .warn(Self.disagreement(change, bufferTime: segments[position].sessionStart, frameIndex: nil)),
                .attach(file: segments[position].file, ChangeRecord(change))
            ]
        }
        // 4. The ratio already in effect at that time: nothing to record. Otherwise the
        //    buffers never had that size there; warned at the end unless overridden.
        if let covering, segments[covering].dimensions == change.dimensions { return [] }
        unmatched.append(change)
        return []
    }

    /// The recording ended at `stopTime` (nil: no frame was written).
    /// - Returns: `announced: false` changes for segments still waiting, and warnings for
    ///   completions whose size the buffers never had before the end.
    mutating func finish(stopTime: MediaTime?) -> [Decision] {
        var decisions: [Decision] = []
        for position in segments.indices where segments[position].awaitingChange {
            segments[position].awaitingChange = false
            let first = segments[position].firstFrame
            decisions.append(
                .attach(
                    file: segments[position].file,
                    ChangeRecord(
                        deviceTime: first.deviceTime, sessionTime: first.sessionTime, aspectRatio: DynamicAspectRatio(matching: first.dimensions)?.rawValue,
                        announced: false)))
        }
        if let stopTime {
            for change in pending + unmatched where change.sessionTime < stopTime {
                decisions.append(
                    .warn(
                        "setDynamicAspectRatio(\(change.aspectRatio?.rawValue ?? "?")) announced \(change.dimensions) at session time \(change.sessionTime), but no frame had that size then"
                    ))
            }
        }
        pending.removeAll()
        unmatched.removeAll()
        inEffectWhenAnnounced.removeAll()
        return decisions
    }

    private static func disagreement(_ change: DynamicAspectRatioChange, bufferTime: MediaTime, frameIndex: Int64?) -> String {
        let frame = frameIndex.map { " (frame \($0))" } ?? ""
        return
            "setDynamicAspectRatio(\(change.aspectRatio?.rawValue ?? "?")) announced device time \(change.deviceTime) = session time \(change.sessionTime), but the buffers changed to \(change.dimensions) at session time \(bufferTime)\(frame); the segment boundary follows the buffers"
    }
}
