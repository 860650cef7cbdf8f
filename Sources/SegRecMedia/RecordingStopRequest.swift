import Synchronization

/// A request, from any thread (a signal handler, a UI), that a running
/// recording stop (`Recorder`): it stops pulling frames, closes the open segment at the end
/// of its last frame and writes the manifest with `stopReason: requested` — the analog of
/// calling `AVCaptureMovieFileOutput.stopRecording()`.
///
/// ``isRequested`` is one lock-free atomic load, so anything that waits can poll it
/// synchronously: the pipeline between events, a demuxer's `AVIOInterruptCB` while a read
/// blocks on a pipe. ``request()`` is one atomic store, safe inside a POSIX signal handler.
public final class RecordingStopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    /// A request this one follows: requested when it is.
    private let parent: RecordingStopRequest?

    /// The request the `segrec` command's SIGINT/SIGTERM handler makes: the first signal
    /// sets it (and a recording ends cleanly); a blocking reader inside the process polls
    /// `RecordingStopRequest.process.isRequested` to give up its read.
    public static let process = RecordingStopRequest()

    /// A request not yet made.
    public init() { parent = nil }

    /// A request of its own that is also requested whenever `parent` is (a recording's own
    /// stop, which a process-wide signal handler's request stops too).
    package init(following parent: RecordingStopRequest?) { self.parent = parent }

    /// Asks the pipeline to stop after the frame it is processing. Async-signal-safe.
    public func request() { requested.store(true, ordering: .releasing) }

    private let ended = Atomic<Bool>(false)

    /// Marks the recording this flag stops as ended (every file finished, only the manifest's
    /// last rewrite left), and the flag it follows too: a signal handler that sees it knows
    /// nothing is left to stop.
    package func markEnded() {
        ended.store(true, ordering: .releasing)
        parent?.markEnded()
    }

    /// Whether the recording has ended (``markEnded()``).
    package var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Whether a stop has been requested.
    public var isRequested: Bool { requested.load(ordering: .acquiring) || parent?.isRequested == true }
}
