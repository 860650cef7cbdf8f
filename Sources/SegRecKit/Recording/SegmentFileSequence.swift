import Dispatch
import Foundation

/// The files of one recording: opens, feeds and closes ``SegmentWriter``s in turn and keeps
/// the manifest (segment records, frame counts, warnings). The policy of *when* to switch
/// files belongs to the recorders; this type only guarantees the invariants: each file has
/// one size, starts at its first frame's session time, and ends exactly where it is closed.
///
/// Each segment's writer runs on its own queue (``SegmentWriterWorker``): opening, encoding
/// and finishing happen off the capture path, which only waits when
/// ``framesInFlight`` pictures are already queued. Closing queues the old segment's finish
/// (``SegmentFinalizer``) so the next segment opens at once. Frame and segment records are
/// kept here as the frames are queued; byte counts and errors of finished segments are
/// collected at the next close and before the manifest is written (which waits for
/// everything queued). Until then a closed segment's record has `byteCount` 0, and a
/// writer error shows up at the capture path's next call for that segment.
final class SegmentFileSequence {
    private struct OpenSegment {
        let writer: SegmentWriterWorker
        var record: SegmentRecord
        var lastSessionTime: MediaTime
        var lastFrameEnd: MediaTime
    }

    let output: OutputDirectory
    let settings: EncoderSettings
    var manifest: RecordingManifest
    private var open: OpenSegment?
    /// Session time of the last frame accepted, across segments.
    private(set) var lastSessionTime: MediaTime?
    /// Display rotation for every segment (kept from the input), or nil.
    var rotationDegrees: Int?
    /// Timings for `--stats`, or nil.
    var statistics: RecordingStatistics?
    private let finalizer = SegmentFinalizer()
    /// Pictures queued to writers and not yet encoded, across segments, at most.
    static let framesInFlight = 6
    private let slots = DispatchSemaphore(value: SegmentFileSequence.framesInFlight)
    /// Duration of the last close on the capture path, for the next switch's timings.
    private var lastCloseNs: UInt64?
    /// Closed segments whose finalization failed (removed from the manifest at the end).
    private var failedSegments: [Int: String] = [:]

    init(output: OutputDirectory, settings: EncoderSettings, mode: RecordingMode, devices: [MediaClock],
         rotationDegrees: Int?, frameIndexStamp: Bool) {
        self.output = output
        self.settings = settings
        self.manifest = RecordingManifest(mode: mode, devices: devices.map(DeviceInfo.init(clock:)),
                                          encoder: EncoderInfo(settings))
        self.rotationDegrees = rotationDegrees
        manifest.frameIndexStamp = frameIndexStamp
    }

    /// Dimensions of the open segment, or nil when none is open.
    var openDimensions: VideoDimensions? {
        open.map { VideoDimensions(width: $0.record.width, height: $0.record.height) }
    }

    /// Index of the open segment in `manifest.segments` once closed (== count while open).
    var segmentCount: Int { manifest.segments.count + (open == nil ? 0 : 1) }

    /// Counts a received frame.
    func countReceived() { manifest.frames.received += 1 }

    /// Counts a frame that will not be written.
    func countDropped(_ reason: DropReason) { manifest.frames.drop(reason) }

    /// Records one received frame with `body`; if `body` throws before the frame was
    /// counted as written or dropped, counts it as dropped (`writeFailed`), so that
    /// `received == written + dropped` holds even when a frame dies with an error.
    func recordFrame(_ body: () throws -> Void) throws {
        let accounted = manifest.frames.written + manifest.frames.dropped
        do {
            try body()
        } catch {
            if manifest.frames.written + manifest.frames.dropped == accounted { countDropped(.writeFailed) }
            throw error
        }
    }

    func warn(_ message: String) { manifest.warnings.append(message) }

    /// Opens the next file for `frame`, which becomes its first frame at file time 0.
    func openSegment(startingWith frame: VideoFrame, reason: SegmentStartReason, change: ChangeRecord?) throws {
        precondition(open == nil, "a segment is already open")
        let index = manifest.segments.count
        let url = output.segmentURL(index)
        let writer = SegmentWriterWorker(segment: index, url: url, dimensions: frame.dimensions,
                                         timescale: MediaClock.host.timescale, settings: settings,
                                         displayRotationDegrees: rotationDegrees, group: finalizer.group,
                                         slots: slots, statistics: statistics, firstFrameIndex: frame.index,
                                         closeNs: lastCloseNs)
        lastCloseNs = nil
        let start = frame.sessionTime
        let record = SegmentRecord(
            file: url.lastPathComponent, width: frame.dimensions.width, height: frame.dimensions.height,
            aspectRatio: DynamicAspectRatio(matching: frame.dimensions)?.rawValue,
            frameCount: 0, firstFrameIndex: frame.index,
            sessionStart: start, sessionStartSeconds: start.seconds,
            sessionEnd: start, sessionEndSeconds: start.seconds,
            startReason: reason, change: change, byteCount: 0, rotationDegrees: rotationDegrees)
        open = OpenSegment(writer: writer, record: record, lastSessionTime: start, lastFrameEnd: start)
        try append(frame)
    }

