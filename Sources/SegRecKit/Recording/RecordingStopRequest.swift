import Synchronization

/// A request, from any thread (a signal handler's queue, a UI), that a running
/// ``RecordingPipeline`` stop: it stops pulling frames, closes the open segment at the end
/// of its last frame and writes the manifest with `stopReason: requested` — the analog of
/// calling `AVCaptureMovieFileOutput.stopRecording()`.
public final class RecordingStopRequest: Sendable {
    private let requested = Atomic<Bool>(false)

    /// A request not yet made.
    public init() {}

    /// Asks the pipeline to stop after the frame it is processing.
    public func request() { requested.store(true, ordering: .releasing) }

    /// Whether a stop has been requested.
    public var isRequested: Bool { requested.load(ordering: .acquiring) }
}
