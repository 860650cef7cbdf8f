import Foundation

/// Anything that delivers a `VideoDataOutput`'s events in order: the capture session over
/// the fake camera, or a decoded file passed through.
public protocol CaptureOutputEventSource: AnyObject {
    /// The next frame or completion; nil at the end of the stream.
    /// - Throws: source errors (e.g. a corrupt file); frames delivered before stay recorded.
    func next() throws -> CaptureOutputEvent?
}

/// What the pipeline reports after each frame.
public struct RecordingProgress: Sendable {
    /// Frames the source delivered so far.
    public var framesReceived: Int
    /// Frames written into segments so far.
    public var framesWritten: Int
    /// Session time covered so far, in seconds (first frame to the latest frame).
    public var secondsRecorded: Double
    /// Segments opened so far.
    public var segments: Int
}

/// A recording that failed part-way: the error, and the manifest of what was kept.
public struct RecordingFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let underlying: any Error
    /// The manifest written after salvaging closed (and, where possible, the open) segments.
    public let manifest: RecordingManifest

    public var description: String { "\(underlying)" }
}

/// source → recorder: pulls every event from the source and hands it to the recorder, then
/// finishes the recording. On any error the recorder keeps what it can (``Recorder/abort(error:)``)
/// and a ``RecordingFailure`` carrying the manifest is thrown.
public struct RecordingPipeline {
    /// Where frames and completions come from.
    public let source: any CaptureOutputEventSource
    /// Where they go.
    public let recorder: any Recorder
    /// Per-frame and per-switch timings to collect (`--stats`), or nil.
    public var statistics: RecordingStatistics?
    /// Where ``run(progress:)`` writes ``statistics`` as JSON lines when it ends (also after
    /// a failure), or nil.
    public var statisticsURL: URL?
    /// Checked before each event: once requested, the recording ends with
    /// `stopReason: requested` (e.g. on SIGINT), keeping every frame already received.
    public var stopRequest: RecordingStopRequest?

    /// A pipeline from `source` to `recorder`, without statistics or stop request.
    public init(source: any CaptureOutputEventSource, recorder: any Recorder) {
        self.source = source
        self.recorder = recorder
    }

    /// Runs to the end of the source.
    /// - Parameter progress: called after every frame (from the calling thread).
    /// - Returns: the manifest, also written to the output folder.
    /// - Throws: ``RecordingFailure``.
    public func run(progress: ((RecordingProgress) -> Void)? = nil) throws(RecordingFailure) -> RecordingManifest {
        var received = 0
        var first: MediaTime?
        var latest: MediaTime?
        let statistics = self.statistics
        if let statistics { (recorder as? any StatisticsCollecting)?.statistics = statistics }
        let realtime = source as? RealtimeEventSource
        let manifest: RecordingManifest
        do {
            while stopRequest?.isRequested != true, let event = try source.next() {
                if let statistics {
                    statistics.frameDelivered(at: realtime?.lastDeliveryNanoseconds ?? MonotonicClock.nanoseconds())
                }
                try recorder.process(event)
                guard case .frame(let frame) = event else { continue }
                received += 1
                if first == nil { first = frame.sessionTime }
                latest = frame.sessionTime
                if let progress, let first, let latest {
                    let manifest = (recorder as? any ManifestProviding)?.currentManifest
                    progress(RecordingProgress(
                        framesReceived: received,
                        framesWritten: manifest?.frames.written ?? received,
                        secondsRecorded: (latest - first).seconds,
                        segments: (manifest?.segments.count ?? 0) + (recorder.hasStopped ? 0 : 1)))
                }
            }
            manifest = try recorder.finish(reason: stopRequest?.isRequested == true ? .requested : .endOfStream)
        } catch {
            let manifest = recorder.abort(error: "\(error)")
            try? writeStatistics()
            throw RecordingFailure(underlying: error, manifest: manifest)
        }
        // The recording is complete; a --stats file that cannot be written is reported as
        // such, without touching the manifest.
        do { try writeStatistics() } catch { throw RecordingFailure(underlying: error, manifest: manifest) }
        return manifest
    }

    private func writeStatistics() throws {
        guard let statistics, let statisticsURL else { return }
        do {
            try statistics.write(to: statisticsURL)
        } catch {
            throw RecordingError.io(path: statisticsURL.path, underlying: "\(error)")
        }
    }
}

/// Recorders that can report timings into a ``RecordingStatistics``.
protocol StatisticsCollecting: AnyObject {
    var statistics: RecordingStatistics? { get set }
}

extension SegmentingRecorder: StatisticsCollecting {
    /// Timings collected while recording (`--stats`), or nil.
    public var statistics: RecordingStatistics? {
        get { files.statistics }
        set { files.statistics = newValue }
    }
}

extension MovieFileRecorder: StatisticsCollecting {
    /// Timings collected while recording (`--stats`), or nil.
    public var statistics: RecordingStatistics? {
        get { files.statistics }
        set { files.statistics = newValue }
    }
}

/// Recorders that expose their manifest as it stands, for progress reporting.
public protocol ManifestProviding {
    var currentManifest: RecordingManifest { get }
}

extension SegmentingRecorder: ManifestProviding {
    public var currentManifest: RecordingManifest { manifest }
}

extension MovieFileRecorder: ManifestProviding {
    public var currentManifest: RecordingManifest { manifest }
}

extension CaptureSession: CaptureOutputEventSource {}
