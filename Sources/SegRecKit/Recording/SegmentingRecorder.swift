/// The AVAssetWriter + AVCaptureVideoDataOutput recording path of the seeds: a frame whose
/// dimensions differ from the open segment's closes that segment and opens the next.
///
/// The boundary is the first new-size frame's session time, which is the camera's change
/// time `D(k)` converted to the session clock; the closed segment's last frame lasts until
/// exactly that time, so `segments[k].sessionEnd == segments[k+1].sessionStart`. The
/// `setDynamicAspectRatio` completions are matched to the buffers in all three orders:
/// announced before the new-size frame, announced after it, and announced at a time the
/// buffers contradict — the buffers win and the manifest gets a warning. A request for the
/// ratio already in effect makes no segment.
public final class SegmentingRecorder: Recorder {
    let files: SegmentFileSequence
    /// Completions received before their new-size frame, in request order.
    private var pendingChanges: [DynamicAspectRatioChange] = []
    /// Segments opened by buffers whose completion has not arrived yet.
    private var segmentsAwaitingChange: [Int] = []
    /// Set by ``startNextSegment(afterSessionTime:)``: the next frame opens a segment.
    private var nextSegmentStart: MediaTime?

    /// - Parameters:
    ///   - output: the prepared output folder.
    ///   - settings: encoder settings for every segment.
    ///   - devices: the device clocks, for the manifest.
    ///   - rotationDegrees: display rotation to tag every file with, or nil.
    public init(output: OutputDirectory, settings: EncoderSettings, devices: [MediaClock],
                rotationDegrees: Int? = nil, frameIndexStamp: Bool = false) {
        files = SegmentFileSequence(output: output, settings: settings, mode: .segment, devices: devices,
                                    rotationDegrees: rotationDegrees, frameIndexStamp: frameIndexStamp)
    }

    public var hasStopped: Bool { false }

    /// Whether size changes are expected to be announced by `setDynamicAspectRatio`
    /// completions (a camera). False for pass-through footage: no warning then when a
    /// segment starts on a change nobody announced.
    public var expectsChangeAnnouncements = true

    /// The manifest as it stands.
    public var manifest: RecordingManifest { files.manifest }

    public func countDroppedFrame(_ reason: DropReason) {
        files.countReceived()
        files.countDropped(reason)
    }

    /// Adds a note to the manifest (e.g. about the input).
    public func addNote(_ note: String) { files.manifest.notes.append(note) }

    /// Adds a warning to the manifest.
    public func addWarning(_ warning: String) { files.warn(warning) }

    public func process(_ event: CaptureOutputEvent) throws {
        switch event {
        case .frame(let frame): try process(frame)
        case .dynamicAspectRatioChangeCompleted(let change): receive(change)
        }
    }

    private func process(_ frame: VideoFrame) throws {
        try files.recordFrame { try record(frame) }
    }

    private func record(_ frame: VideoFrame) throws {
        files.countReceived()
        if let last = files.lastSessionTime, frame.sessionTime <= last {
            files.countDropped(.nonMonotonicTimestamp)
            files.warn("frame \(frame.index) dropped: session time \(frame.sessionTime) does not come after \(last)")
            return
        }
        if try files.closeSegmentIfGapTooLong(before: frame) {
            nextSegmentStart = nil
            let dimensionsChanged = frame.dimensions != files.segmentDimensions(files.segmentCount - 1)
            let change = dimensionsChanged ? takeAnnouncedChange(for: frame) : nil
            let index = files.segmentCount
            try files.openSegment(startingWith: frame, reason: .timestampGap, change: change)
            if dimensionsChanged && change == nil && expectsChangeAnnouncements { segmentsAwaitingChange.append(index) }
            return
        }
        guard let dimensions = files.openDimensions else {
            let reason: SegmentStartReason = files.manifest.segments.isEmpty ? .recordingStarted : .dimensionsChanged
            nextSegmentStart = nil
            try files.openSegment(startingWith: frame, reason: reason, change: nil)
            dropChangesRealized(byFirstFrame: frame)
            return
        }
        guard frame.dimensions != dimensions || nextSegmentStart != nil else {
            try files.append(frame)
            return
        }
        let change = takeAnnouncedChange(for: frame)
        try finishCurrentSegment(atSessionTime: frame.sessionTime)
        startNextSegment(afterSessionTime: frame.sessionTime)
        try openNextSegment(with: frame, change: change)
    }

    /// Closes the open segment so that its last frame lasts until `time` (session clock).
    /// Mirrors the seeds' `finishCurrentSegment(atSessionTime:)`. - Throws: when `time` is
    /// not after the last frame written, or from the writer.
    public func finishCurrentSegment(atSessionTime time: MediaTime) throws {
        try files.closeSegment(at: time)
    }

    /// Arms the next segment to start at `time`: the next frame opens a new file with
    /// `startReason: dimensionsChanged`. Mirrors the seeds' `startNextSegment(afterSessionTime:)`.
    public func startNextSegment(afterSessionTime time: MediaTime) {
        nextSegmentStart = time
    }

    private func openNextSegment(with frame: VideoFrame, change: ChangeRecord?) throws {
        if let start = nextSegmentStart, start != frame.sessionTime {
            files.warn("segment \(files.segmentCount) was armed to start at \(start) but its first frame is at \(frame.sessionTime)")
        }
        nextSegmentStart = nil
        let index = files.segmentCount
        try files.openSegment(startingWith: frame, reason: .dimensionsChanged, change: change)
        if change == nil && expectsChangeAnnouncements { segmentsAwaitingChange.append(index) }
    }

