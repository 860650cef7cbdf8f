import Foundation

/// What the ``Recorder`` reports after each frame (``RecordingEvent/progress(_:)``).
public struct RecordingProgress: Sendable {
    /// Frames the source delivered so far.
    public var framesReceived: Int
    /// Frames written into segments so far.
    public var framesWritten: Int
    /// Session time covered so far, in seconds (first frame to the latest frame), for
    /// arithmetic; print ``timeRecorded`` (exact).
    public var secondsRecorded: Double
    /// Segments opened so far.
    public var segments: Int
    /// Session time covered so far (first frame to the latest frame), exact.
    public var timeRecorded: MediaTime = .zero
}

/// A recording that failed part-way: the error, and the manifest of what was kept.
public struct RecordingFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let underlying: any Error
    /// The manifest written after salvaging closed (and, where possible, the open) segments.
    public let manifest: RecordingManifest
    /// The folder written (its descriptor path in messages is shown as its own path).
    package var output: OutputDirectory?

    package init(underlying: any Error, manifest: RecordingManifest, output: OutputDirectory? = nil) {
        (self.underlying, self.manifest, self.output) = (underlying, manifest, output)
    }

    public var description: String { output?.displayText("\(underlying)") ?? "\(underlying)" }
}
