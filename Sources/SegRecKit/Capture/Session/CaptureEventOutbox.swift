/// The events a ``CaptureSession`` produced and has not delivered yet, in delivery order,
/// with the completions it holds back: a timed `setDynamicAspectRatio` completion placed
/// ahead of the frame it announces (a negative `completionDelayFrames`) stops delivery,
/// from it on, until that frame is captured or the completion is superseded.
///
/// A delivered event's slot is emptied (taken, not copied), so the outbox never keeps a
/// delivered frame's planes alive: the pool hands them out again once the encoder lets go,
/// and a plane still referenced here would be copied in full by its next writer
/// (copy-on-write).
///
/// Not `Sendable` (it holds frames); owned by one session.
struct CaptureEventOutbox {
    /// Events from `head` on are not delivered yet.
    private var events: [CaptureOutputEvent?] = []
    private var head = 0
    /// Timed completions ahead of their frame, in outbox order.
    private var held: [(position: Int, request: DynamicAspectRatioRequest)] = []

    /// Whether an event can be delivered now: one is waiting before the first held completion.
    var hasDeliverable: Bool { head < (held.first?.position ?? events.count) }

    /// Queues `event` last.
    mutating func append(_ event: CaptureOutputEvent) { events.append(event) }

    /// The position the next appended event takes (for ``rewrite(at:_:)``).
    var endPosition: Int { events.count }

    /// Replaces the undelivered event at `position` by what `transform` makes of it (nil:
    /// leaves it); a position already delivered or gone (the outbox emptied) is left alone.
    mutating func rewrite(at position: Int, _ transform: (CaptureOutputEvent) -> CaptureOutputEvent?) {
        guard position >= head, position < events.count, let event = events[position], let new = transform(event) else { return }
        events[position] = new
    }

    /// Queues `events` last, in order.
    mutating func append(contentsOf events: [CaptureOutputEvent]) { self.events.append(contentsOf: events.map(Optional.some)) }

    /// Queues `completion` of `request`, held back (with everything after it) until
    /// ``releaseHeld(capturedBefore:)`` sees its frame captured.
    mutating func appendHeld(_ completion: CaptureOutputEvent, for request: DynamicAspectRatioRequest) {
        held.append((events.count, request))
        events.append(completion)
    }

    /// Lets go of the held completions whose frame is before `deliveredFrameCount` (captured: their answers stand).
    mutating func releaseHeld(capturedBefore deliveredFrameCount: Int64) {
        while let first = held.first, first.request.effectiveFrameIndex < deliveredFrameCount { held.removeFirst() }
    }

    /// Lets go of every held completion (the stream ended before their frames: they stand as answered).
    mutating func releaseAllHeld() { held.removeAll() }

    /// Turns the held completions that `isSuperseded` says never take effect into
    /// `superseded` ones, in their places.
    mutating func supersedeHeld(where isSuperseded: (DynamicAspectRatioRequest) -> Bool) {
        guard !held.isEmpty else { return }
        held.removeAll { entry in
            guard isSuperseded(entry.request) else { return false }
            events[entry.position] = .dynamicAspectRatioChangeSuperseded(DynamicAspectRatioSupersession(entry.request))
            return true
        }
    }

    /// Takes the next event out (``hasDeliverable`` must be true), emptying its slot.
    mutating func takeNext() -> CaptureOutputEvent {
        let event = events[head].take()!
        head += 1
        if head == events.count, held.isEmpty {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }

    /// Drops everything not delivered (a rehearsal produces no stream).
    mutating func discardAll() {
        events.removeAll(keepingCapacity: true)
        head = 0
        held.removeAll()
    }
}
