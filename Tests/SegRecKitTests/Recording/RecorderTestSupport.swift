import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Builds the events a VideoDataOutput would deliver, from exact frame timing, so recorder
/// tests control every order of frames and completions.
struct EventScript {
    static let front = try! MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPartsPerBillion: 50_000)
    let timing = try! FrameTiming(deviceClock: front, frameRate: try! FrameRate(30), sessionStart: MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
    /// Square side of the small test sensor (keeps encoding fast).
    static let side = 320

    static func dims(_ ratio: DynamicAspectRatio) -> VideoDimensions { ratio.dimensions(squareSide: side) }

    func sessionTime(_ i: Int64) -> MediaTime { try! timing.sessionTime(ofFrame: i) }
    func deviceTime(_ i: Int64) -> MediaTime { try! timing.deviceTime(ofFrame: i) }

    /// Frame `i` with the given ratio's dimensions, stamped with `i`.
    func frame(_ i: Int64, _ ratio: DynamicAspectRatio) -> CaptureOutputEvent {
        let d = Self.dims(ratio)
        return .frame(
            VideoFrame(
                pixelBuffer: MediaTestSupport.stampedFrame(index: Int(i), width: d.width, height: d.height), index: i, deviceTime: deviceTime(i),
                sessionTime: sessionTime(i), duration: sessionTime(i + 1) - sessionTime(i)))
    }

    /// The completion of a change to `ratio` announced as taking effect on frame `k`.
    func change(_ ratio: DynamicAspectRatio, atFrame k: Int64) -> CaptureOutputEvent {
        .dynamicAspectRatioChangeCompleted(
            DynamicAspectRatioChange(
                aspectRatio: ratio, dimensions: Self.dims(ratio), deviceTime: deviceTime(k),
                sessionTime: try! convertTime(deviceTime(k), from: Self.front, to: .host)))
    }

    /// Frames `0..<count` whose ratio follows `changes` (frame index → new ratio), with each
    /// completion placed `completionDelay` frames after (or, negative, before) its frame.
    func events(count: Int64, initial: DynamicAspectRatio, changes: [(Int64, DynamicAspectRatio)], completionDelay: Int64) -> [CaptureOutputEvent] {
        var out: [CaptureOutputEvent] = []
        var ratio = initial
        for i in 0..<count {
            for (k, r) in changes where k + completionDelay == i { out.append(change(r, atFrame: k)) }
            if let c = changes.first(where: { $0.0 == i }) { ratio = c.1 }
            out.append(frame(i, ratio))
        }
        for (k, r) in changes where k + completionDelay >= count { out.append(change(r, atFrame: k)) }
        return out
    }
}

/// A source over a fixed list of events.
final class ScriptedSource: CaptureOutputEventSource {
    private var events: [CaptureOutputEvent]
    init(_ events: [CaptureOutputEvent]) { self.events = events.reversed() }
    func next() throws -> sending CaptureOutputEvent? { events.popLast()?.detached() }
    /// A camera stopped captures nothing more: the rest of the script is never delivered.
    func stopRunning() { events.removeAll() }
}

enum RecorderTestSupport {
    static let settings = EncoderSettings(codec: .h264, preset: "ultrafast", crf: 30, keyframeInterval: 30)

    /// A muxer writing into a new temporary folder `…/out` (returned), with the test
    /// settings, the `front` clock and stamped frames.
    static func makeMuxer(mode: RecordingMode, statistics: RecordingStatistics? = nil, clock: MediaClock = EventScript.front) throws -> (URL, SegmentMuxer) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let output = try OutputDirectory(preparing: dir, force: false)
        return (
            dir,
            SegmentMuxer(
                SegmentMuxer.Configuration(
                    output: output, settings: settings, policy: SplitPolicy(mode), devices: [clock], frameIndexStamp: true, statistics: statistics))
        )
    }

    /// Records `events` through a pipeline into a new folder.
    static func record(_ events: [CaptureOutputEvent], mode: RecordingMode = .segment, clock: MediaClock = EventScript.front) async throws -> (
        URL, RecordingManifest
    ) {
        let (dir, muxer) = try makeMuxer(mode: mode, clock: clock)
        let manifest = try await RecordingPipeline(source: ScriptedSource(events), muxer: muxer).run()
        return (dir, manifest)
    }

    /// Every frame's stamped index in `file`, decoded by libavcodec.
    static func stampedIndices(_ file: URL) throws -> [Int64] {
        var indices: [Int64] = []
        try MediaFileReader(url: file).decodeFrames { frame in
            indices.append(
                Int64(FrameIndexStamp.read(luma: frame.luma, width: frame.width, height: frame.height, bytesPerRow: frame.lumaBytesPerRow) ?? UInt32.max))
        }
        return indices
    }

    /// ffprobe's view of a file: (width, height, decoded frame count), or nil without ffprobe.
    static func probe(_ file: URL) throws -> (Int, Int, Int)? {
        guard
            let json = try MediaTestSupport.ffprobeJSON(
                ["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames"], file: file),
            let stream = (json["streams"] as? [[String: Any]])?.first
        else { return nil }
        return (stream["width"] as? Int ?? -1, stream["height"] as? Int ?? -1, Int(stream["nb_read_frames"] as? String ?? "") ?? -1)
    }
}

/// A source and a muxer run by the ``Recorder``'s own loop (``Recorder/record(_:into:statisticsURL:isStopRequested:progress:)``):
/// how the tests drive a muxer configured by hand.
struct RecordingPipeline {
    let source: any CaptureOutputEventSource
    let muxer: SegmentMuxer
    var statisticsURL: URL?
    var stopRequest: RecordingStopRequest?

    init(source: any CaptureOutputEventSource, muxer: SegmentMuxer) {
        self.source = source
        self.muxer = muxer
    }

    func run(progress: (RecordingProgress) -> Void = { _ in }) async throws(RecordingFailure) -> RecordingManifest {
        let stop = stopRequest
        return try await Recorder.record(source, into: muxer, statisticsURL: statisticsURL, isStopRequested: { stop?.isRequested ?? false }, progress: progress)
            .get()
    }
}

extension SegmentMuxer {
    /// ``finish(reason:)`` then the folder's lock released, as the ``Recorder`` does: for
    /// tests that drive a muxer by hand.
    nonisolated(nonsending) func finishReleasingLock(reason: StopReason = .endOfStream) async throws -> RecordingManifest {
        defer { configuration.output.lock.release() }
        return try await finish(reason: reason)
    }

    /// ``abort(error:)`` then the folder's lock released, as the ``Recorder`` does.
    nonisolated(nonsending) func abortReleasingLock(error message: String) async -> RecordingManifest {
        defer { configuration.output.lock.release() }
        return await abort(error: message)
    }
}
