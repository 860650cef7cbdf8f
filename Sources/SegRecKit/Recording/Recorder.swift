/// Something that turns a `VideoDataOutput`'s events into files and a manifest.
///
/// Two policies exist, as on iOS: ``SegmentingRecorder`` (AVAssetWriter fed by
/// AVCaptureVideoDataOutput: a new file per run of equal dimensions) and
/// ``MovieFileRecorder`` (AVCaptureMovieFileOutput: stop on the first change).
/// Recorders are driven from one thread (the capture path) and are not `Sendable`.
public protocol Recorder: AnyObject {
    /// Consumes one frame or one `setDynamicAspectRatio` completion, in delivery order.
    /// - Throws: ``RecordingError`` or the writer's `FFmpegError`; after a throw, call
    ///   ``abort(error:)`` to keep what was already written.
    func process(_ event: CaptureOutputEvent) throws

    /// True once the recorder takes no more frames (stop-on-change after a change).
    var hasStopped: Bool { get }

    /// Counts a frame the pipeline had to drop before it reached the recorder (e.g. late).
    func countDroppedFrame(_ reason: DropReason)

    /// Closes the open segment at the end of its last frame, writes the manifest and
    /// returns it. - Parameter reason: why the recording ends: `endOfStream` or
    /// `requested` (a recorder that already stopped on a change keeps `dimensionsChanged`).
    /// - Throws: writer or I/O errors (the manifest then says `error`).
    func finish(reason: StopReason) throws -> RecordingManifest

    /// Keeps what can be kept after a failure: the open segment is finalized if the writer
    /// still can, otherwise removed; the manifest records `stopReason: error` and `message`.
    func abort(error message: String) -> RecordingManifest
}

extension Recorder {
    /// ``finish(reason:)`` at the end of the stream.
    public func finish() throws -> RecordingManifest { try finish(reason: .endOfStream) }
}
