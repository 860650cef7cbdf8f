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
    /// How long the first wait may last (connecting and probing), for messages.
    package let initialAllowance: Duration?
    private let deadline: Mutex<ContinuousClock.Instant?>
    /// When the source must have sent its first packet, whatever the deadline (a
    /// reconnection's window); nil: no such limit.
    private let firstPacketLimit: ContinuousClock.Instant?
    private let touched = Mutex(false)

    /// A watchdog of `timeout`; `initialAllowance` (nil: unarmed) is the first deadline's
    /// distance from now, for connecting and probing; `firstPacketBy` (nil: none) ends the
    /// wait for the first packet then at the latest, armed or not.
    package init(timeout: Duration, initialAllowance: Duration?, firstPacketBy: ContinuousClock.Instant? = nil) {
        self.timeout = timeout
        self.initialAllowance = initialAllowance
        deadline = Mutex(initialAllowance.map { ContinuousClock.now + $0 })
        firstPacketLimit = firstPacketBy
    }

    /// `duration` in seconds, for messages (`5`, `0.5`).
    package static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return attoseconds == 0 ? "\(whole)" : "\(Double(whole) + Double(attoseconds) / 1e18)"
    }

    /// ``timeout`` in seconds, for messages (`5`, `0.5`).
    package var seconds: String { Self.seconds(timeout) }

    /// How long the first wait may last in all, in seconds, for messages: the timeout plus
    /// the allowance for reading the stream's first seconds.
    package var initialSeconds: String { Self.seconds(initialAllowance ?? timeout) }

    /// Data arrived: the source has ``timeout`` from now.
    package func touch() {
        deadline.withLock { $0 = ContinuousClock.now + timeout }
        touched.withLock { $0 = true }
    }

    /// Whether the source has sent nothing for longer than allowed.
    package var isExpired: Bool {
        let now = ContinuousClock.now
        if let limit = firstPacketLimit, now >= limit, !touched.withLock({ $0 }) { return true }
        return deadline.withLock { $0.map { now >= $0 } ?? false }
    }
}
