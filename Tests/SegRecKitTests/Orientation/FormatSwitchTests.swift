import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `activeFormat` and `apply` (the seeds' `apply()`): the reconfiguration gap, the new grid,
/// `formatChanged` segments with their own size and rate, read back with libavcodec and ffprobe.
@Suite("Orientation: active format switching", .tags(.cameras)) struct FormatSwitchTests {
    typealias F = OrientationFixtures

    /// 1920 at 60 fps, 16x9; `activeFormat` 3840 (≤ 30 fps: the rate is clamped to 30) at +0.4 s.
    static let rateAndSize = """
        {"device": {"format": 1920, "fps": 60, "initialAspectRatio": "16x9",
                    "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
         "switchGapSeconds": 0.25, "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.4, "activeFormat": 3840}]}
        """

    @Test("a switch that changes size and rate: old frames end before s, the new grid starts at the gap end") func boundaryOnTheSession() throws {
        // Python fractions (to_dev/to_host as in DuoFixtures; off 12.5 s, +50 ppm, ts 24e6):
        //   D0 = to_dev(1e9) = 324016200; D(i) = D0 + round(i·24e6/60) = D0 + 400000 i
        //   T(24) = to_host(333616200) = 1399980001 < s = 1.4e9 ≤ T(25): frames 0…24 are old
        //   D0' = ceil(to_dev(1.65e9)) = 339616980, T = to_host(D0') = 1650000000
        //   new frame j: D0' + 800000 j; T(j=10) = to_host(347616980) = 1983316667 < 2e9 ≤ T(j=11)
        let session = try CaptureSession(scenario: try F.scenario(Self.rateAndSize))
        let events = try F.run(session)
        let frames = F.frames(events)
        #expect(frames.count == 36)
        #expect(frames.map(\.index) == Array(0..<36))
        #expect(frames[24].deviceTime == MediaTime(value: 333_616_200, timescale: 24_000_000))
        #expect(frames[24].sessionTime == F.ns(1_399_980_001))
        #expect(frames[24].dimensions == VideoDimensions(width: 1920, height: 1080))
        let (r30, r60) = (try FrameRate(30), try FrameRate(60))
        #expect(frames[24].format?.frameRate == r60)
        #expect(frames[25].deviceTime == MediaTime(value: 339_616_980, timescale: 24_000_000))
        #expect(frames[25].sessionTime == F.ns(1_650_000_000))
        #expect(frames[25].dimensions == VideoDimensions(width: 3840, height: 2160))
        #expect(frames[25].format?.activeFormat == "3840" && frames[25].format?.frameRate == r30)
        #expect(frames[35].sessionTime == F.ns(1_983_316_667))
        // A frame's own duration is its grid's next frame: T(25) − T(24) = 1416645834 − 1399980001
        // (the muxer ends the segment at the new format's first frame instead).
        #expect(frames[24].duration == F.ns(1_416_645_834 - 1_399_980_001))
        let switched = try #require(F.records(events, .activeFormatChanged).first)
        #expect(switched.frameIndex == 25 && switched.sessionTime == F.ns(1_650_000_000))
        #expect(switched.deviceTime == MediaTime(value: 339_616_980, timescale: 24_000_000))
        #expect(switched.from == "1920@60" && switched.to == "3840@30")
        #expect(session.device.activeFormat.squareSide == 3840)
    }

    @Test("recorded: a formatChanged segment at 3840x2160 30 fps, tiling exactly, every frame read back") func boundaryInFiles() async throws {
        let scenario = try F.scenario(Self.rateAndSize)
        let (dir, m) = try await F.record(scenario)
        #expect(m.segments.count == 2)
        let (a, b) = (m.segments[0], m.segments[1])
        #expect(a.width == 1920 && a.height == 1080 && a.frameCount == 25 && a.startReason == .recordingStarted)
        #expect(a.sessionStart == F.ns(1_000_000_000) && a.sessionEnd == F.ns(1_650_000_000))
        #expect(b.width == 3840 && b.height == 2160 && b.frameCount == 11 && b.firstFrameIndex == 25)
        #expect(b.startReason == .formatChanged && b.sessionStart == a.sessionEnd)
        #expect(b.change?.sessionTime == F.ns(1_650_000_000))
        #expect(b.change?.deviceTime == MediaTime(value: 339_616_980, timescale: 24_000_000))
        // T(j=11) = to_host(339616980 + 8800000) = 2016648334: the last frame's end.
        #expect(b.sessionEnd == F.ns(2_016_648_334) && m.stopReason == .endOfStream)
        #expect(m.frames.received == 36 && m.frames.written == 36 && m.frames.dropped == 0)
        #expect(m.events?.contains { $0.kind == .activeFormatChanged && $0.frameIndex == 25 } == true)
        let first = dir.appendingPathComponent(a.file)
        let second = dir.appendingPathComponent(b.file)
        #expect(try RecorderTestSupport.stampedIndices(first) == Array(0..<25))
        #expect(try RecorderTestSupport.stampedIndices(second) == Array(25..<36))
        if let probe = try RecorderTestSupport.probe(second) {
            #expect(probe == (3840, 2160, 11))
            #expect(try F.ffprobeRate(first) == "60/1")
            #expect(try F.ffprobeRate(second) == "30/1")
        }
    }

    @Test("stop-on-change stops at the new format's first frame: stopReason formatChanged") func stopOnChange() async throws {
        let (dir, m) = try await F.record(try F.scenario(Self.rateAndSize), mode: .stopOnChange)
        #expect(m.segments.count == 1 && m.segments[0].frameCount == 25)
        #expect(m.stopReason == .formatChanged && m.stopTime == F.ns(1_650_000_000))
        #expect(m.frames.dropped == 11 && m.frames.droppedReasons["recordingStopped"] == 11)
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-000.mp4")) == Array(0..<25))
    }

    @Test("apply(16x9) on the 4032 photo format switches to 1280 (first listing 16x9), rate kept; apply of a listed ratio does not switch")
    func applyChoosesTheFirstFormat() throws {
        // ts 90000, off −2.5 s, +30 ppm, 30 fps, start 1.0 s: T(15) = 1499985556 < 1.5e9;
        // D0' = ceil(to_dev(1.75e9)) = −67502 (negative device ticks: the offset), T = 1750000278.
        let json = """
            {"device": {"format": 4032, "fps": 30, "initialAspectRatio": "4x3",
                        "clock": {"timescale": 90000, "offsetSeconds": -2.5, "driftPPM": 30}},
             "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
             "events": [{"atSeconds": 0.5, "apply": "16x9"}, {"atSeconds": 0.9, "apply": "1x1"}]}
            """
        let session = try CaptureSession(scenario: try F.scenario(json))
        let events = try F.run(session)
        let frames = F.frames(events)
        #expect(frames[15].sessionTime == F.ns(1_499_985_556) && frames[15].dimensions == VideoDimensions(width: 4032, height: 3024))
        #expect(frames[16].sessionTime == F.ns(1_750_000_278) && frames[16].dimensions == VideoDimensions(width: 1280, height: 720))
        #expect(frames[16].deviceTime == MediaTime(value: -67_502, timescale: 90_000))
        let r30 = try FrameRate(30)
        #expect(frames[16].format?.activeFormat == "1280" && frames[16].format?.frameRate == r30)
        // 1x1 is listed by 1280: a plain request (latency 2), no second format switch.
        #expect(F.records(events, .activeFormatChanged).count == 1)
        #expect(frames.last?.dimensions == VideoDimensions(width: 1280, height: 1280))
        #expect(Set(frames.compactMap { $0.format?.formatGeneration }) == [0, 1])
    }
}

extension FormatSwitchTests {
    @Test("a request made during the reconfiguration gap takes effect on the new format's first frame") func requestDuringTheGap() async throws {
        // As applyChoosesTheFirstFormat: the gap runs 1.5 s → 1.75 s (first new frame T = 1750000278).
        // 1x1 at 1.6 s: to_dev(1.6e9) + 2 periods lies before D0', so frame 0 of the new grid has it.
        let json = """
            {"device": {"format": 4032, "fps": 30, "initialAspectRatio": "4x3",
                        "clock": {"timescale": 90000, "offsetSeconds": -2.5, "driftPPM": 30}},
             "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
             "events": [{"atSeconds": 0.5, "apply": "16x9"}, {"atSeconds": 0.6, "setDynamicAspectRatio": "1x1"}]}
            """
        let events = try F.run(try CaptureSession(scenario: try F.scenario(json)))
        let frames = F.frames(events)
        #expect(frames[16].sessionTime == F.ns(1_750_000_278))
        #expect(frames[16].dimensions == VideoDimensions(width: 1280, height: 1280))
        let completions = events.compactMap { if case .dynamicAspectRatioChangeCompleted(let c) = $0 { c } else { nil } }
        #expect(completions.map(\.sessionTime) == [F.ns(1_750_000_278)])
        let (_, m) = try await F.record(try F.scenario(json))
        #expect(m.segments.map(\.startReason) == [.recordingStarted, .formatChanged])
        #expect(m.segments[1].width == 1280 && m.segments[1].height == 1280 && m.warnings.isEmpty)
    }
}

@Suite("Orientation: SampleStreams/orientation", .tags(.cameras)) struct OrientationSampleStreamsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleStreams/orientation")

    @Test("every file decodes and runs; the apply scenario switches format twice, the group selfie turns once") func sampleStreams() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files == ["apply-format-switch.json", "call-low-latency-center-stage.json", "rotated-group-selfie.json"])
        var kinds: [String: [SessionEventRecord.Kind]] = [:]
        for file in files {
            let scenario = try Scenario.load(contentsOf: Self.folder.appendingPathComponent(file))
            let events = try OrientationFixtures.run(try CaptureSession(scenario: scenario))
            kinds[scenario.name] = events.compactMap { if case .sessionEvent(let c) = $0 { SessionEventRecord(c).kind } else { nil } }
        }
        #expect(kinds["apply-format-switch"]?.filter { $0 == .activeFormatChanged }.count == 2)
        #expect(kinds["rotated-group-selfie"]?.filter { $0 == .rotationChanged }.count == 2)
        #expect(kinds["rotated-group-selfie"]?.contains(.smartFramingRecommended) == true)
        #expect(kinds["call-low-latency-center-stage"]?.filter { $0 == .centerStageEnabledChanged }.count == 2)
    }
}

