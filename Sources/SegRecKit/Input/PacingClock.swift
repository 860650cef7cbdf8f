import Dispatch

/// The time a ``RealtimePacer`` reads and waits on: the instants at which the camera
/// captures frames and the recorder takes them.
///
/// ``HostPacingClock`` (the default) is `ContinuousClock` with Dispatch timers; a test can
/// pass a clock it advances itself, so that pacing is a fact of the test rather than of
/// how busy the machine is.
package protocol PacingClock: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }

    /// Suspends until `deadline` (returns at once when it has passed). Blocks no thread.
    func sleep(until deadline: ContinuousClock.Instant) async
}

/// `ContinuousClock`, woken by a strict Dispatch timer (no leeway) rather than the
/// concurrency runtime's global timer, whose jobs first need a cooperative thread and may be
/// coalesced.
package struct HostPacingClock: PacingClock {
    /// The queue pacing timers fire on.
    private static let timerQueue = DispatchQueue(label: "segrec.realtime-pacer", qos: .userInteractive)

    package init() {}

    package var now: ContinuousClock.Instant { ContinuousClock.now }

    package func sleep(until deadline: ContinuousClock.Instant) async {
        let nanoseconds = ContinuousClock.now.duration(to: deadline).nanoseconds
        guard nanoseconds > 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: Self.timerQueue)
            timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), leeway: .nanoseconds(0))
            timer.setEventHandler {
                timer.cancel()
                continuation.resume()
            }
            timer.resume()
        }
    }
}
