/// A scheduled event a capture session rejects when it applies it, found by a rehearsal
/// (``CaptureSession`` applies its events without pictures
/// before recording, so a scenario fails before anything is written).
package struct CaptureEventError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Position of the event in the session's `events` (time order), or nil when the
    /// session failed before its first event (starting the devices).
    package let eventIndex: Int?
    /// What the session threw.
    package let error: CaptureError

    /// Creates an error for the event at `eventIndex`.
    package init(eventIndex: Int?, error: CaptureError) {
        self.eventIndex = eventIndex
        self.error = error
    }

    /// `events[i]: <the capture error>`.
    package var description: String { eventIndex.map { "events[\($0)]: \(error)" } ?? error.description }
}
