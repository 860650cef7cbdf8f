/// What the muxer does when a frame's dimensions differ from the open segment's: the two
/// recording paths of the seeds, as one value instead of two recorder classes (compare
/// GStreamer splitmuxsink's split decision).
package enum SplitPolicy: Sendable, Hashable {
    /// AVAssetWriter fed by AVCaptureVideoDataOutput: close the segment exactly at the first
    /// new-size frame's session time and open the next one there (`--mode segment`).
    case split
    /// AVCaptureMovieFileOutput: a QuickTime/MP4 track keeps one size, so the first
    /// new-size frame stops the recording; the file holds every frame before it and ends at
    /// its session time (`--mode stop-on-change`).
    case stopOnFirstChange

    /// The policy of a ``RecordingMode``.
    package init(_ mode: RecordingMode) {
        switch mode {
        case .segment: self = .split
        case .stopOnChange: self = .stopOnFirstChange
        }
    }

    /// The ``RecordingMode`` the manifest names.
    package var mode: RecordingMode {
        switch self {
        case .split: .segment
        case .stopOnFirstChange: .stopOnChange
        }
    }
}
