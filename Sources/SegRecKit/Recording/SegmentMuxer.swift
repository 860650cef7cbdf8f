import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The recording core: one actor that owns the open segment's writer and turns the
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
/// one closes. Nothing blocks a thread. Send events one at a time and await each call: a
/// call made while another is suspended throws ``RecordingError/invalidState(_:)``.
///
/// ## Crash safety
/// `manifest.json` is rewritten atomically (off the capture path, `ManifestJournal`)
/// whenever a segment opens, is handed off to be finished, or is finished, with `stopReason: null` while recording: after a crash it
/// places every file on the session clock and lists the open segment's `.partial` file for
/// `segrec recover`. A segment is journaled as finished only once its writer has made the
/// finished file durable (`fdatasync`, named, folder `fsync`ed), so no journal counts a
/// file the disk lacks. The folder's ``RecordingLock`` is released when the recording ends.
///
/// ## What it announces
/// Every change of the recording is a ``SegmentMuxerEvent``, folded into the manifest by
/// ``ManifestBuilder`` (the one place of the frame accounting) and offered to observers on
/// ``announcements`` (segment-level events only).
public actor SegmentMuxer {
    /// Everything a recording needs besides its events.
    public struct Configuration: Sendable {
        /// The prepared output folder.
        public var output: OutputDirectory
        /// Encoder settings for every segment.
        public var settings: EncoderSettings
        /// Split or stop on a change of dimensions.
        public var policy: SplitPolicy
        /// The device clocks frames are captured on, for the manifest.
        public var devices: [MediaClock]
        /// Display rotation written into every segment (counter-clockwise degrees, as
        /// ffprobe's `rotation`), or nil; the capture angle of the stream format
        /// (``VideoStreamFormat/rotationAngle``) overrides it for the segment a frame opens.
        public var rotationDegrees: Int?
        /// Whether every frame carries the frame-index stamp (recorded in the manifest).
        public var frameIndexStamp: Bool
        /// Timings to collect (`--stats`), or nil.
        public var statistics: RecordingStatistics?
        /// Where encoded pictures' planes go back for reuse (shared with the producers).
        public var pixelBufferPool: PixelBufferPool
        /// Notes the manifest starts with (e.g. how the input is used).
        public var notes: [String]
        /// While a segment is open its `.partial` file is a fragmented MP4 with a fragment at
        /// least this often (AVAssetWriter's `movieFragmentInterval`), so a crash loses at most
        /// about this much; nil writes each file as one MP4 at the end (a crash loses the
        /// open segment). Default 1 s.
        public var fragmentInterval: MediaTime?
        /// Several-camera recordings (Docs/cameras.md): the manifest always has its
        /// `events` list. False (default) for one camera or footage, whose manifests list
        /// events only once one is logged. (Each segment is encoded at its first frame's
        /// capture rate, ``VideoStreamFormat/frameRate``, whichever camera made it.)
        public var recordsSessionEvents = false
        /// Every rate the source may capture at (each camera's rate in each of its formats),
        /// or empty when only ``settings``' rate is known: every file whose rate is exact in
        /// ``TrackTiming/timescale(forEvery:)`` of them then shares that one timescale
        /// (``SegmentMuxer/fileTimescale``), so the files join in time.
        public var captureFrameRates: [FrameRate] = []
        // --- back-pressure (Docs/performance.md) ---
        /// Pictures queued to writers and not yet encoded, at most (≥ 1; default
        /// ``SegmentMuxer/framesInFlight``).
        public var framesInFlight = SegmentMuxer.framesInFlight
        /// Real time (`--realtime`): a frame that arrives while ``framesInFlight`` pictures
        /// are queued is dropped (`droppedReasons.late`) instead of waiting, as an app drops a
        /// sample buffer while `AVAssetWriterInput.isReadyForMoreMediaData` is false, so the
        /// capture path never waits for the encoder. A segment's first frame is always taken
        /// (the queue may then hold one more). False (the default): the muxer awaits a free
        /// slot and drops nothing.
        public var dropsFramesWhenBehind = false
        // --- end back-pressure ---
        /// `--split-on-rotation` (segment mode only): a frame whose capture angle
        /// (``VideoStreamFormat/rotationAngle``) differs from its segment's starts a segment
        /// (`startReason: rotationChanged`). Off (default): the angle of a segment's first
        /// frame is its display matrix, later changes apply from the next segment.
        public var splitOnRotation = false
        /// Camera controls by clock id, for the manifest's `devices` entries.
        public var deviceControls: [String: DeviceControlInfo] = [:]
        /// The wall clock at session start: the manifest's `recordedAt`; each segment file's
        /// `creation_time` is this plus its `sessionStart` less the first segment's (default:
        /// when the configuration was made).
        public var recordedAt = Date()
        /// `--max-segment-duration`: the first frame whose session time is at or after its
        /// segment's `sessionStart` plus this opens the next segment (`startReason:
        /// maxSegmentDuration`); nil: no limit.
        public var maximumSegmentDuration: MediaTime?
        /// `--max-segment-bytes`: the first frame given after the open file's encoded
        /// packets reach this many bytes opens the next segment (`startReason:
        /// maxSegmentBytes`; Docs/recording.md gives the exact rule); nil: no limit.
        public var maximumSegmentBytes: Int64?
        /// The microphone's format and the AAC settings (`--audio-bitrate`): every segment
        /// then has an audio track holding the sound of its `[sessionStart, sessionEnd)`
        /// (``CaptureOutputEvent/audioSampleBuffer(_:)``, Docs/DESIGN.md "Audio"); nil
        /// (default): no sound, audio buffers are ignored.
        public var audio: AudioTrackSettings?

        /// A configuration; see the properties.
        public init(
            output: OutputDirectory, settings: EncoderSettings, policy: SplitPolicy, devices: [MediaClock], rotationDegrees: Int? = nil,
            frameIndexStamp: Bool = false, statistics: RecordingStatistics? = nil, pixelBufferPool: PixelBufferPool = PixelBufferPool(), notes: [String] = [],
            fragmentInterval: MediaTime? = MediaTime(value: 1, timescale: 1)
        ) {
            self.output = output
            self.settings = settings
            self.policy = policy
            self.devices = devices
            self.rotationDegrees = rotationDegrees
            self.frameIndexStamp = frameIndexStamp
            self.statistics = statistics
            self.pixelBufferPool = pixelBufferPool
            self.notes = notes
            self.fragmentInterval = fragmentInterval
        }
    }

    /// Ticks per second of every segment file's track: ``TrackTiming/timescale(forEvery:)``
    /// of the encoder's nominal rate and ``Configuration/captureFrameRates`` (with one rate,
    /// ``TrackTiming/timescale(for:)`` of it, e.g. 15 360 at 30 fps; 24 and 60 fps → 15 360).
    /// A segment whose rate is not a whole number of its ticks gets its own rate's.
    public nonisolated var fileTimescale: Int32 {
        TrackTiming.timescale(forEvery: [configuration.settings.frameRate] + configuration.captureFrameRates)
            ?? TrackTiming.timescale(for: configuration.settings.frameRate)
    }

    /// The longest one frame can last in a segment file (``TrackTiming/longestSample(atTimescale:)``
    /// at ``fileTimescale``, in session nanoseconds rounded down): a longer pause without
    /// frames ends the file (`timestampGap`).
    public nonisolated var maximumFrameDuration: MediaTime { boundaryRule.maximumFrameDuration }

    /// Pictures queued to writers and not yet encoded, across segments, at most.
    public static let framesInFlight = 6

    /// The same for footage passed through without `--realtime`: the file is read as fast
    /// as the encoder takes it, nothing waits on a capture deadline, and each picture
    /// queued holds its demuxed packet (3 MiB at 1080p yuv420p) until the encoder has
    /// copied it; two keep one read ahead of one encode. (Measured on a 1080p Y4M file:
    /// 2–4 % less CPU and fewer page faults than 6; an H.264 file the same either way.)
    public static let passThroughFramesInFlight = 2

    private enum State: Equatable {
        case collecting
        case endingFile
        case stopped
        case finished
    }

    private struct OpenSegment {
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

    /// A closed segment whose writer still waits for the sound up to its end (the
    /// resampler's output lags the microphone's buffers by a few samples): it is finished
    /// as soon as that sound comes, at the latest when the next segment closes or the
    /// recording ends (then silence stands in for sound that never came).
    private struct AwaitingAudio {
        let file: String
        let writer: SegmentWriterActor.Handle
        /// Timeline index of the first sample after the segment.
        let end: Int64
        /// The segment's end in file time, for the writer's finish.
        let fileEnd: MediaTime
        var written: Int64
    }

    private struct FinishingSegment {
        let file: String
        let start: MediaTime
        let end: MediaTime
        let frames: Int
        let writer: SegmentWriterActor.Handle
    }

    /// The configuration this muxer records with.
    public nonisolated let configuration: Configuration
    /// Segment-level events as they happen (not ``SegmentMuxerEvent/frameWritten(segment:)``);
    /// the stream ends when the recording is finished or aborted. Keeps the newest 1024
    /// events when nobody reads it.
    public nonisolated let announcements: AsyncStream<SegmentMuxerEvent>
    private let announcementSink: AsyncStream<SegmentMuxerEvent>.Continuation

    private var state = State.collecting
    private var busy = false
    private var builder: ManifestBuilder
    private var matcher = ChangeAnnouncementMatcher()
    /// Where segments begin and end.
    private nonisolated let boundaryRule: SegmentBoundaryRule
    private var open: OpenSegment?
    private var finishing: [FinishingSegment] = []
    private let slots: FrameSlots
    private let journal: ManifestJournal
    private var nextSegmentIndex = 0
    private var previousDimensions: VideoDimensions?
    /// The stream format last announced (``CaptureOutputEvent/formatChanged(_:)``); nil for footage.
    private var streamFormat: VideoStreamFormat?
    /// Session time of the last frame written, across segments.
    private var lastSessionTime: MediaTime?
    /// Session start of the first segment (``Configuration/recordedAt`` on the wall clock).
    private var firstSessionStart: MediaTime?
    /// How long the last close took on the capture path, for the next switch's timings.
    private var lastCloseDuration: Duration?
    // ── sound (Configuration.audio)
    /// The session's sound as one stream from the first segment's start.
    private var audioTimeline: SessionAudioTimeline?
    /// Buffers that came before the first segment opened.
    private var pendingAudio: [AudioSampleBuffer] = []
    private var awaitingAudio: AwaitingAudio?
    /// True once the microphone's stream has ended (the resampler drained).
    private var audioFlushed = false
    // ── end of sound
    // ── session event log
    /// Session events naming a frame wait for it (``SessionEventSequencer``).
    private var eventSequencer = SessionEventSequencer()
    /// Source warnings that arrived after a stop-on-change stop (not in `warnings`).
    private var warningsAfterStop = 0
    // ── end of session event log

    /// A muxer that has written nothing yet (the first frame opens `segment-000.mp4`).
    public init(_ configuration: Configuration) { self.init(configuration, slots: FrameSlots(capacity: max(1, configuration.framesInFlight))) }

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
        journal = ManifestJournal(directory: configuration.output.url)
        builder = ManifestBuilder(
            mode: configuration.policy.mode, devices: configuration.devices, encoder: configuration.settings, frameIndexStamp: configuration.frameIndexStamp,
            recordsSessionEvents: configuration.recordsSessionEvents, deviceControls: configuration.deviceControls, recordedAt: configuration.recordedAt,
            segmentLimits: configuration.maximumSegmentDuration == nil && configuration.maximumSegmentBytes == nil
                ? nil : SegmentLimits(maxSegmentDuration: configuration.maximumSegmentDuration, maxSegmentBytes: configuration.maximumSegmentBytes))
        for note in configuration.notes { builder.apply(.note(note)) }
        (announcements, announcementSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// The manifest as it stands (the open segment's record included, its end not yet final).
    public var manifest: RecordingManifest { builder.manifest }

    /// Frames written and segments opened so far: what a progress line shows, without
    /// copying the manifest.
    public var progressCounts: (framesWritten: Int, segments: Int) { (builder.manifest.frames.written, builder.manifest.segments.count) }

    /// True once the muxer takes no more frames (stop-on-change after a change, or finished).
    public var hasStopped: Bool { state == .stopped || state == .finished }

    /// Consumes one event, in delivery order.
    /// - Throws: ``RecordingError`` (a call while another is in progress or after the end; a
    ///   segment end that is not after its last frame), the writer's errors
    ///   (`FFmpegError`, ``SegmentWriterError``) as soon as they happen. After a throw, call
    ///   ``abort(error:)`` to keep what was already written.
    public func process(_ event: sending CaptureOutputEvent) async throws {
        try enter()
        defer { busy = false }
        switch event {
        case .formatChanged(let format): streamFormat = format
        case .frame(let frame):
            releaseSessionEvents(naming: frame.index, at: frame.sessionTime)
            try await receive(frame)
            try pumpAudio()
        case .audioSampleBuffer(let buffer): try receiveAudio(buffer)
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
        }
    }

    /// Closes the open segment at the end of its last frame, waits for every segment to be
    /// finished, writes `manifest.json` (atomically) and returns the manifest.
    /// - Parameter reason: `endOfStream` or `requested` (a recording that stopped on a
    ///   change keeps `dimensionsChanged`).
    /// - Throws: writer or I/O errors (call ``abort(error:)`` then).
    public func finish(reason: StopReason = .endOfStream) async throws -> RecordingManifest {
        try enter()
        defer { busy = false }
        try endAudio()
        if let end = naturalEndOfOpenSegment { try await closeOpenSegment(at: end) }
        try completeAwaitingAudio()
        let pending = finishing
        finishing = []
        try await settle(pending)
        apply(matcher.finish(stopTime: builder.manifest.stopTime))
        finishSessionEventLog()
        announce(.finished(reason, error: nil))
        await journal.close()
        if let failure = journal.failure.error { throw failure }
        try ManifestWriter.write(builder.manifest, to: configuration.output.url)
        state = .finished
        configuration.output.lock.release()
        announcementSink.finish()
        return builder.manifest
    }

    /// Keeps what can be kept after a failure: the open segment is finished at the end of
    /// its last frame if its writer still can (else removed, its frames counted
    /// `writeFailed`), segments being finished are waited for, and the manifest is written
    /// with `stopReason: error` and `message`. Never throws.
    public func abort(error message: String) async -> RecordingManifest {
        busy = true
        defer { busy = false }
        try? endAudio()
        if let end = naturalEndOfOpenSegment { try? await closeOpenSegment(at: end) }
        try? completeAwaitingAudio()
        let pending = finishing
        finishing = []
        try? await settle(pending)
        apply(matcher.finish(stopTime: builder.manifest.stopTime))
        finishSessionEventLog()
        announce(.finished(.error, error: message))
        await journal.close()
        try? ManifestWriter.write(builder.manifest, to: configuration.output.url)
        state = .finished
        configuration.output.lock.release()
        announcementSink.finish()
        return builder.manifest
    }

    private func enter() throws(RecordingError) {
        guard !busy else { throw .invalidState("SegmentMuxer: a call arrived while another was in progress; await each call") }
        guard state != .finished else { throw .invalidState("SegmentMuxer: the recording is finished") }
        busy = true
    }

    // MARK: Frames

    private func receive(_ frame: sending VideoFrame) async throws {
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
    private func route(_ frame: sending VideoFrame) async throws {
        if let limit = configuration.maximumSegmentBytes, var segment = open, segment.frameCount > 0 {
            // Wait until the writer has encoded every frame given before this one.
            segment.boundary.encodedBytes = await segment.writer.encodedBytes()
            segment.boundary.maximumBytes = limit
            open = segment
        }
        switch try boundaryRule.decision(
            for: frame, in: streamFormat, open: open?.boundary, lastWritten: lastSessionTime, stopped: state == .stopped, segmentsOpened: nextSegmentIndex)
        {
        case .append: try await append(frame)
        case .drop(let reason, let warning):
            announce(.frameDropped(reason))
            if let warning { announce(.warning(warning)) }
            // Journaled at once, except the frames after a stop.
            if reason != .recordingStopped { try writeJournal() }
        case .cut(let reason, let end, let warning):
            if let warning { announce(.warning(warning)) }
            let previousCamera = open?.boundary.camera
            if let end { try await closeOpenSegment(at: end) }
            try await openSegment(with: frame, reason: reason, previousCamera: previousCamera)
        case .stop(let reason, let note):
            try await closeOpenSegment(at: frame.sessionTime)
            state = .stopped
            announce(.frameDropped(.recordingStopped))
            announce(.stopped(reason, at: frame.sessionTime))
            announce(.note(note))
        }
    }

    /// Opens the next file for `frame`, which becomes its first frame at file time 0.
    private func openSegment(with frame: sending VideoFrame, reason: SegmentStartReason, previousCamera: String? = nil) async throws {
        precondition(open == nil, "a segment is already open")
        let index = nextSegmentIndex
        nextSegmentIndex += 1
        let url = SegmentFiles(index: index, in: configuration.output.url).url
        let file = url.lastPathComponent
        let newDimensions = previousDimensions.map { $0 != frame.dimensions } ?? false
        previousDimensions = frame.dimensions
        // A camera or format switch realizes no completion: the new stream starts with its size.
        var (change, decisions) = matcher.segmentOpened(
            file: file, firstFrame: frame, newDimensions: newDimensions, cameraSwitched: reason == .cameraSwitched || reason == .formatChanged)
        let format = streamFormat
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
                    rotationDegrees: manifestRotation, camera: format?.camera?.id, facing: format?.camera?.facing, constituent: format?.camera?.constituent)))
        apply(decisions)
        // The journal lists the segment before its writer creates the .partial file.
        if let failure = journal.failure.error { throw failure }
        let generation = journal.submit(builder.manifest)
        let writer = SegmentWriterActor.start(
            SegmentWriterActor.Parameters(
                segment: index, url: url, dimensions: frame.dimensions, timescale: timescale, settings: settings, displayRotationDegrees: displayRotation,
                fragmentInterval: configuration.fragmentInterval, firstFrameIndex: frame.index, closeDuration: lastCloseDuration, journal: journal,
                journalGeneration: generation, creationTime: creationTime, audio: configuration.audio), slots: slots, pool: configuration.pixelBufferPool,
            statistics: configuration.statistics)
        lastCloseDuration = nil
        open = OpenSegment(
            index: index, writer: writer, sessionStart: start, audioStart: try startAudio(at: start),
            boundary: SegmentBoundaryRule.OpenSegment(
                file: file, dimensions: frame.dimensions, camera: format?.camera?.id, rotation: format?.rotationAngle, frameRate: settings.frameRate,
                lastFormat: format, lastSessionTime: start, lastFrameEnd: start, sessionStart: start))
        try await append(frame)
    }

    /// Queues `frame` to the open segment at file time `sessionTime − sessionStart`, after
    /// waiting for a free slot (back-pressure); with ``Configuration/dropsFramesWhenBehind``
    /// a frame that finds no free slot is dropped `late` instead (never its segment's first).
    private func append(_ frame: sending VideoFrame) async throws {
        guard var segment = open else { throw RecordingError.invalidState("no open segment") }
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
        open = segment
        lastSessionTime = sessionTime
        matcher.frameWritten(at: sessionTime)
        builder.apply(.frameWritten(segment: segment.index))
    }

    // MARK: Closing

    /// The end of the open segment's last frame by its own duration (at least one session
    /// tick after the last frame, whatever duration it claimed).
    private var naturalEndOfOpenSegment: MediaTime? {
        guard let segment = open?.boundary else { return nil }
        let oneTick = MediaTime(value: 1, timescale: MediaClock.host.timescale)
        return max(segment.lastFrameEnd, (try? segment.lastSessionTime.adding(oneTick)) ?? segment.lastFrameEnd)
    }

    /// Closes the open segment so that its last frame lasts until `requestedEnd` (session
    /// clock; capped at ``maximumFrameDuration`` after it, with a warning) and hands the
    /// writer its finish; then waits for the segment closed before it.
    /// - Throws: an end not after the last frame (the segment is removed), or the error with
    ///   which an earlier segment failed to finish.
    private func closeOpenSegment(at requestedEnd: MediaTime) async throws {
        guard let segment = open else { return }
        let closeStart = ContinuousClock.now
        let resumeState = state
        state = .endingFile
        defer { if state == .endingFile { state = resumeState } }
        open = nil
        var end = requestedEnd
        if let longest = try? segment.boundary.lastSessionTime.adding(maximumFrameDuration), requestedEnd > longest {
            end = longest
            announce(
                .warning(
                    "the last frame of \(segment.file) would last until \(requestedEnd), longer than a segment file can hold one frame; it ends at \(longest)"))
        }
        guard end > segment.boundary.lastSessionTime else {
            discard(segment, because: "its end \(end) is not after its last frame")
            throw RecordingError.invalidState("segment end \(end) must come after its last frame at \(segment.boundary.lastSessionTime)")
        }
        let fileEnd: MediaTime
        do { fileEnd = try end.subtracting(segment.sessionStart) } catch {
            discard(segment, because: "\(error)")
            throw error
        }
        announce(.segmentEnded(file: segment.file, end: end))
        if let timeline = audioTimeline {
            // An earlier segment still waiting for sound: the microphone fell silent.
            try completeAwaitingAudio()
            awaitingAudio = AwaitingAudio(
                file: segment.file, writer: segment.writer, end: max(timeline.sampleIndex(at: end), segment.audioStart), fileEnd: fileEnd,
                written: segment.audioWritten)
            try pumpAudio()
        } else {
            segment.writer.finish(endTime: fileEnd)
        }
        try writeJournal()
        let earlier = finishing
        finishing = [FinishingSegment(file: segment.file, start: segment.sessionStart, end: end, frames: segment.frameCount, writer: segment.writer)]
        lastCloseDuration = .now - closeStart
        // At most one closed segment is still being finished: wait for the one before.
        try await settle(earlier)
    }

    /// Abandons a segment that cannot be finished: its partial file is deleted and its
    /// frames are counted as dropped (`writeFailed`).
    private func discard(_ segment: OpenSegment, because reason: String) {
        segment.writer.cancel()
        announce(.segmentFailed(file: segment.file, frames: segment.frameCount, reason: reason))
    }

    /// Waits for `segments` to be finished and announces each outcome.
    /// - Throws: the first failure among them (after announcing all).
    private func settle(_ segments: [FinishingSegment]) async throws {
        guard !segments.isEmpty else { return }
        var firstError: (any Error)?
        for segment in segments {
            switch await segment.writer.outcome.value {
            case .success(let summary):
                announce(.segmentClosed(file: segment.file, start: segment.start, end: segment.end, frames: segment.frames, bytes: summary.byteCount))
            case .failure(let error):
                salvage(segment, after: error)
                if firstError == nil { firstError = error }
            }
        }
        try writeJournal()
        if let firstError { throw firstError }
    }

    /// After a writer failed: a `.partial` file it kept (complete fragments, e.g. on a full
    /// disk) becomes the finished segment with the frames it holds; if even that cannot be
    /// written, the partial stays listed for `segrec recover`. Without a partial of its own
    /// (none, or one that was in the way when the writer tried to create it) the segment is
    /// gone and its frames count as `writeFailed`.
    private func salvage(_ segment: FinishingSegment, after error: any Error) {
        let files = SegmentFiles(segment.file, in: configuration.output.url)
        let (url, partial) = (files.url, files.partial)
        if case .partialFileExists(let path) = error as? SegmentWriterError, path == partial.path {
            // The writer never created it: whatever has that name is somebody else's.
            announce(.segmentFailed(file: segment.file, frames: segment.frames, reason: "it could not be created: \(error); that file is left as it was"))
            return
        }
        guard OutputDirectory.isRegularFile(partial) else {
            announce(.segmentFailed(file: segment.file, frames: segment.frames, reason: "it could not be finalized: \(error)"))
            return
        }
        do {
            let knownEnd = try segment.end.subtracting(segment.start)
            let recovered = try SegmentRecovery.recover(partial: partial, to: url, knownEnd: (segment.frames, knownEnd))
            unlink(partial.path)
            announce(
                .segmentSalvaged(
                    file: segment.file, frames: recovered.frameCount, end: try recovered.sessionEnd(start: segment.start, knownEnd: knownEnd),
                    bytes: recovered.byteCount, reason: "writing failed (\(error))"))
            if configuration.audio != nil {
                // The record says what the rebuilt file holds, nothing the writer had only queued.
                announce(.segmentAudioWritten(file: segment.file, recovered.audio.map(SegmentAudioRecord.init(recovered:))))
                if recovered.audio == nil { announce(.warning(SegmentAudioRecord.noneKeptWarning(segment.file))) }
            }
        } catch let recoveryError {
            var exists = stat()
            if lstat(url.path, &exists) == 0 {
                // The final name was taken by someone else's file: never claim it. The frames
                // stay on disk under a name segrec never writes.
                let aside = SegmentFiles.setAside(partial, .unfinished)
                announce(
                    .segmentFailed(
                        file: segment.file, frames: segment.frames,
                        reason: "it could not be finalized: \(error)" + (aside.map { "; its fragments are kept in \($0.lastPathComponent)" } ?? "")))
                return
            }
            announce(
                .warning(
                    "\(segment.file): writing failed (\(error)) and its complete fragments could not be rebuilt now (\(recoveryError)); \(partial.lastPathComponent) is kept: run `segrec recover \(configuration.output.url.path)` once the cause is fixed"
                ))
        }
    }

    /// Queues the manifest as it stands to the ``ManifestJournal`` (see "Crash safety").
    /// - Throws: the error of an earlier journal write (e.g. disk full), at once.
    private func writeJournal() throws {
        if let failure = journal.failure.error { throw failure }
        guard state != .finished else { return }
        journal.submit(builder.manifest)
    }

    // MARK: Sound

    /// A microphone buffer: counted, then resampled onto the session clock and handed to
    /// the segment(s) it belongs to (held until the first segment opens).
    private func receiveAudio(_ buffer: AudioSampleBuffer) throws {
        announce(.audioReceived(samples: buffer.frameCount))
        guard configuration.audio != nil, !audioFlushed else { return }
        guard let timeline = audioTimeline else {
            if state != .stopped { pendingAudio.append(buffer) }
            return
        }
        try timeline.append(buffer)
        try pumpAudio()
    }

    /// The timeline index of the first sample of a segment starting at session time `start`;
    /// the first segment's start is the timeline's origin (sound held before it is placed now).
    private func startAudio(at start: MediaTime) throws -> Int64 {
        guard let settings = configuration.audio else { return 0 }
        if let timeline = audioTimeline { return timeline.sampleIndex(at: start) }
        let timeline = try SessionAudioTimeline(sampleRate: settings.sampleRate, channelCount: settings.channelCount, origin: start)
        audioTimeline = timeline
        for buffer in pendingAudio { try timeline.append(buffer) }
        pendingAudio = []
        return 0
    }

    /// Hands the sound that is known to belong somewhere to its writer: a closed segment
    /// waiting for sound up to its end first (finished once complete), then the open
    /// segment's, up to its last frame's session time (a later cut cannot move those
    /// samples). Sound between segments, or after a stop, is not recorded.
    private func pumpAudio() throws {
        guard let timeline = audioTimeline else { return }
        if var waiting = awaitingAudio {
            let pcm = timeline.take(upTo: waiting.end, padding: audioFlushed)
            waiting.writer.appendAudio(pcm)
            waiting.written += Int64(pcm.frameCount)
            awaitingAudio = waiting
            guard timeline.taken >= waiting.end else { return }
            try completeAwaitingAudio()
        }
        guard var segment = open else {
            if state == .stopped || state == .finished { timeline.discard(upTo: timeline.produced) }
            return
        }
        if timeline.taken < segment.audioStart { timeline.discard(upTo: segment.audioStart) }
        guard timeline.taken >= segment.audioStart else { return }
        let pcm = timeline.take(upTo: timeline.sampleIndex(at: segment.boundary.lastSessionTime), padding: false)
        segment.writer.appendAudio(pcm)
        segment.audioWritten += Int64(pcm.frameCount)
        open = segment
    }

    /// Finishes the closed segment waiting for sound: what is missing up to its end is
    /// silence (none when the sound came), then its writer's finish.
    private func completeAwaitingAudio() throws {
        guard var waiting = awaitingAudio, let timeline = audioTimeline, let settings = configuration.audio else { return }
        awaitingAudio = nil
        if timeline.taken < waiting.end {
            let pcm = timeline.take(upTo: waiting.end, padding: true)
            waiting.writer.appendAudio(pcm)
            waiting.written += Int64(pcm.frameCount)
        }
        waiting.writer.finish(endTime: waiting.fileEnd)
        announce(
            .segmentAudioWritten(
                file: waiting.file, SegmentAudioRecord(sampleRate: settings.sampleRate, channels: settings.channelCount, sampleCount: waiting.written)))
    }

    /// The microphone's stream ended (the recording finishes): the resampler is drained and
    /// its last samples handed out.
    private func endAudio() throws {
        guard let timeline = audioTimeline, !audioFlushed else { return }
        try timeline.flush()
        audioFlushed = true
        try pumpAudio()
        if timeline.corrections > 0 {
            let rate = Double(timeline.sampleRate)
            announce(
                .warning(
                    "the input's audio timestamps leave gaps or overlap \(timeline.corrections) time\(timeline.corrections == 1 ? "" : "s"): "
                        + "\(timeline.silenceFilled) samples (\(String(format: "%.3f", Double(timeline.silenceFilled) / rate)) s) of silence filled in, "
                        + "\(timeline.samplesTrimmed) samples (\(String(format: "%.3f", Double(timeline.samplesTrimmed) / rate)) s) trimmed, so each sample sits at its own timestamp"
                ))
        }
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

    private func announce(_ event: SegmentMuxerEvent) {
        builder.apply(event)
        announcementSink.yield(event)
    }

    private func apply(_ decisions: [ChangeAnnouncementMatcher.Decision]) {
        for decision in decisions {
            switch decision {
            case .attach(let file, let change): announce(.changeAttached(file: file, change))
            case .warn(let message): announce(.warning(message))
            }
        }
    }
}