    /// The announced change that the new-size `frame` realizes, if it was announced already.
    private func takeAnnouncedChange(for frame: VideoFrame) -> ChangeRecord? {
        guard let match = pendingChanges.firstIndex(where: { $0.dimensions == frame.dimensions && $0.sessionTime == frame.sessionTime })
                ?? pendingChanges.firstIndex(where: { $0.dimensions == frame.dimensions }) else {
            return nil
        }
        let announced = pendingChanges[match]
        for skipped in pendingChanges[..<match] where skipped.sessionTime != announced.sessionTime {
            files.warn("setDynamicAspectRatio(\(skipped.aspectRatio.rawValue)) announced \(skipped.dimensions) at session time \(skipped.sessionTime), but the buffers never had that size before frame \(frame.index)")
        }
        pendingChanges.removeSubrange(...match)
        if announced.sessionTime != frame.sessionTime {
            files.warn(disagreement(announced, bufferTime: frame.sessionTime, frameIndex: frame.index))
        }
        return ChangeRecord(announced)
    }

    /// Matches a completion to the buffers. In order:
    /// 1. it announces exactly the start of a segment the buffers already opened (completion
    ///    after the frame): attach it;
    /// 2. it announces a time still to come: keep it for the new-size frame (unless it asks
    ///    for the dimensions already in effect then, which makes no segment);
    /// 3. it announces a past time at which no segment started: if the buffers changed to
    ///    its size around that time — the segment covering that time or the next one has
    ///    its size and no announcement yet — they changed at another time than announced:
    ///    attach it and warn (the buffers win). Otherwise the request was overridden by a
    ///    later one on the same frame, or asked for the ratio already in effect: nothing
    ///    to record.
    private func receive(_ change: DynamicAspectRatioChange) {
        if let position = segmentsAwaitingChange.firstIndex(where: {
            files.segmentDimensions($0) == change.dimensions && files.sessionStart(ofSegment: $0) == change.sessionTime
        }) {
            files.setChange(ChangeRecord(change), forSegment: segmentsAwaitingChange.remove(at: position))
            return
        }
        guard let last = files.lastSessionTime, change.sessionTime <= last else {
            // Requests complete in order, and a later one wins from its own frame on: a
            // pending change at or after this one's time never reaches the buffers.
            pendingChanges.removeAll { $0.sessionTime >= change.sessionTime }
            let expected = pendingChanges.last?.dimensions ?? files.openDimensions
            if change.dimensions != expected { pendingChanges.append(change) }
            return
        }
        let count = files.segmentCount
        let covering = (0..<count).last { (files.sessionStart(ofSegment: $0) ?? last) <= change.sessionTime } ?? -1
        for index in [covering, covering + 1] where index >= 0 && index < count {
            guard files.segmentDimensions(index) == change.dimensions,
                  let position = segmentsAwaitingChange.firstIndex(of: index) else { continue }
            segmentsAwaitingChange.remove(at: position)
            files.warn(disagreement(change, bufferTime: files.sessionStart(ofSegment: index) ?? last, frameIndex: nil))
            files.setChange(ChangeRecord(change), forSegment: index)
            return
        }
    }

    /// Drops announced changes that the first frame already realizes (a change that took
    /// effect on frame 0).
    private func dropChangesRealized(byFirstFrame frame: VideoFrame) {
        pendingChanges.removeAll { $0.sessionTime <= frame.sessionTime && $0.dimensions == frame.dimensions }
    }

    private func disagreement(_ change: DynamicAspectRatioChange, bufferTime: MediaTime, frameIndex: Int64?) -> String {
        let frame = frameIndex.map { " (frame \($0))" } ?? ""
        return "setDynamicAspectRatio(\(change.aspectRatio.rawValue)) announced device time \(change.deviceTime) = session time \(change.sessionTime), but the buffers changed to \(change.dimensions) at session time \(bufferTime)\(frame); the segment boundary follows the buffers"
    }

    public func finish(reason: StopReason) throws -> RecordingManifest {
        if let end = files.openSegmentNaturalEnd {
            try files.closeSegment(at: end)
        }
        let end = files.manifest.stopTime
        for change in pendingChanges where end.map({ change.sessionTime < $0 }) ?? false {
            files.warn("setDynamicAspectRatio(\(change.aspectRatio.rawValue)) announced \(change.dimensions) at session time \(change.sessionTime), but no frame had that size")
        }
        for index in segmentsAwaitingChange {
            files.warn("segment \(index) started on a change of buffer size that no setDynamicAspectRatio completion announced")
        }
        return try files.writeManifest(stopReason: reason)
    }

    public func abort(error message: String) -> RecordingManifest {
        files.salvageOpenSegment()
        return (try? files.writeManifest(stopReason: .error, error: message, throwFinalizationErrors: false)) ?? files.manifest
    }
}

extension ChangeRecord {
    init(_ change: DynamicAspectRatioChange) {
        self.init(deviceTime: change.deviceTime, sessionTime: change.sessionTime,
                  aspectRatio: change.aspectRatio.rawValue)
    }
}
