import Synchronization

/// The I/O timeout of a live source: how long libavformat may wait for its data before the
/// read gives up (`AVERROR_EXIT` through the context's `AVIOInterruptCB`, which every
/// protocol under the demuxer asks while it waits: TCP, UDP, SRT, RTMP, RTSP, HTTP, HLS).
///
/// The reader ``touch()``es it after each packet; ``isExpired`` is what the interrupt
/// callback asks. Unarmed (a listening source before its first packet) it never expires:
/// waiting for a sender to connect is ended by a stop request only.
package final class InputWatchdog: Sendable {
    /// How long the source may send nothing once armed.
    package let timeout: Duration
    private let deadline: Mutex<ContinuousClock.Instant?>

    /// A watchdog of `timeout`; `initialAllowance` (nil: unarmed) is the first deadline's
    /// distance from now, for connecting and probing.
    package init(timeout: Duration, initialAllowance: Duration?) {
        self.timeout = timeout
        deadline = Mutex(initialAllowance.map { ContinuousClock.now + $0 })
    }

    /// ``timeout`` in seconds, for messages (`5`, `0.5`).
    package var seconds: String {
        let (whole, attoseconds) = timeout.components
        return attoseconds == 0 ? "\(whole)" : "\(Double(whole) + Double(attoseconds) / 1e18)"
    }

    /// Data arrived: the source has ``timeout`` from now.
    package func touch() { deadline.withLock { $0 = ContinuousClock.now + timeout } }

    /// Whether the source has sent nothing for longer than allowed.
    package var isExpired: Bool { deadline.withLock { $0.map { ContinuousClock.now >= $0 } ?? false } }
}
