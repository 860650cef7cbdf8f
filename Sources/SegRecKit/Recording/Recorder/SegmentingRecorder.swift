/// A recorder an app tells where segments end, in session time: the protocol of the Center
/// Stage article's recorder (`SegmentingRecorder`, with ``MediaTime`` for `CMTime`). The app
/// converts `setDynamicAspectRatio`'s device-clock answer to the session's synchronization
/// clock (``convertTime(_:from:to:rounding:)``, `CMSyncConvertTime`) and
/// calls both methods with that time.
public protocol SegmentingRecorder: Actor {
    /// The open segment ends at `time` (session clock): its last frame lasts until then.
    /// - Throws: the recorder's errors.
    func finishCurrentSegment(atSessionTime time: MediaTime) async throws
    /// The next segment starts at `time` (session clock) with the first frame of the new
    /// dimensions.
    /// - Throws: the recorder's errors.
    func startNextSegment(afterSessionTime time: MediaTime) async throws
}
