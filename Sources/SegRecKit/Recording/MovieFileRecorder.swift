/// The AVCaptureMovieFileOutput recording path: one file, and the first frame with new
/// dimensions stops the recording (a QuickTime/MP4 track keeps one size).
///
/// The file is finalized with every frame before the change; its last frame lasts until the
/// change's session time. The manifest says `stopReason: dimensionsChanged` with that time;
/// the new-size frame and every later one are counted as dropped (`recordingStopped`).
public final class MovieFileRecorder: Recorder {
    let files: SegmentFileSequence
    private var stopTime: MediaTime?

    /// Same parameters as ``SegmentingRecorder/init(output:settings:devices:rotationDegrees:frameIndexStamp:)``.
    public init(output: OutputDirectory, settings: EncoderSettings, devices: [MediaClock],
                rotationDegrees: Int? = nil, frameIndexStamp: Bool = false) {
        files = SegmentFileSequence(output: output, settings: settings, mode: .stopOnChange, devices: devices,
                                    rotationDegrees: rotationDegrees, frameIndexStamp: frameIndexStamp)
    }

    public var hasStopped: Bool { stopTime != nil }

    /// The manifest as it stands.
    public var manifest: RecordingManifest { files.manifest }

    public func countDroppedFrame(_ reason: DropReason) {
        files.countReceived()
        files.countDropped(reason)
    }

    /// Adds a note to the manifest.
    public func addNote(_ note: String) { files.manifest.notes.append(note) }

    /// Adds a warning to the manifest.
    public func addWarning(_ warning: String) { files.warn(warning) }

    public func process(_ event: CaptureOutputEvent) throws {
        guard case .frame(let frame) = event else { return }
        try files.recordFrame { try record(frame) }
    }

    private func record(_ frame: VideoFrame) throws {
        files.countReceived()
        if hasStopped {
            files.countDropped(.recordingStopped)
            return
        }
        if let last = files.lastSessionTime, frame.sessionTime <= last {
            files.countDropped(.nonMonotonicTimestamp)
            files.warn("frame \(frame.index) dropped: session time \(frame.sessionTime) does not come after \(last)")
            return
        }
        guard let dimensions = files.openDimensions else {
            try files.openSegment(startingWith: frame, reason: .recordingStarted, change: nil)
            return
        }
        if frame.dimensions == dimensions {
            if try files.closeSegmentIfGapTooLong(before: frame) {
                try files.openSegment(startingWith: frame, reason: .timestampGap, change: nil)
            } else {
                try files.append(frame)
            }
            return
        }
        stopTime = frame.sessionTime
        files.countDropped(.recordingStopped)
        try files.closeSegment(at: frame.sessionTime)
        files.manifest.notes.append("recording stopped at session time \(frame.sessionTime): frame \(frame.index) is \(frame.dimensions), the movie file is \(dimensions)")
    }

    public func finish(reason: StopReason) throws -> RecordingManifest {
        if hasStopped {
            return try files.writeManifest(stopReason: .dimensionsChanged)
        }
        if let end = files.openSegmentNaturalEnd {
            try files.closeSegment(at: end)
        }
        return try files.writeManifest(stopReason: reason)
    }

    public func abort(error message: String) -> RecordingManifest {
        files.salvageOpenSegment()
        return (try? files.writeManifest(stopReason: .error, error: message, throwFinalizationErrors: false)) ?? files.manifest
    }
}
