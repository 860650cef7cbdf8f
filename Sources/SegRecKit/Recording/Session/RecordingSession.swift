import Foundation

/// One recording, from a ``RecordingRequest`` to the manifest: the library's composition
/// root. `init` checks the request, builds the source (camera model, footage or both) and
/// the one ``PixelBufferPool`` they share with the writers, the muxer configuration, and
/// claims the output folder; ``run()`` records and releases the folder's lock. `segrec
/// record` is parse → request → session → print; an app embeds it the same way.
///
/// ```swift
/// var request = RecordingRequest(output: URL(fileURLWithPath: "/tmp/take1"))
/// request.scenario = try Scenario.load(contentsOf: scenarioURL)
/// let session = try RecordingSession(request)
/// let manifest = try await session.run()
/// ```
///
/// Not `Sendable`: create and run it in one task.
public final class RecordingSession {
    /// The request as given.
    public let request: RecordingRequest
    /// The claimed output folder (its ``RecordingLock`` is held until ``run()`` ends).
    public let output: OutputDirectory
    /// The source the pipeline pulls (paced when ``RecordingRequest/realtime``).
    public let source: any CaptureOutputEventSource
    /// The muxer configuration built from the request.
    public let configuration: SegmentMuxer.Configuration
    /// Checked before each event; once requested the recording ends with `stopReason: requested`.
    public let stopRequest: RecordingStopRequest?
    private var progressContinuation: AsyncStream<RecordingProgress>.Continuation?
    /// The manifest of the one run, once it ended (a session runs once).
    private var ran: RecordingManifest?

