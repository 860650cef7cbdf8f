import SegRecTime
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
    /// The instant the watchdog's times count from.
    private let origin: ContinuousClock.Instant
    /// The deadline, in nanoseconds after ``origin``; `Int64.max` while unarmed. An atomic,
    /// not a lock: the interrupt callback asks ``isExpired`` for every read of every datagram.
    private let deadline: Atomic<Int64>
    /// When the source must have sent its first packet, whatever the deadline (a
    /// reconnection's window), in nanoseconds after ``origin``; nil: no such limit.
    private let firstPacketLimit: Int64?
    private let touched = Atomic<Bool>(false)
    private let timeoutNanoseconds: Int64

    /// A watchdog of `timeout`; `initialAllowance` (nil: unarmed) is the first deadline's
    /// distance from now, for connecting and probing; `firstPacketBy` (nil: none) ends the
    /// wait for the first packet then at the latest, armed or not.
    package init(timeout: Duration, initialAllowance: Duration?, firstPacketBy: ContinuousClock.Instant? = nil) {
        self.timeout = timeout
        self.initialAllowance = initialAllowance
        let origin = ContinuousClock.now
        self.origin = origin
        timeoutNanoseconds = timeout.nanoseconds
        deadline = Atomic(initialAllowance.map { $0.nanoseconds } ?? .max)
        firstPacketLimit = firstPacketBy.map { ($0 - origin).nanoseconds }
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
        let (now, overflow) = elapsed.addingReportingOverflow(timeoutNanoseconds)
        deadline.store(overflow ? .max : now, ordering: .relaxed)
        touched.store(true, ordering: .relaxed)
    }

    /// Whether the source has sent nothing for longer than allowed.
    package var isExpired: Bool {
        let now = elapsed
        if let limit = firstPacketLimit, now >= limit, !touched.load(ordering: .relaxed) { return true }
        return now >= deadline.load(ordering: .relaxed)
    }

    /// Nanoseconds since ``origin``.
    private var elapsed: Int64 { (ContinuousClock.now - origin).nanoseconds }
}
