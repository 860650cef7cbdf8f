import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Capture: session event stream", .tags(.capture)) struct CaptureSessionTests {
    typealias S = CaptureTestSupport

    /// Session 1.0 s … 2.0 s host at 30 fps: frames 0…29 at 1 + i/30 s (frame 30 is at 2.0 s,
    /// not before the end). A request at 1.5 s host (= frame 15's time, so it is made before
    /// frame 15) converts to 36_000_000 ticks = D(15); with latency 2, k = 17.
    static func oneRequest(delay: Int64) throws -> CaptureSession {
        try CaptureSession(
            device: try S.plainDevice(latency: 2, completionDelay: delay), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
            events: [.init(hostTime: S.ns(1_500_000_000), action: .setDynamicAspectRatio(.ratio16x9))])
    }

    /// completionDelayFrames → the frame the completion comes just before (nil: after the last frame).
    /// −1 → 16; 0 → 17; +2 → 19; −5 → max(12, 15) = 15 (never before the request's frame);
    /// +20 → 37 > 29: never (the recording ends before frame 37: DESIGN.md, its segment is
    /// `announced: false`).
    @Test("completion placement for completionDelayFrames", arguments: [(Int64(-1), Int64?(16)), (0, 17), (2, 19), (-5, 15), (20, nil)]) func placement(
        delay: Int64, before frame: Int64?
    ) throws {
        let (tokens, frames, changes) = try S.tokens(try Self.oneRequest(delay: delay))
        #expect(frames.count == 30)
        if let frame {
            #expect(changes.count == 1)
            let position = try #require(tokens.firstIndex(of: "C16x9"))
            #expect(tokens[position + 1] == "F\(frame)")
        } else {
            #expect(changes.isEmpty && !tokens.contains("C16x9") && tokens.last == "F29")
        }
        // Frames 0…16 are 9x16 (720x1280); 17… are 16x9 (1280x720), whatever the delay.
        #expect(frames.prefix(17).allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(frames.dropFirst(17).allSatisfy { $0.dimensions == VideoDimensions(width: 1280, height: 720) })
        for change in changes {
            #expect(change.deviceTime == MediaTime(value: 24_000_000 + 17 * 800_000, timescale: 24_000_000))
            #expect(change.sessionTime == S.ns(1_566_666_667))  // 1 + 17/30 s
        }
    }

    /// DESIGN.md "Dynamic aspect ratio": the request is compared with frames in device
    /// ticks. A 90 kHz camera at 30 fps captures frame 1 at D(1) = 93 000 ticks, which the
    /// session clock gives as 1 033 333 333 ns (1.0333…, rounded down); a request made 1 ns
    /// later, at 1 033 333 334 ns, converts back to 93 000.00006 → 93 000 = D(1): made at the
    /// very instant frame 1 is captured, with latency 0 it takes effect on frame 1, not 2.
    @Test("a request made at a frame's capture instant in device ticks takes effect on that frame (latency 0)", arguments: [Int64(1), 4, 7])
    func requestAtTheCaptureInstantInDeviceTicks(frame: Int64) throws {
        let clock = try MediaClock(identifier: "front", timescale: 90_000, offsetNanoseconds: 0, driftPartsPerBillion: 0)
        let device = try CaptureDevice(
            format: CaptureDevice.Format.frontCenterStage(squareSide: 1280)!, frameRate: try FrameRate(30), clock: clock, initialAspectRatio: .ratio9x16,
            changeLatencyFrames: 0, completionDelayFrames: 0)
        // D(k) = 90 000 + 3 000 k ticks; its session time rounds half away from zero.
        let capture = try convertTime(MediaTime(value: 90_000 + 3_000 * frame, timescale: 90_000), from: clock, to: .host)
        let request = S.ns(capture.value + 1)
        #expect(try convertTime(request, from: .host, to: clock) == MediaTime(value: 90_000 + 3_000 * frame, timescale: 90_000))
        let session = try CaptureSession(
            device: device, sessionStart: S.ns(1_000_000_000), duration: S.ns(500_000_000),
            events: [.init(hostTime: request, action: .setDynamicAspectRatio(.ratio16x9))])
        let (_, frames, changes) = try S.tokens(session)
        #expect(changes.count == 1)
        #expect(changes.first?.deviceTime == MediaTime(value: 90_000 + 3_000 * frame, timescale: 90_000))
        #expect(frames.firstIndex { $0.dimensions == VideoDimensions(width: 1280, height: 720) } == Int(frame))
    }

    @Test("completions are FIFO; a later request at the same instant wins from its own frame on, the earlier one is superseded") func fifo() throws {
        let session = try CaptureSession(
            device: try S.plainDevice(latency: 2, completionDelay: 0), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
            events: [
                .init(hostTime: S.ns(1_500_000_000), action: .setDynamicAspectRatio(.ratio16x9)),
                .init(hostTime: S.ns(1_500_000_000), action: .setDynamicAspectRatio(.ratio1x1)),
                .init(hostTime: S.ns(1_600_000_000), action: .setDynamicAspectRatio(.ratio4x3))
            ])
        let (tokens, frames, changes) = try S.tokens(session)
        // Both requests at 1.5 s would take effect on frame 17: the later one (1x1) wins it and
        // the earlier (16x9) never takes effect, so it completes superseded. The one at 1.6 s
        // (= frame 18's time) takes effect on frame 20. Completions in request order, before
        // frames 17, 17 and 20.
        #expect(changes.map(\.aspectRatio) == [.ratio1x1, .ratio4x3])
        #expect(Array(tokens[17...19]) == ["S16x9", "C1x1", "F17"])
        #expect(tokens.firstIndex(of: "C4x3").map { tokens[$0 + 1] } == "F20")
        #expect(frames[16].dimensions == VideoDimensions(width: 720, height: 1280))
        #expect(frames[17].dimensions == VideoDimensions(width: 1280, height: 1280))
        #expect(frames[19].dimensions == VideoDimensions(width: 1280, height: 1280))
        #expect(frames[20].dimensions == VideoDimensions(width: 1280, height: 960))
        #expect(!frames.contains { $0.dimensions == VideoDimensions(width: 1280, height: 720) })
    }

    @Test("negative delays keep FIFO order and never precede their request") func fifoNegative() throws {
        let session = try CaptureSession(
            device: try S.plainDevice(latency: 2, completionDelay: -5), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
            events: [
                .init(hostTime: S.ns(1_500_000_000), action: .setDynamicAspectRatio(.ratio16x9)),
                .init(hostTime: S.ns(1_600_000_000), action: .setDynamicAspectRatio(.ratio1x1))
            ])
        let (tokens, _, _) = try S.tokens(session)
        // k = 17 → max(12, 15) = 15; k = 20 → max(15, 18) = 18.
        #expect(tokens.firstIndex(of: "C16x9").map { tokens[$0 + 1] } == "F15")
        #expect(tokens.firstIndex(of: "C1x1").map { tokens[$0 + 1] } == "F18")
    }

    @Test("zoom and same-ratio requests change no dimensions; same-ratio requests still complete") func zoomAndSameRatio() throws {
        let session = try CaptureSession(
            device: try S.plainDevice(initial: .ratio16x9), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
            events: [
                .init(hostTime: S.ns(1_100_000_000), action: .videoZoomFactor(2.0)),
                .init(hostTime: S.ns(1_200_000_000), action: .setDynamicAspectRatio(.ratio16x9)),
                .init(hostTime: S.ns(1_300_000_000), action: .videoZoomFactor(1.0))
            ])
        let (_, frames, changes) = try S.tokens(session)
        #expect(Set(frames.map(\.dimensions)) == [VideoDimensions(width: 1280, height: 720)])
        #expect(changes.count == 1 && changes[0].aspectRatio == .ratio16x9)
        #expect(session.device.videoZoomFactor == 1.0)
        #expect(session.device.requests.map(\.changesDimensions) == [false])
    }

    @Test("frames carry D(i), session time, duration and their index stamp") func frameTimestamps() throws {
        // Tap to rotate: D0 = (1.0 + 12.5)·1.00005·24e6 = 324_016_200; D(i) = D0 + 800_000·i;
        // session(i) = D(i)/24_001_200 − 12.5 s = 1 + i·800_000/24_001_200 s.
        let session = try CaptureSession(scenario: .tapToRotate)
        let (_, frames, changes) = try S.tokens(session)
        for frame in frames {
            let d = 324_016_200 + 800_000 * frame.index
            #expect(frame.deviceTime == MediaTime(value: d, timescale: 24_000_000))
            let sessionNanoseconds = Self.roundedDivision(Int64(frame.index) * 800_000 * 1_000_000_000, 24_001_200)
            #expect(frame.sessionTime == S.ns(1_000_000_000 + sessionNanoseconds))
            let next = Self.roundedDivision(Int64(frame.index + 1) * 800_000 * 1_000_000_000, 24_001_200)
            #expect(frame.duration == S.ns(next - sessionNanoseconds))
            #expect(FrameIndexStamp.read(frame.pixelBuffer) == UInt32(frame.index))
        }
        #expect(frames.map(\.index) == Array(0..<Int64(frames.count)))
        // Request at 3.0 s host: 15.5·24_001_200 = 372_018_600 = D0 + 48_002_400 (60.003 periods),
        // +2 → k = 63. At 7.0 s: 19.5·24_001_200 = 468_023_400 = D0 + 144_007_200 (180.009) → k = 183.
        #expect(
            changes.map(\.deviceTime) == [
                MediaTime(value: 324_016_200 + 63 * 800_000, timescale: 24_000_000), MediaTime(value: 324_016_200 + 183 * 800_000, timescale: 24_000_000)
            ])
        #expect(frames[62].dimensions == VideoDimensions(width: 1080, height: 1920))
        #expect(frames[63].dimensions == VideoDimensions(width: 1920, height: 1080))
        #expect(frames[182].dimensions == VideoDimensions(width: 1920, height: 1080))
        #expect(frames[183].dimensions == VideoDimensions(width: 1920, height: 1920))
        #expect(session.device.videoZoomFactor == 1.5)
    }

    /// round(n / d) half away from zero, n, d > 0.
    static func roundedDivision(_ n: Int64, _ d: Int64) -> Int64 { (2 * n + d) / (2 * d) }

    /// Expected frame counts, computed independently (frames with session time < start + duration):
    /// - tap-to-rotate: session(i) = 1 + i/30.0015 s < 11 ⇔ i < 300.015 → 301 frames.
    /// - no-change: no drift or offset, session(i) = 1 + i/30 s < 4 ⇔ i < 90 → 90.
    /// - rapid-flips: +10 ppm: 1 + i/30.0003 < 4 ⇔ i < 90.0009 → 91.
    /// - long-recording-drift: −200 ppm at 30000/1001: session(i) ≈ start + i·1001/30000/0.9998;
    ///   i < 60·0.9998·30000/1001 = 1797.84 → 1798.
    /// - early-completion: +30 ppm at 60 fps for 2 s: i < 120.0036 → 121.
    /// - late-completion: −75 ppm at 30 fps for 3 s: i < 89.99325 → 90.
    /// - smart-framing-group-selfie: −20 ppm at 15 fps for 2 s: i < 29.9994 → 30.
    @Test(
        "a session delivers exactly the frames before sessionStart + duration",
        arguments: [
            ("tap-to-rotate", Int64(301)), ("no-change", 90), ("rapid-flips", 91), ("long-recording-drift", 1798), ("early-completion", 121),
            ("late-completion", 90), ("smart-framing-group-selfie", 30)
        ]) func frameCount(name: String, expected: Int64) throws
    {
        let scenario = try Scenario.load(contentsOf: CaptureScenarioFiles.url(name))
        let session = try CaptureSession(scenario: scenario, frameSource: GreySource())
        #expect(try session.frameCount() == expected)
        var frames: Int64 = 0
        var last: VideoFrame?
        while let event = try session.next() {
            if case .frame(let frame) = event {
                frames += 1
                last = frame
            }
        }
        #expect(frames == expected)
        let end = try scenario.sessionStart.adding(scenario.duration)
        #expect(try #require(last).sessionTime < end)
        #expect(try #require(last).sessionTime.adding(try #require(last).duration) >= end)
        #expect(try session.next() == nil)
    }

    @Test("smart framing: recommendations are applied as ratio then zoom; zero people recommend nothing") func smartFraming() throws {
        let scenario = try Scenario.load(contentsOf: CaptureScenarioFiles.url("smart-framing-group-selfie"))
        let session = try CaptureSession(scenario: scenario)
        let (_, frames, changes) = try S.tokens(session)
        // 1 → 3x4 narrow (same ratio as initial), 2 → 3x4 wide, 0 → nothing, 3 → 4x3 wide, 1 → 3x4 narrow.
        #expect(changes.map(\.aspectRatio) == [.ratio3x4, .ratio3x4, .ratio4x3, .ratio3x4])
        #expect(session.device.requests.map(\.changesDimensions) == [false, false, true, true])
        #expect(session.device.videoZoomFactor == 1.3)
        #expect(session.device.smartFramingMonitor?.recommendedFraming == .narrow3x4)
        var runs: [VideoDimensions] = []
        for frame in frames where runs.last != frame.dimensions { runs.append(frame.dimensions) }
        #expect(runs == [VideoDimensions(width: 3024, height: 4032), VideoDimensions(width: 4032, height: 3024), VideoDimensions(width: 3024, height: 4032)])
    }

    @Test("the monitor: supported framings, nothing until enabled and started") func monitor() throws {
        let photo = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 4032))
        let device = try CaptureDevice(format: photo, frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio4x3)
        let monitor = try #require(device.smartFramingMonitor)
        #expect(monitor.supportedFramings == [.wide3x4, .narrow3x4, .wide4x3, .narrow4x3])
        #expect(try monitor.observe(peopleInFrame: 2) == nil)  // not monitoring
        monitor.startMonitoring()
        #expect(try monitor.observe(peopleInFrame: 2) == nil)  // nothing enabled
        try monitor.setEnabledFramings([.wide4x3])
        #expect(try monitor.observe(peopleInFrame: 2) == nil)  // 3x4 wide not enabled
        #expect(try monitor.observe(peopleInFrame: 5) == .wide4x3)
        #expect(try monitor.observe(peopleInFrame: 4) == .wide4x3)  // periodic: recommended again while people move
        #expect(throws: CaptureError.unsupportedFraming(CaptureFraming(aspectRatio: .ratio1x1, zoomFactor: 1))) {
            try monitor.setEnabledFramings([CaptureFraming(aspectRatio: .ratio1x1, zoomFactor: 1)])
        }
        let video = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 1920))
        #expect(try CaptureDevice(format: video, frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio1x1).smartFramingMonitor == nil)
    }

    @Test("stampFrameIndex stamps a source that does not stamp itself") func stampsOtherSources() throws {
        let session = try CaptureSession(
            device: try S.plainDevice(), output: VideoDataOutput(frameSource: GreySource(), stampFrameIndex: true), sessionStart: S.ns(1_000_000_000),
            duration: S.ns(200_000_000))
        let (_, frames, _) = try S.tokens(session)
        #expect(frames.count == 6)
        #expect(frames.map { FrameIndexStamp.read($0.pixelBuffer) } == [0, 1, 2, 3, 4, 5])
    }

    @Test("session rejects events outside the session or unsupported by the format") func sessionValidation() throws {
        #expect(throws: CaptureError.self) {
            _ = try CaptureSession(
                device: try S.plainDevice(), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
                events: [.init(hostTime: S.ns(2_000_000_000), action: .videoZoomFactor(2))])
        }
        // A people count is a fact about the scene: accepted on 1280; only a negative count fails.
        _ = try CaptureSession(
            device: try S.plainDevice(), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
            events: [.init(hostTime: S.ns(1_000_000_000), action: .peopleInFrame(2))])
        #expect(throws: CaptureError.invalidParameter(name: "peopleInFrame", value: "-2", allowed: CaptureSession.peopleInFrameAllowed)) {
            _ = try CaptureSession(
                device: try S.plainDevice(), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000),
                events: [.init(hostTime: S.ns(1_000_000_000), action: .peopleInFrame(-2))])
        }
    }
}

/// Locates `SampleStreams/` at the package root.
enum CaptureScenarioFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleStreams")

    static func url(_ name: String) -> URL { directory.appendingPathComponent("\(name).json") }
}