@Suite("Orientation: format switching on iPhone Duo cameras", .tags(.cameras)) struct DuoFormatSwitchTests {
    @Test("activeFormat on the streaming outer camera: gap, new grid at the gap end, same camera, new size") func outerCameraSwitch() throws {
        // Outer: ts 24e6, off 12.5 s, +50 ppm, 120 fps, start 1.0 s; activeFormat 1920 at +0.1 s.
        // Python fractions: T(12) = 1099995000 < 1.1e9 ≤ T(13): 13 old frames (1280: 720x1280);
        // D0' = ceil(to_dev(1.35e9)) = 332416620, T = 1350000000; j = 1: D0' + 200000 → 1358332917.
        let json = DuoFixtures.individual(start: "1.0", events: #"{"atSeconds": 0.1, "activeFormat": 1920}"#, duration: "0.4")
        let session = try CaptureSession(scenario: try DuoFixtures.scenario(json))
        let events = try DuoFixtures.run(session)
        let frames = DuoFixtures.frames(events)
        #expect(frames[12].sessionTime == DuoFixtures.t(1_099_995_000) && frames[12].dimensions == VideoDimensions(width: 720, height: 1280))
        #expect(frames[13].sessionTime == DuoFixtures.t(1_350_000_000) && frames[13].dimensions == VideoDimensions(width: 1080, height: 1920))
        #expect(frames[13].deviceTime == MediaTime(value: 332_416_620, timescale: 24_000_000))
        #expect(frames[14].sessionTime == DuoFixtures.t(1_358_332_917))
        #expect(frames.allSatisfy { $0.camera?.id == "outer" })
        #expect(frames[13].format?.formatGeneration == 1 && frames[12].format?.formatGeneration == 0)
        let switched = DuoFixtures.records(events, .activeFormatChanged)
        #expect(switched.map(\.frameIndex) == [13] && switched.first?.from == "1280@120" && switched.first?.to == "1920@120")
        #expect(session.devices[0].activeFormat.squareSide == 1920)
    }
}
