/// Holds back a session event that names a frame (``SessionEventRecord/frameIndex``) until
/// that frame arrives, so the manifest's `events` list only what happened (Docs/manifest.md,
/// `events`: in session order).
///
/// A capture session logs some events before the frame they name: an active-format switch
/// names the new format's first frame (`frameIndex`, `sessionTime`) as soon as the switch is
/// made, a reconfiguration gap before that frame exists. A second switch inside the gap, or
/// the end of the session inside it, means that frame never comes (or comes at another
/// time, from another format). So:
/// - an event naming a frame not yet delivered waits;
/// - when frame `i` arrives at session time `t`, the waiting events naming frame `i` at `t`
///   are released (in arrival order, just before the frame); those naming frame `i` at
///   another time, or an earlier frame, never happened and are left out;
/// - a frame the source dropped (index `i`, time unknown) releases the events naming `i`;
/// - at the end, events still waiting are left out.
///
/// Events without a frame index, or naming a frame already delivered, pass at once.
/// Linear: each event waits at most until the next frame (they name the next frame to be
/// delivered), so the waiting list stays as short as one gap's switches.
struct SessionEventSequencer: Sendable {
    private var waiting: [SessionEventRecord] = []
    /// The index of the last frame that arrived (delivered or dropped by the source), if any.
    private var lastFrameIndex: Int64?
    /// Events left out so far because the frame they name never came at their time.
    private(set) var leftOut: [SessionEventRecord] = []

    /// An event from the session: returns it when it can be listed now, nil when it waits
    /// for its frame.
    mutating func received(_ record: SessionEventRecord) -> SessionEventRecord? {
        guard let index = record.frameIndex, index > (lastFrameIndex ?? -1) else { return record }
        waiting.append(record)
        return nil
    }

    /// Frame `index` arrived at session time `sessionTime` (nil: the source dropped it and
    /// its time is unknown). - Returns: the waiting events it releases, in arrival order.
    mutating func frameArrived(index: Int64, sessionTime: MediaTime?) -> [SessionEventRecord] {
        lastFrameIndex = max(lastFrameIndex ?? index, index)
        guard !waiting.isEmpty else { return [] }
        var released: [SessionEventRecord] = []
        var stillWaiting: [SessionEventRecord] = []
        for record in waiting {
            guard let named = record.frameIndex, named <= index else {
                stillWaiting.append(record)
                continue
            }
            if named == index, sessionTime.map({ $0 == record.sessionTime }) ?? true { released.append(record) } else { leftOut.append(record) }
        }
        waiting = stillWaiting
        return released
    }

    /// The session ended: every event still waiting named a frame that never came.
    mutating func finish() {
        leftOut.append(contentsOf: waiting)
        waiting = []
    }

    /// The note for the manifest about ``leftOut``, or nil when none was.
    var note: String? {
        guard !leftOut.isEmpty else { return nil }
        let n = leftOut.count
        let what =
            leftOut.prefix(3).map { "\($0.kind.rawValue) at \(DecimalSeconds.text($0.sessionTime)) s naming frame \($0.frameIndex ?? -1)" }.joined(
                separator: ", ") + (n > 3 ? ", …" : "")
        return "\(n) session event\(n == 1 ? "" : "s") naming a frame the session did not deliver at that time \(n == 1 ? "is" : "are") not in events (\(what))"
    }
}
