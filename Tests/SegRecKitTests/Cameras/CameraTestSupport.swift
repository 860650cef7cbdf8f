import Foundation

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Scenarios and helpers for the iPhone Duo tests. Expected values are worked out
/// independently with Python `fractions` (the arithmetic is in each test's comment), from
/// DESIGN.md's formulas:
///   to_dev(h_ns)  = round_half_away(((h_ns/1e9) + off_ns/1e9) · (1 + ppb/1e9) · ts)
///   to_host(t)    = round_half_away(((t/ts) / (1 + ppb/1e9) − off_ns/1e9) · 1e9)
///   D(i)          = to_dev(start) + round_half_away(i · ts / fps),  T(i) = to_host(D(i))
/// Clocks: outer ts 24_000_000, offset 12.5 s, +50 ppm, 120 fps; inner ts 90_000,
/// offset −3.25 s, −20 ppm, 60 fps (two timescales, offsets of both signs, drifts of both signs).
enum DuoFixtures {
    static let ns: Int32 = 1_000_000_000

    /// outer 1280 @ 120 + inner 1280 @ 60, closed → open at +0.4 s (gap 0.25 s), latency 3,
    /// completions 12 frames late; `extraEvents` go before the posture event in file order.
    static func individual(start: String, events: String, duration: String = "0.8", delay: Int = 12) -> String {
        """
        {"cameras": [
          {"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 120,
           "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
          {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 60,
           "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}},
          {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": 30,
           "clock": {"timescale": 1000000000, "offsetSeconds": 0.5, "driftPPM": 0}}],
         "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "9x16",
         "changeLatencyFrames": 3, "completionDelayFrames": \(delay), "switchGapSeconds": 0.25,
         "sessionStartSeconds": \(start), "durationSeconds": \(duration),
         "events": [\(events)]}
        """
    }

    /// `json` (an ``individual(start:events:duration:delay:)`` scenario) with the Virtual
    /// Front Camera described by `virtual` (the inside of `"virtual": {…}`) instead: the
    /// cameras lose their `fps`, which virtual mode refuses (the virtual camera's is the rate).
    static func virtualized(_ json: String, virtual: String) -> String {
        json.replacingOccurrences(of: #""fps": [0-9]+,\s*"#, with: "", options: .regularExpression).replacingOccurrences(
            of: #""frontCamera": "individual","#, with: #""frontCamera": "virtual", "virtual": {"# + virtual + "},")
    }

    static func scenario(_ json: String, file: String = "duo-test.json") throws(ScenarioError) -> Scenario { try Scenario.decode(Data(json.utf8), file: file) }

    /// Every event the session delivers.
    static func run(_ session: CaptureSession) throws -> [CaptureOutputEvent] {
        var out: [CaptureOutputEvent] = []
        while let event = try session.next() { out.append(event) }
        return out
    }

    /// Every frame, with the stream format announced before it.
    static func frames(_ events: [CaptureOutputEvent]) -> [StreamFrame] {
        var format: VideoStreamFormat?
        return events.compactMap {
            switch $0 {
            case .formatChanged(let f):
                format = f
                return nil
            case .frame(let f): return StreamFrame(frame: f, format: format)
            default: return nil
            }
        }
    }

    /// The manifest records of the session's changes of `kind` (as the recorder maps them).
    static func records(_ events: [CaptureOutputEvent], _ kind: SessionEventRecord.Kind) -> [SessionEventRecord] {
        events.compactMap { if case .sessionEvent(let c) = $0, SessionEventRecord(c).kind == kind { SessionEventRecord(c) } else { nil } }
    }

    /// Position in `events` of the frame with delivery index `index`.
    static func position(ofFrame index: Int64, in events: [CaptureOutputEvent]) -> Int? {
        events.firstIndex { if case .frame(let f) = $0 { f.index == index } else { false } }
    }

    static func t(_ value: Int64, _ timescale: Int32 = ns) -> MediaTime { MediaTime(value: value, timescale: timescale) }
}

/// A delivered frame with the stream format it arrived in; reads through to the frame.
@dynamicMemberLookup struct StreamFrame {
    let frame: VideoFrame
    let format: VideoStreamFormat?

    subscript<T>(dynamicMember keyPath: KeyPath<VideoFrame, T>) -> T { frame[keyPath: keyPath] }
    /// The streaming camera (several-camera sessions).
    var camera: VideoStreamFormat.Camera? { format?.camera }
    /// The capture angle.
    var rotationAngle: VideoRotationAngle? { format?.rotationAngle }
    /// The camera that made the picture: the constituent, or the streaming camera.
    var producer: String? { camera.map { $0.constituent ?? $0.id } }
    /// The producing camera's position as the stamp's rows 16–31 carry it (stamped frames only).
    var stampedCameraPosition: UInt32? { FrameIndexStamp.read(frame.pixelBuffer, firstRow: FrameIndexStamp.cameraRow) }
}
