import Foundation

/// A recorder for an app that makes its own frames: it appends pictures with their session
/// times (like `AVAssetWriterInputPixelBufferAdaptor.append(_:withPresentationTime:)`) and
/// announces each change of dimensions with ``finishCurrentSegment(atSessionTime:)`` and
/// ``startNextSegment(afterSessionTime:)`` (``SegmentingRecorder``). The files, the manifest
/// and the crash safety are those of `segrec record`: a segment per run of dimensions (or
/// one movie file that stops at the first change), exact boundaries, `manifest.json`.
///
/// The buffers win where they disagree with an announcement: the segment starts at the
/// first frame with new dimensions, and the manifest warns when the announced time differs.
/// A change nobody announced is recorded with `change.announced: false`.
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
        public init(output: URL) {
            self.output = output
        }
    }

    /// The clock the appended frames are stamped on: the session's synchronization clock.
    public static let clock = MediaClock.host

    private let muxer: SegmentMuxer
    private let frameDuration: MediaTime
    private var appended: Int64 = 0
    private var dimensions: VideoDimensions?
    /// The time of an announced change whose first new-size frame has not arrived yet.
    private var announcedChange: MediaTime?

    /// Claims the output folder and prepares the muxer.
    /// - Throws: ``EncoderSettingsError``; ``RecordingError`` (a folder that is locked, not
    ///   writable, or holds a recording without ``Configuration/force``).
    public init(_ configuration: Configuration) throws {
        try configuration.encoder.validate()
        let output = try OutputDirectory(preparing: configuration.output, force: configuration.force)
        let muxerConfiguration = SegmentMuxer.Configuration(
            output: output, settings: configuration.encoder, policy: SplitPolicy(configuration.mode),
            devices: [Self.clock], frameIndexStamp: configuration.stampsFrameIndex,
            fragmentInterval: configuration.fragmentInterval)
        muxer = SegmentMuxer(muxerConfiguration)
        let rate = configuration.encoder.frameRate.frameDuration
        frameDuration = try MediaTime(value: rate.numerator, timescale: Int32(clamping: rate.denominator))
            .converted(toTimescale: Self.clock.timescale)
    }

    /// Frames appended so far.
    public var appendedFrameCount: Int64 { appended }

    /// False once the recording has stopped (stop-on-change met a new size, or it finished).
    public var isRecording: Bool {
        get async { await !muxer.hasStopped }
    }

    /// Appends one picture captured at `sessionTime` (session clock, any timescale; times
    /// must increase). The recorder keeps it on the session clock's nanosecond timescale
    /// (rounded once, half away from zero). Its index is the number of frames appended
    /// before it.
    /// - Throws: what the encoder, muxer or file system throws (``SegmentWriterError``,
    ///   ``FFmpegError``, ``RecordingError``); a frame after the recording stopped is
    ///   counted as dropped, not thrown.
    /// Mirrors `AVAssetWriterInputPixelBufferAdaptor.append(_:withPresentationTime:)`.
    public func append(_ pixelBuffer: PixelBuffer, withPresentationTime sessionTime: MediaTime) async throws {
        let time = try sessionTime.converted(toTimescale: Self.clock.timescale)
        let newDimensions = pixelBuffer.dimensions
        let changed = dimensions.map { $0 != newDimensions } ?? false
        dimensions = newDimensions
        var frame = VideoFrame(pixelBuffer: pixelBuffer, index: appended, deviceTime: time, sessionTime: time,
                               duration: frameDuration)
        frame.deliveredAt = .now
        appended += 1
        try await muxer.process(.frame(frame))
        // The announcement follows the first frame of the new size, as a completion handler
        // that runs after that buffer: the segment it opened takes it, exactly or (another
        // time) with the warning that the buffers won.
        if changed, let announced = announcedChange {
            announcedChange = nil
            try await muxer.process(.dynamicAspectRatioChangeCompleted(DynamicAspectRatioChange(
                aspectRatio: DynamicAspectRatio(matching: newDimensions), dimensions: newDimensions,
                deviceTime: announced, sessionTime: announced)))
        }
    }

    /// Announces that the frames from `time` (session clock) on have new dimensions; the
    /// open segment ends there. An announcement no frame of new dimensions follows is
    /// warned about when the recording finishes.
    /// - Throws: ``MediaTimeError`` for a time the session clock cannot hold.
    public func finishCurrentSegment(atSessionTime time: MediaTime) async throws {
        announcedChange = try time.converted(toTimescale: Self.clock.timescale)
    }

    /// The next segment starts at `time` with the first frame of new dimensions: the same
    /// instant as ``finishCurrentSegment(atSessionTime:)`` (a later time replaces it).
    /// - Throws: ``MediaTimeError`` for a time the session clock cannot hold.
    public func startNextSegment(afterSessionTime time: MediaTime) async throws {
        announcedChange = try time.converted(toTimescale: Self.clock.timescale)
    }

    /// Closes the open segment and writes the manifest (like `AVAssetWriter.finishWriting`).
    /// - Returns: the manifest, also in the output folder.
    /// - Throws: what closing the last segment throws; the manifest then describes what was kept.
    public func finishWriting() async throws -> RecordingManifest {
        if let announced = announcedChange {
            try await muxer.process(.warning("finishCurrentSegment(atSessionTime: \(announced)) announced a change of dimensions, but no frame with new dimensions followed"))
        }
        do {
            return try await muxer.finish(reason: .endOfStream)
        } catch {
            _ = await muxer.abort(error: "\(error)")
            throw error
        }
    }
}
