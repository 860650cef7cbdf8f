import Synchronization

/// Back-pressure between the muxer and the segment writers: at most `capacity` pictures are
/// queued to writers and not yet encoded, across all segments. ``acquire()`` suspends (an
/// `await`, never a blocked thread) while all slots are taken; a writer calls ``release()``
/// once it has consumed a picture. The analog of `AVAssetWriterInput.isReadyForMoreMediaData`
/// turning false, as an `async` wait.
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

    /// Gives a slot back; hands it straight to the oldest waiter if there is one.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.available += 1
            return nil
        }
        waiter?.resume()
    }

    /// Slots free now (for tests and diagnostics).
    var available: Int { state.withLock { $0.available } }
}
