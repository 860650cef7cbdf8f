import SegRecKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP for the whole `segrec` process, installed with `sigaction`
/// as the first thing `main` does (before any allocation tuning or argument parsing), so
/// no early signal finds the default action:
///
/// - While a recording runs (``armForRecording()`` was called), the first signal sets
///   ``RecordingStopRequest/process``: the pipeline stops after the frame it is on, the
///   open segment is finalized and the manifest says `stopReason: requested` (exit 0); a
///   reader blocked on a pipe polls the same flag from its `AVIOInterruptCB`.
/// - A second signal, or any signal while nothing is recording (parsing, `verify`,
///   `formats`), exits at once with 128 + the signal number (130 for SIGINT, 143 for
///   SIGTERM, 129 for SIGHUP), the shells' convention.
/// - Once the recording has ended (its final manifest is on disk:
///   ``RecordingStopRequest/hasEnded``, or ``recordingEnded()``), further signals are ignored: what is left is printing the summary, and the exit code is the
///   recording's (a second Ctrl-C 50 ms after the first, arriving once a short stop had
///   completed, exited 130 though the manifest said `requested`).
/// - SIGHUP (the terminal closed) is SIGTERM's twin: a recording finishes cleanly.
/// - SIGPIPE is ignored: a write to a stream whose reader is gone (stderr piped to a
///   program that quit, stdout to `head`) fails with `EPIPE` and is dropped
///   (``Terminal``), and the recording goes on and finishes.
///
/// The handler only does async-signal-safe work: atomic loads and stores, `write(2)` of a
/// constant line and `_exit(2)`. No `SA_RESTART`: a `read(2)` interrupted in the thread
/// that took the signal returns `EINTR`, which FFmpeg's I/O retries only after asking its
/// interrupt callback.
public enum SignalHandling {
    private static let armed = Atomic<Bool>(false)
    private static let received = Atomic<Int32>(0)
    private static let firstSignal = Atomic<Int32>(0)
    private static let ended = Atomic<Bool>(false)
    private static let isSegmentOpen = Atomic<Bool>(false)

    /// Whether a segment file is open (what the stop message says).
    static func segmentOpen(_ open: Bool) { isSegmentOpen.store(open, ordering: .releasing) }

    /// Installs the handler for SIGINT, SIGTERM and SIGHUP, and ignores SIGPIPE. Call once, first thing.
    public static func install() {
        // Initialize every static the handler touches before a signal can arrive.
        _ = RecordingStopRequest.process
        _ = armed.load(ordering: .relaxed)
        _ = received.load(ordering: .relaxed)
        _ = firstSignal.load(ordering: .relaxed)
        _ = ended.load(ordering: .relaxed)
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handle
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }

    /// From now on the first signal stops the recording instead of exiting.
    static func armForRecording() { armed.store(true, ordering: .releasing) }

    /// The recording has ended and its manifest is final: later signals are ignored.
    static func recordingEnded() { ended.store(true, ordering: .releasing) }

    /// The signal that asked the recording to stop (SIGINT, SIGTERM or SIGHUP), or nil.
    static var stopSignal: Int32? {
        let number = firstSignal.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// The exit code a process ended by `signal` conventionally has: 128 + its number.
    static func exitCode(for signal: Int32) -> Int32 { 128 + signal }

    /// The name shells print for `signal`.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    private static let handle: @convention(c) (Int32) -> Void = { number in
        if ended.load(ordering: .acquiring) || RecordingStopRequest.process.hasEnded { return }
        let count = received.add(1, ordering: .acquiringAndReleasing).newValue
        if count == 1 && armed.load(ordering: .acquiring) {
            firstSignal.store(number, ordering: .releasing)
            RecordingStopRequest.process.request()
            let line: StaticString =
                isSegmentOpen.load(ordering: .acquiring)
                ? "\nsegrec: stopping: finishing the open segment (signal again to exit at once)\n"
                : "\nsegrec: stopping: no segment is open; ending (signal again to exit at once)\n"
            _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
            return
        }
        let line: StaticString = "\nsegrec: interrupted; exiting at once\n"
        _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
        _exit(128 + number)
    }
}
