import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// SegmentBoundaryRule is a pure function: each row gives it an open segment and a frame (with
/// the stream format it arrives in) by hand and checks the exact decision (no files). The open segment is 180x320 at 30 fps,
/// its last frame at 1 s, ending at 1.033333333 s; the next frame (31) comes at 1.033333333 s;
/// a frame may last at most 2 s.
@Suite("SegmentBoundaryRule (pure)", .tags(.recording)) struct SegmentBoundaryRuleTests {
    typealias Rule = SegmentBoundaryRule

    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }
    static let tall = VideoDimensions(width: 180, height: 320), wide = VideoDimensions(width: 320, height: 180)
    static func rate(_ fps: Int64) -> FrameRate { try! FrameRate(fps) }
    static func format(_ name: String, _ fps: Int64, generation: Int, camera: String = "outer") -> VideoStreamFormat {
        VideoStreamFormat(
            dimensions: tall, frameRate: rate(fps), camera: VideoStreamFormat.Camera(id: camera, facing: .user), rotationAngle: .degrees0, activeFormat: name,
            formatGeneration: generation)
    }

    /// A frame (frame 31 of `dims` at `t` ns, lasting 1/30 s) and the stream format it
    /// arrives in. `Sendable` (test arguments): it keeps the frame's parts, not the frame.
    struct Arrival: Sendable {
        let dims: VideoDimensions
        let t: Int64
        let format: VideoStreamFormat?
        var frame: VideoFrame {
            VideoFrame(
                pixelBuffer: PixelBuffer(width: dims.width, height: dims.height), index: 31, deviceTime: ns(t), sessionTime: ns(t), duration: ns(33_333_333))
        }
    }

    /// Frame 31 at `t` ns (1.033333333 s unless given), in `format`, or in a stream format
    /// naming `camera` and `rotation` if either is given, or in none (footage).
    static func frame(
        _ dims: VideoDimensions = tall, at t: Int64 = 1_033_333_333, camera: String? = nil, rotation: VideoRotationAngle? = nil,
        format: VideoStreamFormat? = nil
    ) -> Arrival {
        var stream = format
        if stream == nil, camera != nil || rotation != nil {
            stream = VideoStreamFormat(
                dimensions: dims, frameRate: rate(30), camera: camera.map { VideoStreamFormat.Camera(id: $0, facing: .user) },
                rotationAngle: rotation ?? .degrees0, activeFormat: "1920")
        }
        return Arrival(dims: dims, t: t, format: stream)
    }

    /// The open segment `segment-000.mp4`, started at 0.5 s (`start`, ns) with `encodedBytes`
    /// of packets so far against a `maximumBytes` limit, if given.
    static func segment(
        camera: String? = nil, rotation: VideoRotationAngle? = nil, format: VideoStreamFormat? = nil, lastFrameEnd: Int64 = 1_033_333_333,
        start: Int64 = 500_000_000, encodedBytes: Int64 = 0, maximumBytes: Int64? = nil
    ) -> Rule.OpenSegment {
        Rule.OpenSegment(
            file: "segment-000.mp4", dimensions: tall, camera: camera, rotation: rotation, frameRate: rate(30), lastFormat: format,
            lastSessionTime: ns(1_000_000_000), lastFrameEnd: ns(lastFrameEnd), sessionStart: ns(start), encodedBytes: encodedBytes, maximumBytes: maximumBytes)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        var policy = SplitPolicy.split
        var splitOnRotation = false
        var open: Rule.OpenSegment? = SegmentBoundaryRuleTests.segment()
        var lastWritten: MediaTime? = SegmentBoundaryRuleTests.ns(1_000_000_000)
        var stopped = false
        var segmentsOpened = 1
        /// `--max-segment-duration` (ns), or nil.
        var maximumDuration: Int64? = nil
        let frame: Arrival
        let expected: Rule.Decision
        var testDescription: String { name }
    }

    static let stopAt = "recording stopped at session time 1033333333/1000000000 (1.033333333 s): frame 31"
    static let next = ns(1_033_333_333)

    static let rows: [Row] = [
        Row(name: "first frame", open: nil, lastWritten: nil, segmentsOpened: 0, frame: frame(), expected: .cut(.recordingStarted, closingAt: nil)),
        Row(name: "no segment open after the first", open: nil, segmentsOpened: 1, frame: frame(), expected: .cut(.dimensionsChanged, closingAt: nil)),
        Row(name: "same size", frame: frame(), expected: .append),
        Row(name: "same size, stop-on-change", policy: .stopOnFirstChange, frame: frame(), expected: .append),
        Row(name: "new size", frame: frame(wide), expected: .cut(.dimensionsChanged, closingAt: next)),
        Row(
            name: "new size, stop-on-change", policy: .stopOnFirstChange, frame: frame(wide),
            expected: .stop(.dimensionsChanged, note: "\(stopAt) is 320x180, the movie file is 180x320")),
        Row(name: "after a stop", policy: .stopOnFirstChange, stopped: true, frame: frame(wide), expected: .drop(.recordingStopped)),
        Row(
            name: "same session time as the last frame written", frame: frame(at: 1_000_000_000),
            expected: .drop(
                .nonMonotonicTimestamp,
                warning: "frame 31 dropped: session time 1000000000/1000000000 (1.0 s) does not come after 1000000000/1000000000 (1.0 s)")),
        Row(
            name: "earlier than the last frame written, in another segment", open: nil, lastWritten: ns(1_100_000_000), frame: frame(wide),
            expected: .drop(
                .nonMonotonicTimestamp,
                warning: "frame 31 dropped: session time 1033333333/1000000000 (1.033333333 s) does not come after 1100000000/1000000000 (1.1 s)")),
        Row(name: "gap of exactly the longest frame", frame: frame(at: 3_000_000_000), expected: .append),
        Row(
            name: "gap longer than a frame can last, stop-on-change too", policy: .stopOnFirstChange, frame: frame(wide, at: 4_000_000_000),
            expected: .cut(
                .timestampGap, closingAt: next,
                warning:
                    "no frame for 3000000000/1000000000 (3.0 s) before frame 31, longer than a segment file can hold one frame (2000000000/1000000000 (2.0 s)): segment-000.mp4 ends after its last frame and the next segment starts at frame 31 (startReason timestampGap)"
            )),
        Row(
            name: "gap after a frame claiming to last longer than it can", open: segment(lastFrameEnd: 5_000_000_000), frame: frame(at: 4_000_000_000),
            expected: .cut(
                .timestampGap, closingAt: ns(3_000_000_000),
                warning:
                    "no frame for 3000000000/1000000000 (3.0 s) before frame 31, longer than a segment file can hold one frame (2000000000/1000000000 (2.0 s)): segment-000.mp4 ends after its last frame and the next segment starts at frame 31 (startReason timestampGap)"
            )),
        Row(
            name: "rotation change, split on rotation", splitOnRotation: true, open: segment(rotation: .degrees0), frame: frame(rotation: .degrees90),
            expected: .cut(.rotationChanged, closingAt: next)),
        Row(name: "rotation change without split on rotation", open: segment(rotation: .degrees0), frame: frame(rotation: .degrees90), expected: .append),
        Row(
            name: "rotation change, split on rotation, stop-on-change", policy: .stopOnFirstChange, splitOnRotation: true, open: segment(rotation: .degrees0),
            frame: frame(rotation: .degrees90), expected: .append),
        Row(
            name: "rotation and size change, split on rotation", splitOnRotation: true, open: segment(rotation: .degrees0),
            frame: frame(wide, rotation: .degrees90), expected: .cut(.dimensionsChanged, closingAt: next)),
        Row(
            name: "same rotation, split on rotation", splitOnRotation: true, open: segment(rotation: .degrees90), frame: frame(rotation: .degrees90),
            expected: .append),
        Row(name: "camera change", open: segment(camera: "outer"), frame: frame(camera: "inner"), expected: .cut(.cameraSwitched, closingAt: next)),
        Row(
            name: "camera and size change", open: segment(camera: "outer"), frame: frame(wide, camera: "inner"),
            expected: .cut(.cameraSwitched, closingAt: next)),
        Row(
            name: "camera change, stop-on-change", policy: .stopOnFirstChange, open: segment(camera: "outer"), frame: frame(camera: "inner"),
            expected: .stop(.cameraSwitched, note: "\(stopAt) comes from camera inner, the movie file from outer")),
        Row(name: "same camera", open: segment(camera: "outer"), frame: frame(camera: "outer"), expected: .append),
        Row(name: "a camera after footage", frame: frame(camera: "inner"), expected: .append),
        Row(
            name: "format switch to another rate", open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(format: format("3840", 60, generation: 1)), expected: .cut(.formatChanged, closingAt: next)),
        Row(
            name: "format switch to another size", open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(wide, format: format("1920", 30, generation: 1)), expected: .cut(.formatChanged, closingAt: next)),
        Row(
            name: "format switch, stop-on-change", policy: .stopOnFirstChange, open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(format: format("3840", 60, generation: 1)),
            expected: .stop(.formatChanged, note: "\(stopAt) comes from format 3840 at 60 fps (180x320), the movie file is 180x320 at 30 fps")),
        Row(
            name: "format switch keeping size and rate", open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(format: format("3840", 30, generation: 1)), expected: .append),
        Row(
            name: "another rate without a format switch", open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(format: format("1920", 60, generation: 0)), expected: .append),
        Row(
            name: "new size without a format switch", open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(wide, format: format("1920", 30, generation: 0)), expected: .cut(.dimensionsChanged, closingAt: next)),
        Row(
            name: "another camera's format generation", open: segment(format: format("1920", 30, generation: 0)),
            frame: frame(format: format("1920", 60, generation: 1, camera: "inner")), expected: .append),
        // --max-segment-duration: the segment started at 0.5 s; frame 31 at 1.033333333 s.
        Row(name: "duration limit not reached", maximumDuration: 533_333_334, frame: frame(), expected: .append),
        Row(name: "duration limit reached exactly", maximumDuration: 533_333_333, frame: frame(), expected: .cut(.maxSegmentDuration, closingAt: next)),
        Row(name: "duration limit passed", maximumDuration: 100_000_000, frame: frame(), expected: .cut(.maxSegmentDuration, closingAt: next)),
        Row(
            name: "duration limit and a new size: the change wins", maximumDuration: 100_000_000, frame: frame(wide),
            expected: .cut(.dimensionsChanged, closingAt: next)),
        Row(
            name: "duration limit, stop-on-change: still a split", policy: .stopOnFirstChange, maximumDuration: 100_000_000, frame: frame(),
            expected: .cut(.maxSegmentDuration, closingAt: next)),
        // --max-segment-bytes: what the encoder put out before frame 31.
        Row(name: "byte limit not reached", open: segment(encodedBytes: 999, maximumBytes: 1000), frame: frame(), expected: .append),
        Row(
            name: "byte limit reached exactly", open: segment(encodedBytes: 1000, maximumBytes: 1000), frame: frame(),
            expected: .cut(.maxSegmentBytes, closingAt: next)),
        Row(
            name: "byte limit and a camera switch: the switch wins", open: segment(camera: "outer", encodedBytes: 5000, maximumBytes: 1000),
            frame: frame(camera: "inner"), expected: .cut(.cameraSwitched, closingAt: next))
    ]

    @Test(arguments: rows) func decision(_ row: Row) throws {
        let rule = Rule(
            policy: row.policy, splitOnRotation: row.splitOnRotation, maximumFrameDuration: Self.ns(2_000_000_000),
            maximumSegmentDuration: row.maximumDuration.map(Self.ns))
        let decision = try rule.decision(
            for: row.frame.frame, in: row.frame.format, open: row.open, lastWritten: row.lastWritten, stopped: row.stopped, segmentsOpened: row.segmentsOpened)
        #expect(decision == row.expected)
    }
}
