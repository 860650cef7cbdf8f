import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// DESIGN.md's completion rule, end to end: the fake camera (``CaptureSession``) makes the
/// requests, the ``SegmentMuxer`` writes real files, and the change records, boundaries and
/// stamped frame indices are read back. The plain camera captures frame i at
/// D(i) = 24_000_000 + 800_000·i ticks = (1 + i/30) s on the host clock.
@Suite("Completion rule: timed, superseded and missing completions", .tags(.recording)) struct CompletionRuleTests {
    typealias S = CaptureTestSupport

    /// D(i) of the plain camera, at 24 MHz.
    static func deviceTime(_ i: Int64) -> MediaTime { MediaTime(value: 24_000_000 + 800_000 * i, timescale: 24_000_000) }

    /// Records `session` (1280-format frames, synthetic and stamped) in segment mode.
    static func record(_ session: CaptureSession, mode: RecordingMode = .segment) async throws -> (URL, RecordingManifest) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let muxer = SegmentMuxer(
            SegmentMuxer.Configuration(
                output: try OutputDirectory(preparing: dir, force: false), settings: RecorderTestSupport.settings, policy: SplitPolicy(mode),
                devices: [session.device.clock], frameIndexStamp: true))
        return (dir, try await RecordingPipeline(source: session, muxer: muxer).run())
    }

    /// A one-second session of the plain camera (30 frames) with `events` at host seconds.
    static func session(completionDelay: Int64, _ requests: [(Double, DynamicAspectRatio)], initial: DynamicAspectRatio = .ratio9x16) throws -> CaptureSession {
        try CaptureSession(
            device: try S.plainDevice(latency: 2, completionDelay: completionDelay, initial: initial),
            output: VideoDataOutput(frameSource: SyntheticSensor(), stampFrameIndex: true), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
            events: requests.map { .init(hostTime: S.ns(Int64(($0.0 * 1e9).rounded())), action: .setDynamicAspectRatio($0.1)) })
    }

    /// Every file holds exactly its frames (stamps read back by libavcodec), the files tile
    /// the timeline, ffprobe agrees on size and count, and `verify` passes.
    static func expectFiles(_ dir: URL, _ manifest: RecordingManifest, frames: [[Int64]]) throws {
        #expect(manifest.segments.count == frames.count)
        for (segment, expected) in zip(manifest.segments, frames) {
            let url = dir.appendingPathComponent(segment.file)
            #expect(try RecorderTestSupport.stampedIndices(url) == expected)
            if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == segment.width && h == segment.height && n == expected.count) }
        }
        for (a, b) in zip(manifest.segments, manifest.segments.dropFirst()) { #expect(a.sessionEnd == b.sessionStart) }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// A request for 16x9 at 1.3 s (frame 9's time) takes effect on frame 11 (two frame
    /// periods of latency). Its completion arrives 3 frames before (−3), just before (0) or
    /// 4 frames after (4) frame 11; in every order the second segment starts at frame 11
    /// with the announced D(11), announced, and nothing warns.
    @Test(arguments: [Int64(-3), 0, 4]) func allThreeArrivalOrders(completionDelay: Int64) async throws {
        let (dir, manifest) = try await Self.record(try Self.session(completionDelay: completionDelay, [(1.3, .ratio16x9)]))
        #expect(manifest.segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x720"])
        #expect(manifest.segments.map(\.frameCount) == [11, 19])
        let change = try #require(manifest.segments[1].change)
        #expect(change == ChangeRecord(deviceTime: Self.deviceTime(11), sessionTime: S.ns(1_366_666_667), aspectRatio: "16x9"))
        #expect(manifest.segments[1].sessionStart == S.ns(1_366_666_667))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        try Self.expectFiles(dir, manifest, frames: [Array(0...10), Array(11...29)])
    }

    /// Two requests at the same instant both reach frame 11: the later (1x1) wins it and the
    /// earlier (16x9) completes `superseded`. One change, to 1x1 at D(11); no 16x9 frame,
    /// no warning — with the superseded completion arriving late (4 frames) or early (−2).
    @Test(arguments: [Int64(4), -2]) func requestSupersededOnItsOwnFrame(completionDelay: Int64) async throws {
        let requests: [(Double, DynamicAspectRatio)] = [(1.3, .ratio16x9), (1.3, .ratio1x1)]
        let (tokens, _, _) = try S.tokens(try Self.session(completionDelay: completionDelay, requests))
        #expect(tokens.filter { $0.hasPrefix("S") || $0.hasPrefix("C") } == ["S16x9", "C1x1"])
        let (dir, manifest) = try await Self.record(try Self.session(completionDelay: completionDelay, requests))
        #expect(manifest.segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x1280"])
        #expect(manifest.segments[1].change == ChangeRecord(deviceTime: Self.deviceTime(11), sessionTime: S.ns(1_366_666_667), aspectRatio: "1x1"))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        try Self.expectFiles(dir, manifest, frames: [Array(0...10), Array(11...29)])
    }

    /// A request for the ratio already active (9x16), overridden on the same frame by 16x9:
    /// the first completes `superseded`, the change is 16x9 at D(11). And the other way
    /// round (16x9, then back to the active 9x16 at the same instant): 16x9 never reaches a
    /// frame, 9x16 completes with a time but changes nothing: one segment, no warning.
    @Test func activeRatioRequestOverriddenOnTheSameFrame() async throws {
        let first = try Self.session(completionDelay: 2, [(1.3, .ratio9x16), (1.3, .ratio16x9)])
        let (dir, manifest) = try await Self.record(first)
        #expect(manifest.segments.map(\.frameCount) == [11, 19])
        #expect(manifest.segments[1].change == ChangeRecord(deviceTime: Self.deviceTime(11), sessionTime: S.ns(1_366_666_667), aspectRatio: "16x9"))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        try Self.expectFiles(dir, manifest, frames: [Array(0...10), Array(11...29)])

        let back = [(1.3, DynamicAspectRatio.ratio16x9), (1.3, .ratio9x16)]
        let (tokens, frames, _) = try S.tokens(try Self.session(completionDelay: 2, back))
        #expect(tokens.filter { $0.hasPrefix("S") || $0.hasPrefix("C") } == ["S16x9", "C9x16"])
        #expect(frames.allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        let (dir2, manifest2) = try await Self.record(try Self.session(completionDelay: 2, back))
        #expect(manifest2.segments.map(\.frameCount) == [30])
        #expect(manifest2.warnings.isEmpty, "\(manifest2.warnings)")
        try Self.expectFiles(dir2, manifest2, frames: [Array(0...29)])
    }

    /// A completion that never arrives (the stream ends first): the segment the buffers
    /// opened gets its first frame's own device and session time, `announced: false`, and
    /// no warning.
    @Test func completionThatNeverArrives() async throws {
        let events = try S.tokensAndEvents(try Self.session(completionDelay: 40, [(1.3, .ratio16x9)]))
        // The completion is due before frame 11 + 40, after the last frame (29): the session
        // never delivers it (DESIGN.md "Dynamic aspect ratio").
        #expect(!events.contains { if case .dynamicAspectRatioChangeCompleted = $0 { true } else { false } })
        #expect(events.filter { if case .frame = $0 { true } else { false } }.count == 30)
        let (dir, manifest) = try await RecorderTestSupport.record(events, clock: S.plainClock)
        #expect(manifest.segments.map(\.frameCount) == [11, 19])
        #expect(
            manifest.segments[1].change
                == ChangeRecord(deviceTime: Self.deviceTime(11), sessionTime: S.ns(1_366_666_667), aspectRatio: "16x9", announced: false))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        let text = try String(contentsOf: dir.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(text.contains("\"announced\" : false"))
        try Self.expectFiles(dir, manifest, frames: [Array(0...10), Array(11...29)])
    }

    /// The scenario that used to fail: late completions (3 frames), requests at 0.37 s
    /// (1x1), 0.39 s (4x3, then 16x9) and 0.40 s (1x1) on a 30 fps 1280 camera whose clock
    /// runs 50 ppm fast; the stream ends (0.5 s) before the completions are due.
    /// Thresholds: 0.37 + 2/30 → frame 14 (0.4667 s), 0.39 + 2/30 → frame 14, and
    /// 0.40 s host = 0.40002 s device, so + 2/30 lands 480 ticks after D(14) → frame 15.
    /// So 1x1 and 4x3 are superseded on frame 14 by 16x9, and 1x1 takes frame 15: three
    /// segments, each change at its own first frame, `announced: false` (every completion,
    /// the two `superseded` ones too, is due after the last frame and never arrives), and
    /// no warning — the overridden 0.37 s request is never attached to the 1x1 segment.
    @Test func lateCompletionsAndAnEarlyEnd() async throws {
        let json = """
            {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16",
                        "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50},
                        "changeLatencyFrames": 2, "completionDelayFrames": 3},
             "sessionStartSeconds": 1.0, "durationSeconds": 0.5,
             "events": [{"atSeconds": 0.37, "setDynamicAspectRatio": "1x1"},
                        {"atSeconds": 0.39, "setDynamicAspectRatio": "4x3"},
                        {"atSeconds": 0.39, "setDynamicAspectRatio": "16x9"},
                        {"atSeconds": 0.40, "setDynamicAspectRatio": "1x1"}]}
            """
        let scenario = try Scenario.decode(Data(json.utf8), file: "hidden.json")
        let probe = try CaptureSession(scenario: scenario, stampFrameIndex: true)
        let events = try S.tokensAndEvents(probe)
        #expect(probe.device.requests.map(\.effectiveFrameIndex) == [14, 14, 14, 15])
        let frames = events.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        #expect(frames.count == 16)
        // Every completion is due after the last frame (k + 3 > 15) and never arrives: the
        // stream holds only frames and the stream formats they are in.
        #expect(
            events.allSatisfy {
                switch $0 {
                case .frame, .formatChanged: true
                default: false
                }
            })
        let (dir, manifest) = try await RecorderTestSupport.record(events, clock: probe.device.clock)
        #expect(manifest.segments.map(\.frameCount) == [14, 1, 1])
        #expect(manifest.segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x720", "1280x1280"])
        for (segment, k) in zip(manifest.segments.dropFirst(), [14, 15]) {
            #expect(
                segment.change
                    == ChangeRecord(deviceTime: frames[k].deviceTime, sessionTime: frames[k].sessionTime, aspectRatio: segment.aspectRatio, announced: false))
            #expect(segment.sessionStart == frames[k].sessionTime)
        }
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        try Self.expectFiles(dir, manifest, frames: [Array(0...13), [14], [15]])
    }
}