    /// Appends `frame` to the open segment at file time `sessionTime − sessionStart`.
    func append(_ frame: VideoFrame) throws {
        guard var segment = open else { throw RecordingError.invalidState("no open segment") }
        let fileTime = try frame.sessionTime.subtracting(segment.record.sessionStart)
        try segment.writer.append(frame.pixelBuffer, presentationTime: fileTime, frameIndex: frame.index,
                                  deliveredNs: statistics?.pendingDeliveredNs ?? 0)
        segment.record.frameCount += 1
        segment.lastSessionTime = frame.sessionTime
        segment.lastFrameEnd = try frame.sessionTime.adding(frame.duration)
        open = segment
        lastSessionTime = frame.sessionTime
        manifest.frames.written += 1
    }

    /// The longest one frame can last in a segment file: 2³¹ − 1 ticks of the files' 1 ns
    /// time base (≈ 2.147 s), the MP4 muxer's limit on one sample's duration.
    static let maximumFrameDuration = MediaTime(value: Int64(Int32.max), timescale: MediaClock.host.timescale)

    /// When `frame` comes more than ``maximumFrameDuration`` after the open segment's last
    /// frame, closes that segment after its last frame (its own duration, capped) and warns;
    /// the caller then opens the next segment with `startReason: timestampGap`.
    /// - Returns: whether it closed the segment. - Throws: writer errors.
    func closeSegmentIfGapTooLong(before frame: VideoFrame) throws -> Bool {
        guard let segment = open,
              try frame.sessionTime.subtracting(segment.lastSessionTime) > Self.maximumFrameDuration else { return false }
        warn("no frame for \(try frame.sessionTime.subtracting(segment.lastSessionTime)) before frame \(frame.index), longer than a segment file can hold one frame (\(Self.maximumFrameDuration)): \(segment.record.file) ends after its last frame and the next segment starts at frame \(frame.index) (startReason timestampGap)")
        try closeSegment(at: min(segment.lastFrameEnd, try segment.lastSessionTime.adding(Self.maximumFrameDuration)))
        return true
    }

    /// The end of the open segment's last frame by its own duration.
    /// (At least one session tick after the last frame, whatever duration it claimed.)
    var openSegmentNaturalEnd: MediaTime? {
        guard let segment = open else { return nil }
        let oneTick = MediaTime(value: 1, timescale: MediaClock.host.timescale)
        return max(segment.lastFrameEnd, (try? segment.lastSessionTime.adding(oneTick)) ?? segment.lastFrameEnd)
    }

    /// The open segment's record so far.
    var openRecord: SegmentRecord? { open?.record }

    /// Sets the change record of the open segment or of closed segment `index`.
    func setChange(_ change: ChangeRecord, forSegment index: Int) {
        if index < manifest.segments.count {
            manifest.segments[index].change = change
        } else if open != nil {
            open!.record.change = change
        }
    }

    /// Session start of segment `index` (closed or open).
    func sessionStart(ofSegment index: Int) -> MediaTime? {
        index < manifest.segments.count ? manifest.segments[index].sessionStart : open?.record.sessionStart
    }

    /// Closes the open file so its last frame lasts until `endTime` (session clock, after
    /// the last frame's time): the record joins the manifest at once and the writer is
    /// finished in the background (``SegmentFinalizer``).
    /// - Throws: a bad `endTime` (the writer is cancelled), or the error with which an
    ///   earlier segment failed to finish.
    func closeSegment(at endTime: MediaTime) throws {
        if let segment = open {
            try handOff(segment, endingAt: endTime)
        }
        try collectFinalizations(waiting: false)
    }

    /// Validates `endTime`, moves the record into the manifest and the writer to the
    /// finalizer. - Throws: only before the hand-off (the writer is then cancelled).
    private func handOff(_ segment: OpenSegment, endingAt requestedEnd: MediaTime) throws {
        let closeStart = statistics == nil ? 0 : MonotonicClock.nanoseconds()
        open = nil
        var endTime = requestedEnd
        if let longest = try? segment.lastSessionTime.adding(Self.maximumFrameDuration), requestedEnd > longest {
            endTime = longest
            warn("the last frame of \(segment.record.file) would last until \(requestedEnd), longer than a segment file can hold one frame; it ends at \(longest)")
        }
        guard endTime > segment.lastSessionTime else {
            discard(segment, because: "its end \(endTime) is not after its last frame")
            throw RecordingError.invalidState(
                "segment end \(endTime) must come after its last frame at \(segment.lastSessionTime)")
        }
        let fileEnd: MediaTime
        do {
            fileEnd = try endTime.subtracting(segment.record.sessionStart)
            guard fileEnd.exactTicks(atTimescale: segment.writer.timescale) != nil else {
                throw SegmentWriterError.timeNotRepresentable(fileEnd, timescale: segment.writer.timescale)
            }
        } catch {
            discard(segment, because: "\(error)")
            throw error
        }
        var record = segment.record
        record.sessionEnd = endTime
        record.sessionEndSeconds = endTime.seconds
        manifest.segments.append(record)
        manifest.stopTime = endTime
        finalizer.submit(segment.writer, endTime: fileEnd, statistics: statistics)
        if statistics != nil { lastCloseNs = MonotonicClock.nanoseconds() - closeStart }
    }

