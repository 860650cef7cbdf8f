import Foundation

/// What the pipeline reports after each frame.
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

    public var description: String { "\(underlying)" }
}

/// source → muxer: pulls every event from the source, stamps each frame's delivery instant
/// (unless the source did), hands the events to the ``SegmentMuxer`` one at a time, then
/// finishes the recording. On any error the muxer keeps what it can
/// (``SegmentMuxer/abort(error:)``) and a ``RecordingFailure`` carrying the manifest is
/// thrown.
///
/// `run` is `async` and never blocks a thread: it can run in any `Task`, and several
/// pipelines can run at once (`async let`, task groups). Each run pulls its source and
/// drives its muxer on a serial capture queue of its own (a `SerialQueueExecutor` as the
/// task executor preference; the muxer, a default actor, follows it), as
/// an app's sample-buffer delegate runs on its own queue.
public struct RecordingPipeline {
    /// Where frames and completions come from.
    public let source: any CaptureOutputEventSource
    /// Where they go.
    public let muxer: SegmentMuxer
    /// Where ``run(progress:)`` writes the muxer's statistics as JSON lines when it ends
    /// (also after a failure), or nil.
    public var statisticsURL: URL?
    /// Checked before each event: once requested, the source is stopped
    /// (``CaptureOutputEventSource/stopRunning()``), the frames it already captured or
    /// received are still recorded, and the recording ends with `stopReason: requested`
    /// (e.g. on SIGINT).
    public var stopRequest: RecordingStopRequest?

    /// A pipeline from `source` to `muxer`, without statistics file or stop request.
    public init(source: any CaptureOutputEventSource, muxer: SegmentMuxer) {
        self.source = source
        self.muxer = muxer
    }

    /// Runs to the end of the source (or a stop request).
    /// - Parameter progress: called after every frame, on the calling task.
    /// - Returns: the manifest, also written to the output folder.
    /// - Throws: ``RecordingFailure``.
    public func run(progress: ((RecordingProgress) -> Void)? = nil) async throws(RecordingFailure) -> RecordingManifest {
        // Pulling the source (rendering, decoding), pacing and the muxer run on this queue
        // rather than on the cooperative pool, where other work could delay a paced frame.
        let executor = SerialQueueExecutor(label: "segrec.capture")
        return try await withTaskExecutorPreference(executor) { () async throws(RecordingFailure) -> RecordingManifest in
            try await runOnCaptureQueue(progress: progress)
        }
    }

    private func runOnCaptureQueue(progress: ((RecordingProgress) -> Void)?) async throws(RecordingFailure) -> RecordingManifest {
        var received = 0
        var first: MediaTime?
        let manifest: RecordingManifest
        do {
            var stopping = false
            while true {
                if !stopping, stopRequest?.isRequested == true {
                    // Like stopRunning on a capture session: what was captured or received
                    // already is still recorded, nothing more is waited for.
                    stopping = true
                    source.stopRunning()
                }
                guard let event = try await source.next() else { break }
                guard case .frame(var frame) = event else {
                    try await muxer.process(event)
                    continue
                }
                if frame.deliveredAt == nil { frame.deliveredAt = .now }
                received += 1
                let sessionTime = frame.sessionTime
                if first == nil { first = sessionTime }
                try await muxer.process(.frame(frame))
                if let progress, let first {
                    let counts = await muxer.progressCounts
                    let recorded = sessionTime - first
                    progress(
                        RecordingProgress(
                            framesReceived: received, framesWritten: counts.framesWritten, secondsRecorded: recorded.seconds, segments: counts.segments,
                            timeRecorded: recorded))
                }
            }
            manifest = try await muxer.finish(reason: stopRequest?.isRequested == true ? .requested : .endOfStream)
        } catch {
            let manifest = await muxer.abort(error: "\(error)")
            try? writeStatistics()
            throw RecordingFailure(underlying: error, manifest: manifest)
        }
        // The recording is complete; a --stats file that cannot be written is reported as
        // such, without touching the manifest.
        do { try writeStatistics() } catch { throw RecordingFailure(underlying: error, manifest: manifest) }
        return manifest
    }

    private func writeStatistics() throws {
        guard let statistics = muxer.configuration.statistics, let statisticsURL else { return }
        do { try statistics.write(to: statisticsURL) } catch { throw RecordingError.io(path: statisticsURL.path, underlying: "\(error)") }
    }
}
