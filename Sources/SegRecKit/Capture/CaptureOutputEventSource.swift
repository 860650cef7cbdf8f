/// Anything that delivers a `VideoDataOutput`'s events in order: the capture session over
/// the fake camera (``CaptureSession``), a decoded file passed through
/// (``FilePassThroughSource``), or either paced in real time (``RealtimePacer``).
///
/// Everything the recorder needs to know rides on the events (frames, completions, drops,
/// notes and warnings): a source never holds the recorder.
///
/// A source is a non-`Sendable` object owned by the one task that pulls it.
package protocol CaptureOutputEventSource: AnyObject {
    /// The next event; nil at the end of the stream. `sending`: the source keeps no part of
    /// it (an event taken from the source's own storage is handed on as
    /// ``CaptureOutputEvent/detached()``), so the recorder may hand its pixels on to another
    /// isolation domain.
    /// - Throws: source errors (e.g. a corrupt file), after every event before the damage;
    ///   `CancellationError` when the pulling task is cancelled while a source waits.
    nonisolated(nonsending) func next() async throws -> sending CaptureOutputEvent?

    /// Stops capturing (`AVCaptureSession.stopRunning()`): ``next()`` then delivers only
    /// what was already captured or received (a decoder's buffered pictures, a session's
    /// queued events), without waiting for more input, and returns nil after it.
    func stopRunning()
}

extension CaptureSession: CaptureOutputEventSource {}
