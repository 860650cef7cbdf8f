/// What happens in a recording, as it happens: what an app's UI shows without polling
/// (``Recorder/events``), and what `segrec record`'s progress line reads.
public enum RecordingEvent: Sendable {
    /// A segment file was opened for its first frame: its manifest record so far.
    case segmentOpened(SegmentRecord)
    /// A segment file is finished and in place: its manifest record (frames, span, bytes,
    /// sound). Also sent for a segment rebuilt from its fragments after its writer failed.
    case segmentClosed(SegmentRecord)
    /// A segment could not be written; its frames count as dropped (`writeFailed`).
    case segmentFailed(file: String, reason: String)
    /// A warning, as the manifest's `warnings` lists it.
    case warning(String)
    /// `count` frames will not be written, for `reason`.
    case framesDropped(DropReason, count: Int)
    /// After each frame taken from the input: counts and the session time covered.
    case progress(RecordingProgress)
    /// The recording stopped taking frames (stop-on-change) at session time `at`.
    case stopped(StopReason, at: MediaTime)
    /// The recording ended: its manifest, as written to the folder.
    case finished(RecordingManifest)

    /// The event an app sees for the muxer's `event` (nil for bookkeeping it does not
    /// show); `record` is the segment's manifest record where the event names a segment.
    static func from(_ event: SegmentMuxerEvent, record: SegmentRecord?) -> RecordingEvent? {
        switch event {
        case .segmentOpened(let opened): return .segmentOpened(opened)
        case .segmentClosed, .segmentSalvaged: return record.map { .segmentClosed($0) }
        case .segmentFailed(let file, _, let reason): return .segmentFailed(file: file, reason: reason)
        case .warning(let warning): return .warning(warning)
        case .frameDropped(let reason, let count): return .framesDropped(reason, count: count)
        case .stopped(let reason, let at): return .stopped(reason, at: at)
        default: return nil
        }
    }
}
