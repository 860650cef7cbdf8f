/// What a ``SegmentMuxer`` announces as it records: the complete history of a recording,
/// from which ``ManifestBuilder`` folds the manifest. Observers get the segment-level events
/// (everything but ``frameWritten(segment:)``) through ``SegmentMuxer/observer``.
package enum SegmentMuxerEvent: Sendable, Equatable {
    /// A segment file was opened for its first frame.
    case segmentOpened(SegmentRecord)
    /// A frame went into segment `segment` (its index).
    case frameWritten(segment: Int)
    /// A received frame will not be written (`count` frames, 1 unless a run of damage
    /// swallowed several).
    case frameDropped(DropReason, count: Int = 1)
    /// The change that opened segment `file` is known (a completion arrived, or the
    /// recording ended without one: `announced: false`).
    case changeAttached(file: String, ChangeRecord)
    /// The open segment was handed off to be finished: it ends at `end`; its last frame
    /// lasts until `framesEnd` when that is earlier (a camera or format switch's gap without
    /// pictures follows), else until `end`.
    case segmentEnded(file: String, end: MediaTime, framesEnd: MediaTime? = nil)
    /// A segment file is finished and in place.
    case segmentClosed(file: String, start: MediaTime, end: MediaTime, frames: Int, bytes: Int64)
    /// A segment could not be written or finished: its partial file is gone, its frames
    /// count as dropped (`writeFailed`).
    case segmentFailed(file: String, frames: Int, reason: String)
    /// A segment whose writer failed (e.g. disk full) was rebuilt from the complete
    /// fragments of its `.partial` file: it holds `frames` frames and ends at `end`; the
    /// rest of its frames count as dropped (`writeFailed`).
    case segmentSalvaged(file: String, frames: Int, end: MediaTime, bytes: Int64, reason: String)
    /// A remark for the manifest's `notes`.
    case note(String)
    /// A warning for the manifest's `warnings`.
    case warning(String)
    /// The input had `packets` more damaged packets (manifest `frames.corruptPackets`).
    case inputDamaged(packets: Int)
    /// The microphone delivered `samples` more sample frames.
    case audioReceived(samples: Int)
    /// `file`'s audio track is complete: what it holds; nil when the file holds no audio
    /// track (a segment rebuilt from fragments that kept none of its sound).
    case segmentAudioWritten(file: String, SegmentAudioRecord?)
    /// The recording stopped taking frames (stop-on-change) at session time `at`.
    case stopped(StopReason, at: MediaTime)
    /// The capture session did something the manifest's `events` list records.
    case sessionEvent(SessionEventRecord)
    /// The recording ended; `error` is the failure's message for `stopReason: error`.
    case finished(StopReason, error: String?)
}