    /// Checks `request`, builds its source and muxer configuration, and claims its folder.
    /// - Parameters:
    ///   - request: what to record, where and how.
    ///   - stopRequest: the flag that stops the recording (a process's SIGINT
    ///     handler sets ``RecordingStopRequest/process``); also passed to footage decoders,
    ///     so a read that waits on a pipe gives up. `nil`: runs to the end of the source.
    /// - Throws: ``RecordingRequestError`` (fields that do not go together, or a stop
    ///   requested before the folder was claimed); ``ScenarioError`` (a scenario the camera
    ///   model rejects); ``EncoderSettingsError``; ``MediaInputError`` / ``FFmpegError``
    ///   (footage that cannot be opened); ``RecordingError`` (
    ///   an output folder that is locked, not writable or holds a recording without `force`).
    public init(_ request: RecordingRequest, stopRequest: RecordingStopRequest? = nil) throws {
        self.request = request
        self.stopRequest = stopRequest
        if stopRequest?.isRequested == true { throw RecordingRequestError.stoppedBeforeStart }
        try Self.checkCombinations(request)
        if let url = request.statisticsURL {
            let folder = url.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: folder.path) else {
                throw RecordingRequestError.statisticsFolderMissing(path: url.path, folder: folder.path)
            }
        }
        // One pool for the whole recording: producers take planes, the writers give them back.
        let pool = PixelBufferPool()
        let built: BuiltSource
        if let scenario = request.camerasScenario {
            built = try Self.camerasSource(request, scenario: scenario, pool: pool, stopRequest: stopRequest)
        } else if request.source == .synthetic || request.scenario != nil {
            built = try Self.oneCameraSource(request, scenario: request.scenario ?? Scenario.tapToRotate, pool: pool, stopRequest: stopRequest)
        } else {
            built = try Self.footagePassedThrough(request, pool: pool, stopRequest: stopRequest)
        }
        if stopRequest?.isRequested == true { throw RecordingRequestError.stoppedBeforeStart }
        let output = try OutputDirectory(preparing: request.output, force: request.force)
        var configuration = SegmentMuxer.Configuration(
            output: output, settings: built.settings, policy: SplitPolicy(request.mode), devices: built.devices, rotationDegrees: built.rotationDegrees,
            frameIndexStamp: built.stampsFrameIndex, pixelBufferPool: pool, notes: built.notes, fragmentInterval: request.fragmentInterval)
        configuration.recordsSessionEvents = built.recordsSessionEvents
        configuration.captureFrameRates = built.captureFrameRates
        configuration.deviceControls = built.deviceControls
        configuration.audio = built.audio
        configuration.splitOnRotation = request.splitOnRotation
        configuration.maximumSegmentDuration = request.maximumSegmentDuration
        configuration.maximumSegmentBytes = request.maximumSegmentBytes
        configuration.recordedAt = Date()
        if let framesInFlight = request.framesInFlight ?? built.framesInFlight { configuration.framesInFlight = framesInFlight }
        if request.fragmentInterval == nil {
            configuration.notes.append("--fragment-interval 0: segments are written whole when they close; a crash loses the open segment")
        }
        // Real time never waits for the encoder: a frame that finds the writer queue full is dropped late.
        configuration.dropsFramesWhenBehind = request.realtime
        if request.statisticsURL != nil { configuration.statistics = RecordingStatistics(expectedFrames: built.expectedFrames) }
        self.output = output
        self.configuration = configuration
        self.source = request.realtime ? RealtimePacer(wrapping: built.source) : built.source
    }

    /// A stream of the recording's progress, one element after each frame (the newest
    /// when the reader falls behind), finished when ``run()`` ends. Call before ``run()``;
    /// without it no progress is gathered. One stream at a time: calling again finishes
    /// the stream an earlier call returned.
    public func progressUpdates() -> AsyncStream<RecordingProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: RecordingProgress.self, bufferingPolicy: .bufferingNewest(1))
        progressContinuation?.finish()
        progressContinuation = continuation
        if ran != nil { continuation.finish() }
        return stream
    }

    /// Records to the end of the source (or the stop request), writes the manifest into the
    /// folder and releases the folder's lock. A session runs once.
    /// - Returns: the manifest.
    /// - Throws: ``RecordingFailure``, carrying the manifest of what was kept; on a second
    ///   call a ``RecordingFailure`` with ``RecordingError/invalidState(_:)`` and the first
    ///   run's manifest (the folder is not touched).
    public func run() async throws(RecordingFailure) -> RecordingManifest {
        if let manifest = ran {
            throw RecordingFailure(
                underlying: RecordingError.invalidState("RecordingSession.run: a session runs once, and this one has run; make a new RecordingSession"),
                manifest: manifest)
        }
        ran = RecordingManifest(mode: request.mode, devices: [], encoder: nil)
        var pipeline = RecordingPipeline(source: source, muxer: SegmentMuxer(configuration))
        pipeline.statisticsURL = request.statisticsURL
        pipeline.stopRequest = stopRequest
        let continuation = progressContinuation
        defer {
            continuation?.finish()
            output.lock.release()
        }
        do {
            let manifest = try await pipeline.run(progress: continuation.map { continuation in { continuation.yield($0) } })
            ran = manifest
            return manifest
        } catch {
            ran = error.manifest
            throw error
        }
    }

    /// The request's fields that exclude each other, in the order `segrec record` checks them.
    private static func checkCombinations(_ request: RecordingRequest) throws(RecordingRequestError) {
        if request.splitOnRotation {
            if request.mode != .segment { throw .splitOnRotationNeedsSegmentMode }
            if request.passesFootageThrough { throw .splitOnRotationNeedsCameraModel }
        }
        guard request.camerasScenario == nil else { return }
        if !request.cameraClips.isEmpty { throw .cameraClipsNeedCameras }
        if request.passesFootageThrough, request.mirror != .off { throw .mirrorNeedsCameraModel(request.mirror) }
    }
}

/// What a source builder hands back to ``RecordingSession``: the source and what the muxer
/// configuration needs to know about it.
struct BuiltSource {
    var source: any CaptureOutputEventSource
    var settings: EncoderSettings
    var devices: [MediaClock]
    var stampsFrameIndex: Bool
    var notes: [String] = []
    var rotationDegrees: Int? = nil
    var recordsSessionEvents = false
    var deviceControls: [String: DeviceControlInfo] = [:]
    /// Frames the source will deliver, when known (capacity for `--stats` timings).
    var expectedFrames = 0
    /// Every rate the source may capture at (``SegmentMuxer/Configuration/captureFrameRates``).
    var captureFrameRates: [FrameRate] = []
    /// The segments' audio track (the session's microphone), or nil.
    var audio: AudioTrackSettings? = nil
    /// The writer queue depth this source records with when `--frames-in-flight` is not
    /// given (nil: ``SegmentMuxer/framesInFlight``).
    var framesInFlight: Int? = nil
}