    /// Abandons a segment that cannot be finished: its partial file is deleted and its
    /// frames are counted as dropped (`writeFailed`), so the accounting still adds up.
    private func discard(_ segment: OpenSegment, because reason: String) {
        segment.writer.cancel()
        manifest.frames.written -= segment.record.frameCount
        for _ in 0..<segment.record.frameCount { manifest.frames.drop(.writeFailed) }
        warn("\(segment.record.file) was removed: \(reason)")
    }

    /// Applies finished segments' byte counts; remembers failures.
    /// - Parameter waiting: wait for every outstanding segment first.
    /// - Throws: the first failure collected by this call.
    func collectFinalizations(waiting: Bool) throws {
        var firstError: (any Error)?
        for outcome in waiting ? finalizer.waitForAll() : finalizer.takeCompleted() {
            switch outcome.result {
            case .success(let summary):
                manifest.segments[outcome.segment].byteCount = summary.byteCount
            case .failure(let error):
                failedSegments[outcome.segment] = "\(error)"
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    /// After a failure: finalize the open file at its natural end if the writer still can,
    /// else delete its partial file and uncount its frames as dropped (`writeFailed`).
    func salvageOpenSegment() {
        guard let segment = open, let end = openSegmentNaturalEnd else { return }
        // A segment that cannot be handed off is discarded by handOff, with its frames
        // counted as dropped; failures while finishing are settled with the manifest.
        try? handOff(segment, endingAt: end)
    }

    /// Waits for every segment being finished; segments that failed are removed from the
    /// manifest and their frames counted as dropped (`writeFailed`).
    /// - Throws: the first failure not reported yet (only when `throwing`).
    private func settleFinalizations(throwing: Bool) throws {
        var pending: (any Error)?
        do { try collectFinalizations(waiting: true) } catch { pending = error }
        for index in failedSegments.keys.sorted(by: >) {
            let record = manifest.segments.remove(at: index)
            manifest.frames.written -= record.frameCount
            for _ in 0..<record.frameCount { manifest.frames.drop(.writeFailed) }
            warn("\(record.file) could not be finalized and was removed: \(failedSegments[index]!)")
        }
        if !failedSegments.isEmpty { manifest.stopTime = manifest.segments.last?.sessionEnd }
        failedSegments.removeAll()
        if throwing, let pending { throw pending }
    }

    /// Writes the manifest with `stopReason` and returns it.
    /// Waits for the segments being finished first. - Throws: when one of them failed
    /// (`throwFinalizationErrors`; the manifest is then not written), or writing fails.
    func writeManifest(stopReason: StopReason, error: String? = nil,
                       throwFinalizationErrors: Bool = true) throws -> RecordingManifest {
        try settleFinalizations(throwing: throwFinalizationErrors)
        manifest.stopReason = stopReason
        manifest.error = error
        try ManifestWriter.write(manifest, to: output.url)
        return manifest
    }
}

extension EncoderInfo {
    init(_ settings: EncoderSettings) {
        self.init(codec: settings.codec.rawValue, encoder: settings.codec.encoderName,
                  preset: settings.preset, crf: settings.crf, keyframeInterval: settings.keyframeInterval)
    }
}

extension DynamicAspectRatio {
    /// The ratio whose crop of a square sensor of side `max(width, height)` gives exactly
    /// `dimensions`, or nil (e.g. 352x288 pass-through input).
    public init?(matching dimensions: VideoDimensions) {
        let side = max(dimensions.width, dimensions.height)
        guard let ratio = Self.allCases.first(where: { $0.dimensions(squareSide: side) == dimensions }) else {
            return nil
        }
        self = ratio
    }
}

extension SegmentFileSequence {
    /// Dimensions of segment `index` (closed or open).
    func segmentDimensions(_ index: Int) -> VideoDimensions? {
        let record = index < manifest.segments.count ? manifest.segments[index] : openRecord
        return record.map { VideoDimensions(width: $0.width, height: $0.height) }
    }
}
