/// Why a frame that the camera captured (or the input held) was not written: the analog of
/// the dropped-frame reason (`kCMSampleBufferAttachmentKey_DroppedFrameReason`) that
/// `AVCaptureVideoDataOutputSampleBufferDelegate.captureOutput(_:didDrop:from:)` reports,
/// extended with the recorder's own reasons. Counted per reason in the manifest's
/// `frames.droppedReasons`.
public enum DropReason: String, Sendable, Codable, CaseIterable {
    /// Stop-on-change mode had already stopped.
    case recordingStopped
    /// Its timestamp did not come after the previous frame's.
    case nonMonotonicTimestamp
    /// The recorder could not take it in time (real-time pacing; `FrameWasLate`).
    case late
    /// The writer failed on it.
    case writeFailed
    /// The input's packet for it was damaged beyond decoding: the decoder rejected it
    /// (real footage; counted with the input's `corruptPackets`).
    case corrupt
    /// It had been handed to the writer when the recording process died, and no complete
    /// fragment on disk holds it (counted by `segrec recover`).
    case interrupted
    /// A stream copied as sent (`--copy`) delivered it before its first keyframe, which a
    /// file must start with.
    case beforeKeyframe
}
