import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Helpers for the orientation and format tests (DESIGN.md "Orientation, formats and stabilization").
/// Expected values are worked out independently with Python `fractions` (arithmetic in each
/// test's comment), from DESIGN.md's formulas (see ``DuoFixtures`` for `to_dev`/`to_host`);
/// a format switch at host time `s` anchors the new grid at `D0' = ceil(to_dev(s + gap))`.
enum OrientationFixtures {
    static func scenario(_ json: String) throws(ScenarioError) -> Scenario { try Scenario.decode(Data(json.utf8), file: "orientation-test.json") }

    /// Every event a one-camera session delivers.
    static func run(_ session: CaptureSession) throws -> [CaptureOutputEvent] {
        var out: [CaptureOutputEvent] = []
        while let event = try session.next() { out.append(event) }
        return out
    }

    /// Records a one-camera scenario through the muxer into a new folder.
    static func record(_ scenario: Scenario, mode: RecordingMode = .segment, splitOnRotation: Bool = false, frameSource: (any SensorImageSource)? = nil)
        async throws -> (URL, RecordingManifest)
    {
        let pool = PixelBufferPool()
        let session = try CaptureSession(scenario: scenario, frameSource: frameSource, stampFrameIndex: true, pixelBufferPool: pool)
        return try await record(
            session, clocks: [session.device.clock], controls: scenario.deviceControls, mode: mode, splitOnRotation: splitOnRotation,
            frameRate: scenario.device.fps, pool: pool)
    }

    /// Records any source through the muxer into a new folder.
    static func record(
        _ source: any CaptureOutputEventSource, clocks: [MediaClock], controls: [String: DeviceControlInfo] = [:], mode: RecordingMode = .segment,
        splitOnRotation: Bool = false, frameRate: FrameRate, recordsSessionEvents: Bool = false, pool: PixelBufferPool
    ) async throws -> (URL, RecordingManifest) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var settings = RecorderTestSupport.settings
        settings.frameRate = frameRate
        var configuration = SegmentMuxer.Configuration(
            output: try OutputDirectory(preparing: dir, force: false), settings: settings, policy: SplitPolicy(mode), devices: clocks, frameIndexStamp: true,
            pixelBufferPool: pool)
        configuration.splitOnRotation = splitOnRotation
        configuration.deviceControls = controls
        configuration.recordsSessionEvents = recordsSessionEvents
        let manifest = try await RecordingPipeline(source: source, muxer: SegmentMuxer(configuration)).run()
        return (dir, manifest)
    }

    /// ffprobe's `rotation` side data of `file` (nil when there is none); `Int.min` when
    /// ffprobe is not installed.
    static func ffprobeRotation(_ file: URL) throws -> Int? {
        guard let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "stream_side_data=rotation"], file: file) else {
            return Int.min
        }
        let stream = (json["streams"] as? [[String: Any]])?.first
        let sideData = stream?["side_data_list"] as? [[String: Any]]
        return sideData?.compactMap { $0["rotation"] as? Int }.first
    }

    /// ffprobe's `r_frame_rate` of `file` ("30/1"), or nil without ffprobe.
    static func ffprobeRate(_ file: URL) throws -> String? {
        guard let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "stream=r_frame_rate"], file: file) else { return nil }
        return (json["streams"] as? [[String: Any]])?.first?["r_frame_rate"] as? String
    }

    static func frames(_ events: [CaptureOutputEvent]) -> [StreamFrame] { DuoFixtures.frames(events) }
    static func records(_ events: [CaptureOutputEvent], _ kind: SessionEventRecord.Kind) -> [SessionEventRecord] { DuoFixtures.records(events, kind) }
    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }
}
