import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The recording core, owned by the ``Recorder`` (a plain class inside its one owner, driven
/// by the recorder's loop alone, so it needs no re-entry guard): it owns the open segment's
/// writer and turns the
/// source's in-band event stream (frames, `setDynamicAspectRatio` completions, drops,
/// notes) into MP4 segments and a manifest. Modelled on GStreamer's splitmuxsink (one
/// element owns the muxer and decides where to cut) and on the `AVAssetWriter` recording
/// path of Apple's AVCam.
///
/// ## Segments
/// A frame whose dimensions differ from the open segment's is a change. With
/// ``SplitPolicy/split`` the open segment is closed exactly at that frame's session time
/// (its last frame lasts until then, so `segments[k].sessionEnd == segments[k+1].sessionStart`
/// in exact rational time) and the next one opens with it; with
/// ``SplitPolicy/stopOnFirstChange`` the recording stops there (the frame and every later
/// one are dropped, `recordingStopped`). A still period (no new frame) is one long sample:
/// the previous frame lasts until the next one. Only a frame more than
/// ``maximumFrameDuration`` after the previous one (≈ 4.8 h at 30 fps, at least 1 h at any
/// rate; see ``TrackTiming``) ends the segment after its last frame and opens the next
/// (`startReason: timestampGap`). These decisions are `SegmentBoundaryRule`'s, a pure
/// function of the open segment and the frame; the muxer carries them out.
///
/// ## File time
/// Each segment file's track ticks at ``fileTimescale`` (``TrackTiming/timescale(forEvery:)``
/// of the rates the source may capture at, e.g. 15 360 at 30 fps, and for 24 and 60 fps
/// alike, so the files of one recording join in time); a frame's file time is its session time
/// minus the segment's `sessionStart`, rounded once to that tick. The manifest keeps the
/// exact session times. A frame whose session time does not come after the
/// previous one is dropped (`nonMonotonicTimestamp`). Completions are matched to segments
/// by `ChangeAnnouncementMatcher`.
///
/// ## States
/// `collecting` (taking events; a segment may be open), `endingFile` (closing a segment:
/// the only suspension points besides back-pressure), `stopped` (stop-on-change: every
/// further frame is dropped), `finished` (the manifest is written).
///
/// ## Concurrency
/// Each segment's writer is a `SegmentWriterActor` on its own serial queue: opening,
/// encoding and finishing run there, so finishing one file overlaps opening the next.
/// Back-pressure is an `await` (`FrameSlots`: at most ``framesInFlight`` pictures queued
/// and not yet encoded); at most one closed segment is still being finished when the next
/// one closes. Nothing blocks a thread. Its async calls run on the caller's executor
/// (`nonisolated(nonsending)`): the recorder's.
///
/// ## Crash safety
/// `manifest.json` is rewritten atomically (off the capture path, `ManifestJournal`)
/// whenever a segment opens, is handed off to be finished, or is finished, with `stopReason: null` while recording: after a crash it
/// places every file on the session clock and lists the open segment's `.partial` file for
/// `segrec recover`. A segment is journaled as finished only once its writer has made the
/// finished file durable (`fdatasync`, named, folder `fsync`ed), so no journal counts a
/// file the disk lacks. The folder's ``RecordingLock`` is the recorder's to release.
///
/// ## What it announces
/// Every change of the recording is a ``SegmentMuxerEvent``, folded into the manifest by
/// ``ManifestBuilder`` (the one place of the frame accounting) and offered to observers on
/// its ``observer`` (segment-level events only): the ``Recorder``'s events.
package final class SegmentMuxer {

    /// Ticks per second of every segment file's track: ``TrackTiming/timescale(forEvery:)``
    /// of the encoder's nominal rate and ``Configuration/captureFrameRates`` (with one rate,
    /// ``TrackTiming/timescale(for:)`` of it, e.g. 15 360 at 30 fps; 24 and 60 fps → 15 360).
    /// A segment whose rate is not a whole number of its ticks gets its own rate's.
    package var fileTimescale: Int32 {
        TrackTiming.timescale(forEvery: [configuration.settings.frameRate] + configuration.captureFrameRates)
            ?? TrackTiming.timescale(for: configuration.settings.frameRate)
    }

    /// The longest one frame can last in a segment file (``TrackTiming/longestSample(atTimescale:)``
    /// at ``fileTimescale``, in session nanoseconds rounded down): a longer pause without
    /// frames ends the file (`timestampGap`).
    package var maximumFrameDuration: MediaTime { boundaryRule.maximumFrameDuration }

    enum State: Equatable {
        case collecting
        case endingFile
        case stopped
        case finished
    }

    struct OpenSegment {
        let index: Int
        let writer: SegmentWriterActor.Handle
        let sessionStart: MediaTime
        var frameCount = 0
        /// Index in the ``SessionAudioTimeline`` of the segment's first audio sample.
        var audioStart: Int64 = 0
        /// Audio samples given to its writer.
        var audioWritten: Int64 = 0
        /// What the boundary rule compares the next frame with.
        var boundary: SegmentBoundaryRule.OpenSegment
        var file: String { boundary.file }
    }

    struct FinishingSegment {
        let file: String
        let start: MediaTime
        let end: MediaTime
        let frames: Int
        let writer: SegmentWriterActor.Handle
    }

    /// The configuration this muxer records with.
    package let configuration: Configuration
    /// Called with every event as it happens, on the owner's executor (the ``Recorder``
    /// turns them into its ``RecordingEvent``s).
    package var observer: ((SegmentMuxerEvent, SegmentRecord?) -> Void)?
    /// Called once every segment file is finished and only the manifest's last rewrite is
    /// left (the recorder marks its stop request ended: a second signal no longer cuts the
    /// finish short).
    package var filesFinished: () -> Void = {}

    var state = State.collecting
    var builder: ManifestBuilder
    var matcher = ChangeAnnouncementMatcher()
    /// Where segments begin and end.
    private let boundaryRule: SegmentBoundaryRule
    var current: OpenSegment?
    var finishing: [FinishingSegment] = []
    private let slots: FrameSlots
    let journal: ManifestJournal
    private var nextSegmentIndex = 0
    private var previousDimensions: VideoDimensions?
    /// The stream format last announced (``CaptureOutputEvent/formatChanged(_:)``); nil for footage.
    private var streamFormat: VideoStreamFormat?
    /// Session time of the last frame written, across segments.
    private var lastSessionTime: MediaTime?
    /// Session start of the first segment (``Configuration/recordedAt`` on the wall clock).
    private var firstSessionStart: MediaTime?
    /// How long the last close took on the capture path, for the next switch's timings.
    var lastCloseDuration: Duration?
    /// The session's sound, cut into the segments (nil without ``Configuration/audio``).
    let sound: SoundSegmenter?
    // ── session event log
    /// Session events naming a frame wait for it (``SessionEventSequencer``).
    private var eventSequencer = SessionEventSequencer()
    /// Source warnings that arrived after a stop-on-change stop (not in `warnings`).
    private var warningsAfterStop = 0
    /// Sound copied as sent, waiting for the frame after it (``CopiedSound``).
    var copiedSound = CopiedSound()
    // ── end of session event log

    /// A muxer that has written nothing yet (the first frame opens `segment-000.mp4`).
    package convenience init(_ configuration: Configuration) { self.init(configuration, slots: FrameSlots(capacity: max(1, configuration.framesInFlight))) }

    /// A muxer whose writers share `slots` (tests hold some to model an encoder that is behind).
    init(_ configuration: Configuration, slots: FrameSlots) {
        self.slots = slots
        self.configuration = configuration
        let shared = TrackTiming.timescale(forEvery: [configuration.settings.frameRate] + configuration.captureFrameRates)
        let longest = TrackTiming.longestSample(atTimescale: shared ?? TrackTiming.timescale(for: configuration.settings.frameRate))
        boundaryRule = SegmentBoundaryRule(
            policy: configuration.policy, splitOnRotation: configuration.splitOnRotation,
            maximumFrameDuration: (try? longest.converted(toTimescale: MediaClock.host.timescale, rounding: .roundTowardZero)) ?? longest,
            maximumSegmentDuration: configuration.maximumSegmentDuration)
        journal = ManifestJournal(directory: configuration.output.workingURL)
        builder = ManifestBuilder(
            mode: configuration.policy.mode, devices: configuration.devices, encoder: configuration.settings, frameIndexStamp: configuration.frameIndexStamp,
            recordsSessionEvents: configuration.recordsSessionEvents, deviceControls: configuration.deviceControls, recordedAt: configuration.recordedAt,
            segmentLimits: configuration.maximumSegmentDuration == nil && configuration.maximumSegmentBytes == nil
                ? nil : SegmentLimits(maxSegmentDuration: configuration.maximumSegmentDuration, maxSegmentBytes: configuration.maximumSegmentBytes))
        for note in configuration.notes { builder.apply(.note(note)) }
        if configuration.copiesStream { builder.copiesStream() }
        sound = configuration.audio.map { SoundSegmenter(settings: $0) }
        sound?.announce = { [unowned self] event in self.announce(event) }
    }

    /// The manifest as it stands (the open segment's record included, its end not yet final).
    package var manifest: RecordingManifest { builder.manifest }

    /// Frames written and segments opened so far: what a progress line shows, without
    /// copying the manifest.
    package var progressCounts: (framesWritten: Int, segments: Int) { (builder.manifest.frames.written, builder.manifest.segments.count) }

    /// True once the muxer takes no more frames (stop-on-change after a change, or finished).
    package var hasStopped: Bool { state == .stopped || state == .finished }

    /// Consumes one event, in delivery order.
    /// - Throws: ``RecordingError`` (a call while another is in progress or after the end; a
    ///   segment end that is not after its last frame), the writer's errors
    ///   (`FFmpegError`, ``SegmentWriterError``) as soon as they happen. After a throw, call
    ///   ``abort(error:)`` to keep what was already written.
    package nonisolated(nonsending) func process(_ event: sending CaptureOutputEvent) async throws {
        try checkNotFinished()
        switch event {
        case .formatChanged(let format): streamFormat = format
        case .frame(let frame):
            releaseSessionEvents(naming: frame.index, at: frame.sessionTime)
            flushCopiedAudio(before: frame.sessionTime)
            try await receive(frame)
            try sound?.pump(into: &current, stopped: hasStopped)
        case .audioSampleBuffer(let buffer):
            announce(.audioReceived(samples: buffer.frameCount))
            try sound?.receive(buffer, stopped: state == .stopped)
            try sound?.pump(into: &current, stopped: hasStopped)
        case .dynamicAspectRatioChangeCompleted(let change): apply(matcher.completed(change))
        case .dynamicAspectRatioChangeSuperseded: break  // never took effect: nothing to record
        case .frameDropped(let dropped):
            if let index = dropped.index { releaseSessionEvents(naming: index, at: nil) }
            announce(.frameDropped(dropped.reason, count: dropped.count))
            // Journaled at once (the journal keeps only the newest snapshot), so a recording
            // killed after a late drop under --realtime still counts it.
            try writeJournal()
        case .note(let note): announce(.note(note))
        case .warning(let warning):
            // After a stop-on-change stop the session's warnings (e.g. "the recording goes
            // on") no longer describe this recording: counted in a note instead.
            if state == .stopped { warningsAfterStop += 1 } else { announce(.warning(warning)) }
        case .inputDamaged(let packets): announce(.inputDamaged(packets: packets))
        case .sessionEvent(let change): if let record = eventSequencer.received(SessionEventRecord(change)) { announce(.sessionEvent(record)) }
        case .copiedAudio(let audio): receiveCopiedAudio(audio)
        }
    }

    /// Closes the open segment at the end of its last frame, waits for every segment to be
    /// finished, writes `manifest.json` (atomically) and returns the manifest.
    /// - Parameter reason: `endOfStream` or `requested` (a recording that stopped on a
    ///   change keeps `dimensionsChanged`).
    /// - Throws: writer or I/O errors (call ``abort(error:)`` then).
    package nonisolated(nonsending) func finish(reason: StopReason = .endOfStream) async throws -> RecordingManifest {
        try checkNotFinished()
        try sound?.end(current: &current, stopped: hasStopped)
        if let end = naturalEndOfOpenSegment { try await closeOpenSegment(at: end) }
        try sound?.completeClosedSegment()
        let pending = finishing
        finishing = []
        try await settle(pending)
        filesFinished()
        apply(matcher.finish(stopTime: builder.manifest.stopTime))
        finishSessionEventLog()
        warnIfTheFolderMoved()
        announce(.finished(reason, error: nil))
        await journal.close()
        if let failure = journal.failure.error { throw failure }
        try ManifestWriter.write(builder.manifest, to: configuration.output.workingURL)
        state = .finished
        return builder.manifest
    }

    /// Keeps what can be kept after a failure: the open segment is finished at the end of
    /// its last frame if its writer still can (else removed, its frames counted
    /// `writeFailed`), segments being finished are waited for, and the manifest is written
    /// with `stopReason: error` and `message`. Never throws.
    package nonisolated(nonsending) func abort(error message: String) async -> RecordingManifest {
        try? sound?.end(current: &current, stopped: hasStopped)
        if let end = naturalEndOfOpenSegment { try? await closeOpenSegment(at: end) }
        try? sound?.completeClosedSegment()
        let pending = finishing
        finishing = []
        try? await settle(pending)
        apply(matcher.finish(stopTime: builder.manifest.stopTime))
        finishSessionEventLog()
        warnIfTheFolderMoved()
        announce(.finished(.error, error: message))
        await journal.close()
        try? ManifestWriter.write(builder.manifest, to: configuration.output.workingURL)
        state = .finished
        return builder.manifest
    }

    private func checkNotFinished() throws(RecordingError) { guard state != .finished else { throw .invalidState("SegmentMuxer: the recording is finished") } }

    // MARK: Frames

    private nonisolated(nonsending) func receive(_ frame: sending VideoFrame) async throws {
        let accounted = builder.accountedFrames
        do {
            guard ManifestReader.timeRange.contains(frame.sessionTime.value) else {
                throw MediaTimeError.overflow(
                    operation:
                        "frame \(frame.index) at session time \(frame.sessionTime) (\(frame.sessionTime.seconds) s) is outside the ±2^62 ticks a manifest holds (146 years at 1 ns); the recording ends before it"
                )
            }
            try await route(frame)
        } catch {
            // A frame that dies with an error still counts: received == written + dropped.
            if builder.accountedFrames == accounted { announce(.frameDropped(.writeFailed)) }
            throw error
        }
    }

    /// Carries out the ``SegmentBoundaryRule``'s decision for `frame`.
    private nonisolated(nonsending) func route(_ frame: sending VideoFrame) async throws {
        // (A copied stream is cut at keyframes only: the other packets need not wait.)
        if let limit = configuration.maximumSegmentBytes, var segment = current, segment.frameCount > 0, frame.copiedPacket?.isKeyframe ?? true {
            // Wait until the writer has encoded every frame given before this one.
            segment.boundary.encodedBytes = await segment.writer.encodedBytes()
            segment.boundary.maximumBytes = limit
            current = segment
        }
        let decision = try boundaryRule.decision(
            for: frame, in: streamFormat, open: current?.boundary, lastWritten: lastSessionTime, stopped: state == .stopped, segmentsOpened: nextSegmentIndex)
        switch atKeyframes(decision, copied: frame.copiedPacket, at: frame.sessionTime) {
        case .append: try await append(frame)
        case .drop(let reason, let warning):
            announce(.frameDropped(reason))
            if let warning { announce(.warning(warning)) }
            // Journaled at once, except the frames after a stop.
            if reason != .recordingStopped { try writeJournal() }
        case .cut(let reason, let end, let warning):
            if let warning { announce(.warning(warning)) }
            let previousCamera = current?.boundary.camera
            let previousFormat = current?.boundary.lastFormat
            // A camera or format switch: the pictures end one frame after the last (the
            // camera's period), the reconfiguration's gap lies between the files' pictures.
            if let end { try await closeOpenSegment(at: end, picturesEndEarly: reason == .cameraSwitched || reason == .formatChanged) }
            try await openSegment(with: frame, reason: reason, previousCamera: previousCamera, previousFormat: previousFormat)
        case .stop(let reason, let note):
            try await closeOpenSegment(at: frame.sessionTime)
            state = .stopped
            announce(.frameDropped(.recordingStopped))
            announce(.stopped(reason, at: frame.sessionTime))
            announce(.note(note))
        }
    }

    /// Opens the next file for `frame`, which becomes its first frame at file time 0.
    private nonisolated(nonsending) func openSegment(
        with frame: sending VideoFrame, reason: SegmentStartReason, previousCamera: String? = nil, previousFormat: VideoStreamFormat? = nil
    ) async throws {
        precondition(current == nil, "a segment is already open")
        let index = nextSegmentIndex
        nextSegmentIndex += 1
        let url = SegmentFiles(index: index, in: configuration.output.workingURL).url
        let file = url.lastPathComponent
        let newDimensions = previousDimensions.map { $0 != frame.dimensions } ?? false
        previousDimensions = frame.dimensions
        let format = streamFormat
        // The same camera resuming with the app's ratio carried over (a switch cancelled before
        // the new camera delivered a frame): a new size no request set, so no completion.
        let carried = reason == .dimensionsChanged && previousFormat.map { $0.carriedRatioChanges != format?.carriedRatioChanges } == true
        // A camera or format switch realizes no completion: the new stream starts with its size.
        var (change, decisions) = matcher.segmentOpened(
            file: file, firstFrame: frame, newDimensions: newDimensions, cameraSwitched: reason == .cameraSwitched || reason == .formatChanged || carried)
        if carried {
            change = ChangeRecord(
                deviceTime: frame.deviceTime, sessionTime: frame.sessionTime, aspectRatio: DynamicAspectRatio(matching: frame.dimensions)?.rawValue,
                announced: false)
        }
        let switchedCamera = reason == .cameraSwitched ? format?.camera : nil
        if reason == .formatChanged || switchedCamera != nil {
            // The reconfigured (or new) camera's first frame, on its own clock, converted by
            // the session: no completion announces it.
            change = ChangeRecord(
                deviceTime: frame.deviceTime, sessionTime: frame.sessionTime, aspectRatio: DynamicAspectRatio(matching: frame.dimensions)?.rawValue,
                camera: switchedCamera?.id, previousCamera: switchedCamera == nil ? nil : previousCamera)
        }
        var settings = configuration.settings
        if let picture = frame.pictureDescription { settings.pictureDescription = picture }
        var timescale = fileTimescale
        if let rate = format?.frameRate {
            settings.frameRate = rate
            if !TrackTiming.isExact(rate, atTimescale: timescale) { timescale = TrackTiming.timescale(for: rate) }
        }
        if let copied = frame.copiedPacket?.timescale { timescale = copied }
        // The capture angle of the first frame is the file's display matrix (a movie file
        // output fixes it at the start); footage keeps the configured rotation.
        let displayRotation = format?.rotationAngle.displayMatrixRotationDegrees ?? configuration.rotationDegrees
        // The manifest always holds the clockwise angle a player turns the picture; footage's
        // display matrix (ffprobe's counter-clockwise `rotation`) is turned into it.
        let manifestRotation =
            format?.rotationAngle.degrees
            ?? configuration.rotationDegrees.map { VideoRotationAngle(displayMatrixRotation: $0)?.degrees ?? ((-$0 % 360) + 360) % 360 }
        let start = frame.sessionTime
        let firstStart = firstSessionStart ?? start
        firstSessionStart = firstStart
        let creationTime = configuration.recordedAt.addingTimeInterval(((try? start.subtracting(firstStart)) ?? .zero).seconds)
        announce(
            .segmentOpened(
                SegmentRecord(
                    file: file, width: frame.dimensions.width, height: frame.dimensions.height,
                    aspectRatio: DynamicAspectRatio(matching: frame.dimensions)?.rawValue, frameCount: 0, firstFrameIndex: frame.index, sessionStart: start,
                    sessionStartSeconds: start.seconds, sessionEnd: start, sessionEndSeconds: start.seconds, startReason: reason, change: change, byteCount: 0,
                    rotationDegrees: manifestRotation, camera: format?.camera?.id, facing: format?.camera?.facing, constituent: format?.camera?.constituent,
                    copied: configuration.copiesStream ? true : nil)))
        apply(decisions)
        // The journal lists the segment before its writer creates the .partial file.
        if let failure = journal.failure.error { throw failure }
        let generation = journal.submit(builder.manifest)
        let writer = SegmentWriterActor.start(
            SegmentWriterActor.Parameters(
                segment: index, url: url, dimensions: frame.dimensions, timescale: timescale, settings: settings, displayRotationDegrees: displayRotation,
                fragmentInterval: configuration.fragmentInterval, firstFrameIndex: frame.index, closeDuration: lastCloseDuration, journal: journal,
                journalGeneration: generation, creationTime: creationTime, location: configuration.location, audio: configuration.audio), slots: slots,
            pool: configuration.pixelBufferPool, statistics: configuration.statistics,
            batch: configuration.copiesStream
                ? WriterCommandBatch(
                    // A batch's pictures hold their slots: never more than there are (`--frames-in-flight`).
                    maximumPictures: min(Self.copyBatchPictures, slots.capacity), maximumSpan: Self.copyBatchSpan) : nil)
        lastCloseDuration = nil
        current = OpenSegment(
            index: index, writer: writer, sessionStart: start, audioStart: try sound?.startSegment(at: start) ?? 0,
            boundary: SegmentBoundaryRule.OpenSegment(
                file: file, dimensions: frame.dimensions, camera: format?.camera?.id, rotation: format?.rotationAngle, frameRate: settings.frameRate,
                lastFormat: format, lastSessionTime: start, lastFrameEnd: start, sessionStart: start))
        try await append(frame)
    }

    /// Queues `frame` to the open segment at file time `sessionTime − sessionStart`, after
    /// waiting for a free slot (back-pressure); with ``Configuration/dropsFramesWhenBehind``
    /// a frame that finds no free slot is dropped `late` instead (never its segment's first).
    private nonisolated(nonsending) func append(_ frame: sending VideoFrame) async throws {
        guard var segment = current else { throw RecordingError.invalidState("no open segment") }
        if let failure = segment.writer.failure { throw failure }
        let fileTime = try frame.sessionTime.subtracting(segment.sessionStart)
        let frameEnd = try frame.sessionTime.adding(frame.duration)
        if !configuration.dropsFramesWhenBehind {
            await slots.acquire()
        } else if segment.frameCount == 0 {
            slots.acquireBeyondCapacity()
        } else if !slots.tryAcquire() {
            announce(.frameDropped(.late))
            try writeJournal()
            return
        }
        let (sessionTime, index, delivered) = (frame.sessionTime, frame.index, frame.deliveredAt ?? .now)
        // The pixels go to the writer as they are (a decoder's buffers included): given up here.
        segment.writer.append(frame.pixels, presentationTime: fileTime, frameIndex: index, delivered: delivered)
        segment.boundary.lastSessionTime = sessionTime
        segment.boundary.lastFrameEnd = frameEnd
        segment.frameCount += 1
        segment.boundary.lastFormat = streamFormat
        current = segment
        lastSessionTime = sessionTime
        matcher.frameWritten(at: sessionTime)
        builder.apply(.frameWritten(segment: segment.index))
    }

    /// Queues the manifest as it stands to the ``ManifestJournal`` (see "Crash safety").
    /// - Throws: the error of an earlier journal write (e.g. disk full), at once.
    func writeJournal() throws {
        if let failure = journal.failure.error { throw failure }
        guard state != .finished else { return }
        journal.submit(builder.manifest)
    }

    // MARK: Session event log

    /// Frame `index` arrived (at `sessionTime`; nil: the source dropped it): lists the
    /// session events that waited for it, before the frame itself.
    private func releaseSessionEvents(naming index: Int64, at sessionTime: MediaTime?) {
        for record in eventSequencer.frameArrived(index: index, sessionTime: sessionTime) { announce(.sessionEvent(record)) }
    }

    /// At the end: events still waiting for a frame are left out, and notes count what
    /// was left out (events naming frames never delivered, warnings after the stop).
    private func finishSessionEventLog() {
        eventSequencer.finish()
        if let note = eventSequencer.note { announce(.note(note)) }
        if warningsAfterStop > 0 {
            let n = warningsAfterStop
            announce(
                .note("\(n) warning\(n == 1 ? "" : "s") from the session after the recording stopped taking frames \(n == 1 ? "is" : "are") not in warnings"))
        }
    }

    // MARK: Announcements

    func announce(_ event: SegmentMuxerEvent) {
        let event = shownWithTheFolderPath(event)
        builder.apply(event)
        guard let observer else { return }
        switch event {
        case .segmentClosed(let file, _, _, _, _), .segmentSalvaged(let file, _, _, _, _): observer(event, builder.manifest.segments.last { $0.file == file })
        default: observer(event, nil)
        }
    }

    func apply(_ decisions: [ChangeAnnouncementMatcher.Decision]) {
        for decision in decisions {
            switch decision {
            case .attach(let file, let change): announce(.changeAttached(file: file, change))
            case .warn(let message): announce(.warning(message))
            }
        }
    }
}
