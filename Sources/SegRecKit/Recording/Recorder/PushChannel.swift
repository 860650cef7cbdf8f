import Synchronization

/// The door an app's pushed pictures, sound and announcements come through: a short FIFO
/// between the app's tasks (producers) and the ``Recorder``'s one pull loop (the consumer).
/// A producer waits (an `await`, never a blocked thread) while ``capacity`` items are
/// queued, so what is pushed is bounded by the recorder's pace. Thread-safe (one `Mutex`).
final class PushChannel: Sendable {
    /// One thing an app pushed.
    enum Item: Sendable {
        /// A picture captured at `sessionTime`, with its capture angle when the app gave one.
        case picture(PushedPicture, sessionTime: MediaTime, captureAngle: VideoRotationAngle?)
        /// PCM samples whose first sample was captured at `deviceTime` on the app's audio clock.
        case audio(AudioPCMBuffer, deviceTime: MediaTime)
        /// `finishCurrentSegment(atSessionTime:)`.
        case finishCurrentSegment(MediaTime)
        /// `startNextSegment(afterSessionTime:)`.
        case startNextSegment(MediaTime)
    }

    private struct State {
        var queued: [Item] = []
        /// Producers waiting for room, each with its item, in arrival order.
        var waiting: [(Item, CheckedContinuation<Void, any Error>)] = []
        var consumer: CheckedContinuation<Item?, Never>?
        /// No more items are taken: the recording finished, stopped or failed.
        var closed = false
        /// Why producers are refused once closed.
        var refusal: (any Error)?
    }

    /// Items queued at most before a producer waits.
    let capacity: Int
    private let state = Mutex(State())

    /// - Parameter capacity: items queued at most (≥ 1).
    init(capacity: Int = 2) { self.capacity = max(1, capacity) }

    /// Queues `item`, waiting while the queue is full.
    /// - Throws: the refusal once the channel is closed (the recording's error, or
    ///   ``RecordingError/invalidState(_:)`` once it finished or stopped).
    func send(_ item: Item) async throws {
        enum Outcome {
            case done
            case refused(any Error)
            case waiting
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // One critical section decides: handed over, queued, refused, or wait for room.
            let outcome = state.withLock { state -> Outcome in
                if state.closed { return .refused(state.refusal ?? RecordingError.invalidState("the recording has ended; it takes nothing more")) }
                if let consumer = state.consumer {
                    state.consumer = nil
                    consumer.resume(returning: item)
                    return .done
                }
                if state.queued.count < capacity, state.waiting.isEmpty {
                    state.queued.append(item)
                    return .done
                }
                state.waiting.append((item, continuation))
                return .waiting
            }
            switch outcome {
            case .done: continuation.resume()
            case .refused(let error): continuation.resume(throwing: error)
            case .waiting: break
            }
        }
    }

    /// The next item, waiting for one; nil once the channel is closed and empty.
    func take() async -> Item? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
            // One critical section decides: an item now, the end now, or wait for a producer.
            let now = state.withLock { state -> Item?? in
                if !state.queued.isEmpty {
                    let item = state.queued.removeFirst()
                    if !state.waiting.isEmpty {
                        let (next, producer) = state.waiting.removeFirst()
                        state.queued.append(next)
                        producer.resume()
                    }
                    return .some(item)
                }
                if state.closed { return .some(nil) }
                state.consumer = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Takes no more items: the consumer gets what is queued, then nil; waiting and later
    /// producers are refused with `refusal` (nil: the recording has ended).
    func close(refusal: (any Error)? = nil) {
        let (consumer, waiting) = state.withLock { state in
            if !state.closed {
                state.closed = true
                state.refusal = refusal
            }
            let consumer = state.queued.isEmpty ? state.consumer : nil
            if consumer != nil { state.consumer = nil }
            let waiting = state.waiting.map(\.1)
            state.waiting = []
            return (consumer, waiting)
        }
        consumer?.resume(returning: nil)
        let error = refusal ?? RecordingError.invalidState("the recording has ended; it takes nothing more")
        for producer in waiting { producer.resume(throwing: error) }
    }
}
