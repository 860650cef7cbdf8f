import Synchronization

/// Back-pressure between the muxer and the segment writers: at most `capacity` pictures are
/// queued to writers and not yet encoded, across all segments. ``acquire()`` suspends (an
/// `await`, never a blocked thread) while all slots are taken; a writer calls ``release()``
/// once it has consumed a picture. The analog of `AVAssetWriterInput.isReadyForMoreMediaData`
/// turning false, as an `async` wait.
///
/// Under `--realtime` the muxer never waits: ``tryAcquire()`` answers at once (false: the
/// frame is dropped `late`, as an app drops a sample buffer while
/// `isReadyForMoreMediaData` is false), and ``acquireBeyondCapacity()`` lets a segment's
/// first frame in even when the queue is full (a file never opens without its first frame),
/// so the bound is then `capacity + 1`.
///
/// Waiters are resumed in FIFO order. Thread-safe (one `Mutex`).
final class FrameSlots: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The number of slots.
    let capacity: Int
    private let state: Mutex<State>

    /// - Parameter capacity: pictures in flight at most (≥ 1).
    init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
        state = Mutex(State(available: capacity))
    }

    /// Takes a slot, suspending until one is free.
    func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Takes a slot if one is free now; never waits.
    /// - Returns: false when all slots are taken (nothing changes then).
    func tryAcquire() -> Bool {
        state.withLock { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
    }

    /// Takes a slot without waiting, even when none is free (the count of free slots goes
    /// below zero until enough are released); for a segment's first frame in real time.
    func acquireBeyondCapacity() { state.withLock { $0.available -= 1 } }

    /// Gives a slot back; hands it straight to the oldest waiter if there is one.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.available >= 0, !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.available += 1
            return nil
        }
        waiter?.resume()
    }

    /// Slots free now, negative while a first frame was let in beyond capacity (for tests
    /// and diagnostics).
    var available: Int { state.withLock { $0.available } }
}
