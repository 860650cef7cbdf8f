import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Switch boundaries between two cameras with different clocks (DESIGN.md, "Cameras:
/// iPhone Duo and switching"), exact to the tick, at session start 1 s and past 26.5 h.
@Suite("Cameras: switch boundaries", .tags(.cameras)) struct CameraSwitchBoundaryTests {
    typealias F = DuoFixtures

    /// Expected values per session start (Python `fractions`, see DuoFixtures):
    ///   s = start + 0.4 s; outer frames with T(i) < s: i = 0…48 (n_old = 49);
    ///   inner j = min i: D_in(i) ≥ to_dev(s + 0.25 s) = 39;
    ///   16x9 at start+0.30: k1 = min i: D_out(i) ≥ to_dev(start+0.30) + 3·24e6/120 = 40;
    ///   1x1 at start+0.39: k2 = 50 ≥ 49 → never in effect (superseded by the switch);
    ///   4x3 at start+0.50 on inner: min i ≥ 39: D_in(i) ≥ to_dev(start+0.5) + 3·90000/60 = 39 = j
    ///     (the switch frame is also the ratio change's frame);
    ///   inner frames with T < start + 0.8: i = 39…47 (9), total 58; T_in(48) ends the last.
    /// start 1.0:      last outer T(48)=1399980001, D_out(48)=333616200; D_in(39)=-143996,
    ///                 T_in(39)=1650012445; D_out(40)=332016200, T_out(40)=1333316667; T_in(48)=1800015445
    /// start 95400.0 (26.5 h, start = 95_400_000_000_000 ns): T(48)=95400399980001,
    ///                 D_out(48)=2290024095000; D_in(39)=8585594286, T_in(39)=95400650014667;
    ///                 D_out(40)=2290022495000, T_out(40)=95400333316667; T_in(48)=95400800017667
    struct Expected: Sendable, CustomTestStringConvertible {
        let start: String
        let lastOuterT: Int64, lastOuterD: Int64
        let innerD: Int64, innerT: Int64
        let k1D: Int64, k1T: Int64
        let endT: Int64
        var testDescription: String { "sessionStartSeconds \(start)" }
    }

    static let cases = [
        Expected(
            start: "1.0", lastOuterT: 1_399_980_001, lastOuterD: 333_616_200, innerD: -143_996, innerT: 1_650_012_445, k1D: 332_016_200, k1T: 1_333_316_667,
            endT: 1_800_015_445),
        Expected(
            start: "95400.0", lastOuterT: 95_400_399_980_001, lastOuterD: 2_290_024_095_000, innerD: 8_585_594_286, innerT: 95_400_650_014_667,
            k1D: 2_290_022_495_000, k1T: 95_400_333_316_667, endT: 95_400_800_017_667)
    ]

    static let events = """
        {"atSeconds": 0.3, "setDynamicAspectRatio": "16x9"},
        {"atSeconds": 0.39, "setDynamicAspectRatio": "1x1"},
        {"atSeconds": 0.4, "posture": "open"},
        {"atSeconds": 0.5, "setDynamicAspectRatio": "4x3"}
        """

    @Test("outer → inner: old frames end before s, the new camera starts on its own grid", arguments: cases) func switchBoundary(_ e: Expected) throws {
        let scenario = try F.scenario(F.individual(start: e.start, events: Self.events))
        let events = try F.run(try CaptureSession(scenario: scenario, stampFrameIndex: true))
        let frames = F.frames(events)
        #expect(frames.count == 58)
        #expect(frames.map(\.index) == Array(0..<58))
        #expect(frames[..<49].allSatisfy { $0.camera?.id == "outer" && $0.stampedCameraPosition == 0 })
        #expect(frames[49...].allSatisfy { $0.camera?.id == "inner" && $0.stampedCameraPosition == 1 })
        // The last outer frame and the first inner frame, each on its own clock.
        #expect(frames[48].sessionTime == F.t(e.lastOuterT))
        #expect(frames[48].deviceTime == F.t(e.lastOuterD, 24_000_000))
        #expect(frames[49].deviceTime == F.t(e.innerD, 90_000))
        #expect(frames[49].sessionTime == F.t(e.innerT))
        #expect(try frames[57].sessionTime.adding(frames[57].duration) == F.t(e.endT))
        // Dimensions: 9x16 until k1 = 40, 16x9 to the switch, then the gap request's 4x3
        // on the inner camera's first frame (the switch frame).
        #expect(frames[..<40].allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(frames[40..<49].allSatisfy { $0.dimensions == VideoDimensions(width: 1280, height: 720) })
        #expect(frames[49...].allSatisfy { $0.dimensions == VideoDimensions(width: 1280, height: 960) })
        // The switch event carries the inner camera's first frame on the inner clock.
        let switched = try #require(F.records(events, .cameraSwitched).first)
        #expect(switched.deviceTime == F.t(e.innerD, 90_000) && switched.sessionTime == F.t(e.innerT))
        #expect(switched.from == "outer" && switched.to == "inner" && switched.frameIndex == 49 && switched.deviceClock == "inner")
        #expect(F.records(events, .cameraSwitched).count == 1)
    }

    @Test(
        "a request pending at the switch completes superseded at once; an earlier one completes late, after the switch; one due after the end never arrives",
        arguments: cases) func pendingAndLate(_ e: Expected) throws
    {
        let scenario = try F.scenario(F.individual(start: e.start, events: Self.events))
        let events = try F.run(try CaptureSession(scenario: scenario))
        let superseded = events.enumerated().compactMap { item -> (Int, DynamicAspectRatioSupersession)? in
            if case .dynamicAspectRatioChangeSuperseded(let s) = item.element { (item.offset, s) } else { nil }
        }
        #expect(superseded.count == 1)
        #expect(superseded.first?.1.aspectRatio == .ratio1x1)
        #expect(superseded.first?.1.effectiveFrameIndex == 50)
        let posture = try #require(events.firstIndex { if case .sessionEvent(.postureChanged) = $0 { true } else { false } })
        let switchFrame = try #require(F.position(ofFrame: 49, in: events))
        #expect(superseded.first.map { $0.0 > posture && $0.0 < switchFrame } == true)
        // 16x9 took effect on outer frame 40; its completion (delay 12) comes before delivery 52.
        let completed = events.enumerated().compactMap { item -> (Int, DynamicAspectRatioChange)? in
            if case .dynamicAspectRatioChangeCompleted(let c) = item.element { (item.offset, c) } else { nil }
        }
        let late = try #require(completed.first { $0.1.aspectRatio == .ratio16x9 })
        #expect(late.1.deviceTime == F.t(e.k1D, 24_000_000))
        #expect(late.1.sessionTime == F.t(e.k1T))
        #expect(late.0 > (F.position(ofFrame: 51, in: events) ?? .max))
        #expect(late.0 < (F.position(ofFrame: 52, in: events) ?? -1))
        // 4x3 took effect on the switch frame (delivery 49); its completion, due before
        // delivery 49 + 12 = 61, never arrives: the recording ends after 58 frames.
        #expect(events.filter { if case .frame = $0 { true } else { false } }.count == 58)
        #expect(!completed.contains { $0.1.aspectRatio == .ratio4x3 })
    }

    /// With `completionDelayFrames` −3 the 1x1 request (k2 = 50, made at start+0.39: first
    /// frame at/after it 47) would be answered before delivery max(50 − 3, 47) = 47, ahead of
    /// its frame; the switch at start+0.4 ends the outer frames at 48, so the request never
    /// takes effect and completes `superseded` (DESIGN.md), in that place, with no time. The
    /// 16x9 request (k1 = 40) is answered before delivery 37 with its time, as before.
    @Test("an early answer for a frame the switch prevents completes superseded in its place", arguments: cases) func earlyAnswerSuperseded(_ e: Expected)
        throws
    {
        let scenario = try F.scenario(F.individual(start: e.start, events: Self.events, delay: -3))
        let events = try F.run(try CaptureSession(scenario: scenario))
        let superseded = events.enumerated().compactMap { item -> (Int, DynamicAspectRatioSupersession)? in
            if case .dynamicAspectRatioChangeSuperseded(let s) = item.element { (item.offset, s) } else { nil }
        }
        let completed = events.enumerated().compactMap { item -> (Int, DynamicAspectRatioChange)? in
            if case .dynamicAspectRatioChangeCompleted(let c) = item.element { (item.offset, c) } else { nil }
        }
        #expect(superseded.map(\.1.aspectRatio) == [.ratio1x1])
        #expect(superseded.first?.1.effectiveFrameIndex == 50)
        let early = try #require(superseded.first?.0)
        #expect(early > (F.position(ofFrame: 46, in: events) ?? .max) && early < (F.position(ofFrame: 47, in: events) ?? -1))
        #expect(!completed.contains { $0.1.aspectRatio == .ratio1x1 })
        let wide = try #require(completed.first { $0.1.aspectRatio == .ratio16x9 })
        #expect(wide.1.deviceTime == F.t(e.k1D, 24_000_000) && wide.1.sessionTime == F.t(e.k1T))
        #expect(wide.0 > (F.position(ofFrame: 36, in: events) ?? .max) && wide.0 < (F.position(ofFrame: 37, in: events) ?? -1))
        // Nothing else moved: the frames are those of the delay-12 run.
        #expect(F.frames(events).count == 58 && F.frames(events).map(\.index) == Array(0..<58))
    }

    @Test("the new camera keeps the app's last ratio (here 16x9) when it supports it", arguments: cases) func ratioKept(_ e: Expected) throws {
        let json = F.individual(
            start: e.start,
            events: """
                {"atSeconds": 0.3, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 0.4, "posture": "open"}
                """)
        let frames = F.frames(try F.run(try CaptureSession(scenario: try F.scenario(json))))
        #expect(frames.count == 58)
        #expect(frames[49].dimensions == VideoDimensions(width: 1280, height: 720))
        #expect(frames[49].sessionTime == F.t(e.innerT))
    }

    @Test("a request that reaches the back camera fails unsupported; the recording goes on") func backCameraRequest() throws {
        // Back clock: ts 1e9, offset 0.5 s, no drift, 30 fps: to_dev(h) = h + 0.5e9, so
        // T_back(i) = 1e9 + round(i·1e9/30). openOuterDisplay at 1.4 s: first back frame
        // D ≥ to_dev(1.65e9) → i = ceil(0.65·30) = 20 (T = 1.666666667 s).
        let json = F.individual(
            start: "1.0",
            events: """
                {"atSeconds": 0.4, "posture": "openOuterDisplay"}, {"atSeconds": 0.7, "setDynamicAspectRatio": "1x1"}
                """, duration: "1.0")
        let events = try F.run(try CaptureSession(scenario: try F.scenario(json), stampFrameIndex: true))
        let frames = F.frames(events)
        let back = frames.filter { $0.camera?.id == "back" }
        #expect(back.first?.sessionTime == F.t(1_666_666_667))
        #expect(back.first?.deviceTime == F.t(2_166_666_667))
        // Back frames 20…29 (T < 2.0 s), all at the back camera's fixed 1920x1080.
        #expect(back.count == 10)
        #expect(back.allSatisfy { $0.dimensions == VideoDimensions(width: 1920, height: 1080) && $0.stampedCameraPosition == 2 })
        let failed = F.records(events, .aspectRatioRequestFailed)
        #expect(failed.count == 1 && failed.first?.camera == "back" && failed.first?.to == "1x1")
        #expect(failed.first?.sessionTime == F.t(1_700_000_000))
        #expect(events.contains { if case .warning(let w) = $0 { w.contains("unsupported") } else { false } })
        #expect(frames.map(\.index) == Array(0..<Int64(frames.count)))
    }
}
