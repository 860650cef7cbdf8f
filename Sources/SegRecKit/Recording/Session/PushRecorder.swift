import Foundation

/// A recorder for an app that makes its own frames: it appends pictures with their session
/// times (like `AVAssetWriterInputPixelBufferAdaptor.append(_:withPresentationTime:)`) and
/// announces each change of dimensions with ``finishCurrentSegment(atSessionTime:)`` and
/// ``startNextSegment(afterSessionTime:)`` (``SegmentingRecorder``). The files, the manifest
/// and the crash safety are those of `segrec record`: a segment per run of dimensions (or
/// one movie file that stops at the first change), exact boundaries, `manifest.json`.
///
/// The buffers win where they disagree with an announcement: the segment starts at the
/// first frame with new dimensions, and the manifest warns when the announced time differs
/// (earlier or later). An announcement belongs to the next change of dimensions, as a
/// `setDynamicAspectRatio` completion does (Docs/clocks.md, "A change"). A change nobody
/// announced is recorded with `change.announced: false`.
///
/// ```swift
/// let recorder = try PushRecorder(PushRecorder.Configuration(output: folder))
/// try await recorder.append(picture, withPresentationTime: t)     // session time, any timescale
/// try await recorder.finishCurrentSegment(atSessionTime: change)  // the converted change time
/// try await recorder.startNextSegment(afterSessionTime: change)
/// let manifest = try await recorder.finishWriting()
/// ```
public actor PushRecorder: SegmentingRecorder {
    /// How to record.
    public struct Configuration: Sendable {
        /// The output folder (created when missing).
        public var output: URL
        /// Replace an earlier recording in ``output`` (only the files its manifest lists).
        public var force = false
        /// Segment mode (a file per run of dimensions) or stop-on-change (one movie file).
        public var mode: RecordingMode = .segment
        /// Encoder settings; ``EncoderSettings/frameRate`` is the nominal rate: it sets the
        /// files' track timescale and the duration of the last frame.
        public var encoder = EncoderSettings()
        /// Crash safety: the open segment's `.partial` file gets a fragment at least this
        /// often; `nil` writes each file whole when it closes. Default 1 s.
        public var fragmentInterval: MediaTime? = MediaTime(value: 1, timescale: 1)
        /// The app stamps each frame's index (``FrameIndexStamp``, rows 0–15), so `segrec
        /// verify` can read it back.
        public var stampsFrameIndex = false

        /// A configuration writing into `output`, everything else at its default.
        public init(output: URL) { self.output = output }
    }

    /// The clock the appended frames are stamped on: the session's synchronization clock.
    public static let clock = MediaClock.host

    private let muxer: SegmentMuxer
    private let frameDuration: MediaTime
    private var appended: Int64 = 0
    private var dimensions: VideoDimensions?
    /// The time of an announced change whose first new-size frame has not arrived yet.
    private var announcedChange: MediaTime?
    /// An announced change whose new size has arrived, held until a frame reaches the
    /// announced time (so the muxer meets it as a completion for a time it has seen).
    private var heldCompletion: DynamicAspectRatioChange?
    /// The dimensions of the latest change of size no announcement has claimed yet.
    private var unannouncedDimensions: VideoDimensions?
    /// The session time of the last frame appended.
    private var lastTime: MediaTime?
    /// Set by ``finishWriting()``: the recording is over.
    private var finished = false

    /// Claims the output folder and prepares the muxer.
    /// - Throws: ``EncoderSettingsError``; ``RecordingError`` (a folder that is locked, not
    ///   writable, or holds a recording without ``Configuration/force``).
    public init(_ configuration: Configuration) throws {
        try configuration.encoder.validate()
        let output = try OutputDirectory(preparing: configuration.output, force: configuration.force)
        let muxerConfiguration = SegmentMuxer.Configuration(
            output: output, settings: configuration.encoder, policy: SplitPolicy(configuration.mode), devices: [Self.clock],
            frameIndexStamp: configuration.stampsFrameIndex, fragmentInterval: configuration.fragmentInterval)
        muxer = SegmentMuxer(muxerConfiguration)
        let rate = configuration.encoder.frameRate.frameDuration
        frameDuration = try MediaTime(value: rate.numerator, timescale: Int32(clamping: rate.denominator)).converted(toTimescale: Self.clock.timescale)
    }

    /// Frames appended so far.
    public var appendedFrameCount: Int64 { appended }

    /// False once the recording has stopped (stop-on-change met a new size, or it finished).
    public var isRecording: Bool { get async { await !muxer.hasStopped } }

    /// Appends one picture captured at `sessionTime` (session clock, any timescale; times
    /// must increase). The recorder keeps it on the session clock's nanosecond timescale
    /// (rounded once, half away from zero). Its index is the number of frames appended
    /// before it.
    /// - Throws: ``RecordingError/invalidState(_:)`` after ``finishWriting()``; what the
    ///   encoder, muxer or file system throws (``SegmentWriterError``, ``FFmpegError``,
    ///   ``RecordingError``): call ``finishWriting()`` then to keep what was written. A
    ///   frame after a stop-on-change stop, or whose time (in nanoseconds) does not come
    ///   after the last one, is dropped and counted in the manifest, not thrown.
    /// Mirrors `AVAssetWriterInputPixelBufferAdaptor.append(_:withPresentationTime:)`.
    public func append(_ pixelBuffer: PixelBuffer, withPresentationTime sessionTime: MediaTime) async throws {
        try checkNotFinished("append")
        let time = try sessionTime.converted(toTimescale: Self.clock.timescale)
        let newDimensions = pixelBuffer.dimensions
        let changed = dimensions.map { $0 != newDimensions } ?? false
        dimensions = newDimensions
        var frame = VideoFrame(pixelBuffer: pixelBuffer, index: appended, deviceTime: time, sessionTime: time, duration: frameDuration)
        frame.deliveredAt = .now
        appended += 1
        try await muxer.process(.frame(frame))
        lastTime = time
        // The announcement follows the first frame of the new size, as a completion handler
        // that runs after that buffer, and once a frame has reached the announced time: the
        // segment it opened takes it, exactly or (another time) with the warning that the
        // buffers won.
        if changed {
            try await sendHeldCompletion()
            if let announced = announcedChange {
                announcedChange = nil
                heldCompletion = Self.completion(newDimensions, at: announced)
            } else {
                unannouncedDimensions = newDimensions
            }
        }
        try await sendHeldCompletion(reached: time)
    }

    /// An app's announcement as a `setDynamicAspectRatio` completion: the ratio that crops
    /// to `dimensions`, if any; device time = session time.
    private static func completion(_ dimensions: VideoDimensions, at time: MediaTime) -> DynamicAspectRatioChange {
        DynamicAspectRatioChange(aspectRatio: DynamicAspectRatio(matching: dimensions), dimensions: dimensions, deviceTime: time, sessionTime: time)
    }

    /// Hands the held completion to the muxer once a frame has reached its time (nil: now).
    private func sendHeldCompletion(reached time: MediaTime? = nil) async throws {
        guard let held = heldCompletion else { return }
        if let time, time < held.sessionTime { return }
        heldCompletion = nil
        try await muxer.process(.dynamicAspectRatioChangeCompleted(held))
    }

    /// An announcement at `time`: for the change of size already appended and not yet
    /// announced (a late answer), else for the next one.
    private func announce(_ time: MediaTime) async throws {
        if let dimensions = unannouncedDimensions {
            unannouncedDimensions = nil
            heldCompletion = Self.completion(dimensions, at: time)
            if let lastTime { try await sendHeldCompletion(reached: lastTime) }
        } else {
            announcedChange = time
        }
    }

    /// Throws once the recording is over: its files and manifest stay as they are.
    private func checkNotFinished(_ call: String) throws(RecordingError) {
        if finished { throw .invalidState("PushRecorder.\(call): the recording is finished (finishWriting was called); start a new PushRecorder") }
    }

    /// Announces that the frames from `time` (session clock) on have new dimensions; the
    /// open segment ends there. An announcement no frame of new dimensions follows is
    /// warned about when the recording finishes.
    /// - Throws: ``MediaTimeError`` for a time the session clock cannot hold.
    public func finishCurrentSegment(atSessionTime time: MediaTime) async throws {
        try checkNotFinished("finishCurrentSegment")
        try await announce(time.converted(toTimescale: Self.clock.timescale))
    }

    /// The next segment starts at `time` with the first frame of new dimensions: the same
    /// instant as ``finishCurrentSegment(atSessionTime:)`` (a later time replaces it).
    /// - Throws: ``MediaTimeError`` for a time the session clock cannot hold.
    public func startNextSegment(afterSessionTime time: MediaTime) async throws {
        try checkNotFinished("startNextSegment")
        let time = try time.converted(toTimescale: Self.clock.timescale)
        // The same instant as finishCurrentSegment's announces nothing more.
        if announcedChange == time || heldCompletion?.sessionTime == time { return }
        if let held = heldCompletion, held.sessionTime != time {
            // A later time replaces the held one.
            heldCompletion = Self.completion(held.dimensions, at: time)
            if let lastTime { try await sendHeldCompletion(reached: lastTime) }
            return
        }
        try await announce(time)
    }

    /// Closes the open segment and writes the manifest (like `AVAssetWriter.finishWriting`).
    /// Call it once; the recorder takes nothing after it.
    /// - Returns: the manifest, also in the output folder.
    /// - Throws: ``RecordingError/invalidState(_:)`` on a second call (the files and the
    ///   manifest stay as they are); what closing the last segment throws: the manifest
    ///   then describes what was kept.
    public func finishWriting() async throws -> RecordingManifest {
        try checkNotFinished("finishWriting")
        finished = true
        try await sendHeldCompletion()
        if let announced = announcedChange {
            try await muxer.process(
                .warning("finishCurrentSegment(atSessionTime: \(announced)) announced a change of dimensions, but no frame with new dimensions followed"))
        }
        do { return try await muxer.finish(reason: .endOfStream) } catch {
            _ = await muxer.abort(error: "\(error)")
            throw error
        }
    }
}
