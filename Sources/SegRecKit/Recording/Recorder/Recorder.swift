import Foundation

/// One recording, owned by one actor from the output folder's claim to its release: the
/// analog of AVCam's `CaptureService`, which owns its whole capture pipeline on one serial
/// executor. It holds the input (a ``PullInput`` it pulls, or the pictures and sound an app
/// pushes), the muxer, the sound segmenter, the manifest journal, the pixel pool, the
/// statistics and the folder's lock; segment writers are actors of their own, so closing
/// one file overlaps opening the next.
///
/// Every input goes through one door: the recorder pulls one ordered stream of
/// `CaptureOutputEvent`s (frames, completions, sound, drops, notes) and hands each to the
/// muxer. An app's pushed pictures join that stream as `CaptureOutputEvent`s too.
///
/// ```swift
/// var configuration = RecordingConfiguration(output: URL(fileURLWithPath: "/tmp/take1"))
/// var input = PullInput()
/// input.scenario = try Scenario.load(contentsOf: scenarioURL)
/// let manifest = try await Recorder(configuration, input: .pull(input)).run()
///
/// let pushed = try Recorder(RecordingConfiguration(output: folder), input: .push(PushInput()))
/// try await pushed.append(picture, withPresentationTime: t)        // session time
/// try await pushed.finishCurrentSegment(atSessionTime: change)     // the converted change time
/// try await pushed.startNextSegment(afterSessionTime: change)
/// let manifest2 = try await pushed.finishWriting()
/// ```
///
/// A recorder records once. ``events`` tells an app's UI what happens as it happens.
/// Cancelling the task that awaits ``run()`` or ``finishWriting()`` is a stop request.
public actor Recorder {
    /// The serial queue the recording runs on (pulling, pacing, muxing), like a capture
    /// session's sample-buffer delegate queue.
    private let executor: SerialQueueExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The configuration as given.
    public nonisolated let configuration: RecordingConfiguration
    /// The claimed output folder's URL.
    public nonisolated var output: URL { folder.url }
    /// What happens as it happens: segments opened and closed (with their manifest
    /// records), warnings, drops, progress after each frame, the stop. Keeps the newest
    /// 1024 events when nobody reads it; finished when the recording ends.
    public nonisolated let events: AsyncStream<RecordingEvent>
    private let eventSink: AsyncStream<RecordingEvent>.Continuation

    private let folder: OutputDirectory
    /// Where the events come from (a pulled source, or the pushed pictures' channel).
    private let source: any CaptureOutputEventSource
    private let muxer: SegmentMuxer
    /// What the muxer records with (built from the configuration and the input).
    package nonisolated let muxerConfiguration: SegmentMuxer.Configuration
    /// The pushed input's channel, nil for a pulled input.
    nonisolated let pushChannel: PushChannel?
    /// The pushed sound's format, nil without pushed sound.
    nonisolated let pushAudio: PushInput.Audio?
    /// Set by ``stop()`` or a task cancellation, and requested whenever the caller's own
    /// request is (a SIGINT handler's); the footage decoders poll it too, so a read that
    /// waits on a pipe gives up.
    private let stopRequest: RecordingStopRequest
    /// The one run of the recording, started by the first of ``run()``, ``start()`` or a push.
    private var recording: Task<Result<RecordingManifest, RecordingFailure>, Never>?

    /// Checks the configuration and input, builds the source and the muxer, and claims the
    /// output folder (its `RecordingLock` is held until the recording ends).
    /// - Parameters:
    ///   - configuration: how to write.
    ///   - input: what to record: pulled, or pushed by the app.
    ///   - stopRequest: a flag that stops the recording (a process's SIGINT handler sets
    ///     ``RecordingStopRequest/process``); also polled by footage decoders, so a read
    ///     that waits on a pipe gives up. nil: only ``stop()`` and task cancellation stop it.
    /// - Throws: ``RecordingInputError`` (fields that do not go together, or a stop requested
    ///   before the folder was claimed); ``ScenarioError`` (a scenario the camera model
    ///   rejects); ``EncoderSettingsError``; ``MediaInputError`` / ``FFmpegError`` (footage
    ///   that cannot be opened); ``RecordingError`` (an output folder that is locked, not
    ///   writable or holds a recording without ``RecordingConfiguration/force``).
    public init(_ configuration: RecordingConfiguration, input: RecordingInput, stopRequest: RecordingStopRequest? = nil) throws {
        self.configuration = configuration
        let stop = RecordingStopRequest(following: stopRequest)
        self.stopRequest = stop
        if stop.isRequested { throw RecordingInputError.stoppedBeforeStart }
        try Self.checkStatisticsFolder(configuration)
        // One pool for the whole recording: producers take planes, the writers give them back.
        let pool = PixelBufferPool()
        // A live source's folder is claimed before connecting: waiting for a sender into a
        // folder that cannot be used would only fail once the sender came.
        var folder = Self.isLive(input) ? try Self.claim(configuration) : nil
        let built: BuiltSource
        do {
            built = try Self.buildSource(configuration, input: input, pool: pool, stopRequest: stop)
            if stop.isRequested { throw RecordingInputError.stoppedBeforeStart }
        } catch {
            folder?.abandon()
            throw error
        }
        if folder == nil { folder = try Self.claim(configuration) }
        self.folder = folder!
        let muxerConfiguration = Self.muxerConfiguration(configuration, built, output: self.folder, pool: pool)
        self.muxerConfiguration = muxerConfiguration
        muxer = SegmentMuxer(muxerConfiguration)
        source = built.source
        pushChannel = built.pushChannel
        pushAudio = built.pushAudio
        executor = SerialQueueExecutor(label: "segrec.capture")
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// Whether `input` is a live source (a network URL or a V4L2 device).
    private static func isLive(_ input: RecordingInput) -> Bool {
        guard case .pull(let request) = input, let path = request.source.path else { return false }
        return VideoSourceOptions.isLive(path)
    }

    /// The output folder, created when missing and locked. - Throws: ``RecordingError``.
    private static func claim(_ configuration: RecordingConfiguration) throws(RecordingError) -> OutputDirectory {
        try OutputDirectory(preparing: configuration.output, force: configuration.force, forceName: configuration.settingNames.force)
    }

    /// The muxer's configuration: built here, once per recording.
    private static func muxerConfiguration(_ configuration: RecordingConfiguration, _ built: BuiltSource, output: OutputDirectory, pool: PixelBufferPool)
        -> SegmentMuxer.Configuration
    {
        var muxer = SegmentMuxer.Configuration(
            output: output, settings: built.settings, policy: SplitPolicy(configuration.mode), devices: built.devices, rotationDegrees: built.rotationDegrees,
            frameIndexStamp: built.stampsFrameIndex, pixelBufferPool: pool, notes: built.notes, fragmentInterval: configuration.fragmentInterval)
        muxer.recordsSessionEvents = built.recordsSessionEvents
        muxer.captureFrameRates = built.captureFrameRates
        muxer.deviceControls = built.deviceControls
        muxer.audio = built.audio
        muxer.splitOnRotation = configuration.splitOnRotation
        muxer.copiesStream = built.copiesStream
        muxer.copiedAudio = built.copiedAudio
        muxer.maximumSegmentDuration = configuration.maximumSegmentDuration
        muxer.maximumSegmentBytes = configuration.maximumSegmentBytes
        muxer.recordedAt = built.recordedAt ?? Date()
        muxer.location = built.location
        if let framesInFlight = configuration.framesInFlight ?? built.framesInFlight { muxer.framesInFlight = framesInFlight }
        if configuration.fragmentInterval == nil {
            muxer.notes.append("\(configuration.settingNames.noFragments): segments are written whole when they close; a crash loses the open segment")
        }
        // Real time never waits for the encoder: a frame that finds the writer queue full is dropped late.
        muxer.dropsFramesWhenBehind = built.dropsFramesWhenBehind
        if configuration.statisticsURL != nil { muxer.statistics = RecordingStatistics(expectedFrames: built.expectedFrames) }
        return muxer
    }

    private static func checkStatisticsFolder(_ configuration: RecordingConfiguration) throws(RecordingInputError) {
        guard let url = configuration.statisticsURL else { return }
        let folder = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path) else { throw .statisticsFolderMissing(path: url.path, folder: folder.path) }
    }

    /// Records to the end of the input (a pulled source's end; for pushed pictures,
    /// ``finishWriting()``) or a stop request, writes `manifest.json` and releases the
    /// folder's lock. Calling it again returns the same outcome.
    /// - Returns: the manifest.
    /// - Throws: ``RecordingFailure``, carrying the manifest of what was kept.
    public func run() async throws(RecordingFailure) -> RecordingManifest {
        let recording = startedRecording()
        let (stop, channel) = (stopRequest, pushChannel)
        let result = await withTaskCancellationHandler {
            await recording.value
        } onCancel: {
            stop.request()
            channel?.close()
        }
        return try result.get()
    }

    /// Starts recording without waiting for it to end (``run()`` waits); a push input starts
    /// at its first call.
    public func start() { _ = startedRecording() }

    /// The one run of the recording, started now if it was not.
    private func startedRecording() -> Task<Result<RecordingManifest, RecordingFailure>, Never> {
        if let recording { return recording }
        let task = Task(executorPreference: executor) { await self.record() }
        recording = task
        return task
    }

    /// Asks the recording to stop (`AVCaptureSession.stopRunning()`): what was captured or
    /// pushed already is still recorded, the open segment ends at its last frame, and the
    /// manifest says `stopReason: requested`.
    public nonisolated func stop() {
        stopRequest.request()
        // A loop waiting for the app's next push stops waiting.
        pushChannel?.close()
    }

    /// The recording itself, on the recorder's executor.
    private func record() async -> Result<RecordingManifest, RecordingFailure> {
        let sink = eventSink
        muxer.observer = { event, record in if let shown = RecordingEvent.from(event, record: record) { sink.yield(shown) } }
        let stop = stopRequest
        muxer.filesFinished = { stop.markEnded() }
        let result = await Self.record(
            source, into: muxer, statisticsURL: configuration.statisticsURL, isStopRequested: { stop.isRequested },
            progress: configuration.reportsProgress ? { sink.yield(.progress($0)) } : { _ in })
        stop.markEnded()
        switch result {
        case .success(let manifest): sink.yield(.finished(manifest))
        case .failure(let failure):
            pushChannel?.close(refusal: failure.underlying)
            sink.yield(.finished(failure.manifest))
        }
        pushChannel?.close()
        sink.finish()
        return result
    }

    /// The one pull loop: takes every event from `source` (until its end, or a stop
    /// request: then what it already holds), stamps each frame's delivery instant (unless
    /// the source did) and hands it to `muxer`; then finishes the recording (or keeps what
    /// it can after an error), writes the statistics and releases the folder's lock.
    /// Runs on the caller's executor.
    package nonisolated(nonsending) static func record(
        _ source: any CaptureOutputEventSource, into muxer: SegmentMuxer, statisticsURL: URL?, isStopRequested: () -> Bool,
        progress: (RecordingProgress) -> Void = { _ in }
    ) async -> Result<RecordingManifest, RecordingFailure> {
        defer { muxer.configuration.output.lock.release() }
        let manifest: RecordingManifest
        do {
            try await pullEveryEvent(from: source, into: muxer, isStopRequested: isStopRequested, progress: progress)
            manifest = try await muxer.finish(reason: isStopRequested() ? .requested : .endOfStream)
        } catch {
            let manifest = await muxer.abort(error: "\(error)")
            try? writeStatistics(muxer, to: statisticsURL)
            return .failure(RecordingFailure(underlying: error, manifest: manifest, output: muxer.configuration.output))
        }
        // The recording is complete; a statistics file that cannot be written is reported as
        // such, without touching the manifest.
        do { try writeStatistics(muxer, to: statisticsURL) } catch {
            return .failure(RecordingFailure(underlying: error, manifest: manifest, output: muxer.configuration.output))
        }
        return .success(manifest)
    }

    private nonisolated(nonsending) static func pullEveryEvent(
        from source: any CaptureOutputEventSource, into muxer: SegmentMuxer, isStopRequested: () -> Bool, progress: (RecordingProgress) -> Void
    ) async throws {
        var stopping = false
        var received = 0
        var first: MediaTime?
        while true {
            if !stopping, isStopRequested() {
                // Like stopRunning on a capture session: what was captured or received
                // already is still recorded, nothing more is waited for.
                stopping = true
                source.stopRunning()
            }
            guard let event = try await source.next() else { return }
            guard case .frame(var frame) = event else {
                try await muxer.process(event)
                continue
            }
            if frame.deliveredAt == nil { frame.deliveredAt = .now }
            received += 1
            let sessionTime = frame.sessionTime
            let start = first ?? sessionTime
            first = start
            try await muxer.process(.frame(frame))
            let counts = muxer.progressCounts
            let recorded = sessionTime - start
            progress(
                RecordingProgress(
                    framesReceived: received, framesWritten: counts.framesWritten, secondsRecorded: recorded.seconds, segments: counts.segments,
                    timeRecorded: recorded))
        }
    }

    private static func writeStatistics(_ muxer: SegmentMuxer, to url: URL?) throws {
        guard let statistics = muxer.configuration.statistics, let url else { return }
        do { try statistics.write(to: url) } catch { throw RecordingError.io(path: url.path, underlying: "\(error)") }
    }
}

/// What a recorder records: an input it pulls, or the pictures and sound an app pushes.
public enum RecordingInput: Sendable {
    /// The fake camera through a scenario, footage, or raw video on standard input.
    case pull(PullInput)
    /// What an app captures itself (`Recorder.append(_:withPresentationTime:captureAngle:)`).
    case push(PushInput)
}
