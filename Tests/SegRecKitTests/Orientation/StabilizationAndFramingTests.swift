import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Stabilization modes' change latency on the session, Center Stage and smart framing
/// controls, zoom drawn into the picture without splitting, and the scenario errors that
/// name what is allowed (exit 65 at the CLI).
@Suite("Orientation: stabilization, Center Stage, smart framing", .tags(.cameras)) struct StabilizationAndFramingTests {
    typealias F = OrientationFixtures

    static func latencyScenario(mode: String, explicit: Int? = nil) -> String {
        """
        {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "9x16",
                    "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50},
                    "preferredVideoStabilizationMode": "\(mode)"\(explicit.map { ", \"changeLatencyFrames\": \($0)" } ?? "")},
         "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.5, "setDynamicAspectRatio": "16x9"}]}
        """
    }

    /// Python fractions: D0 = to_dev(1e9) = 324016200, D(i) = D0 + 800000 i (24 MHz, 30 fps),
    /// to_dev(1.5e9) = 336016200: k = first i with D(i) ≥ 336016200 + 800000·L.
    static let latencies: [(String, Int64?, Int64, Int64, Int64)] = [
        // mode, explicit, latency, k, T(k)
        ("off", nil, 1, 17, 1_566_638_335), ("lowLatency", nil, 1, 17, 1_566_638_335), ("standard", nil, 2, 18, 1_599_970_001),
        ("cinematic", nil, 3, 19, 1_633_301_668), ("cinematicExtended", nil, 4, 20, 1_666_633_335), ("cinematicExtendedEnhanced", nil, 5, 21, 1_699_965_002),
        ("cinematicExtendedEnhanced", 0, 0, 16, 1_533_306_668)
    ]

    @Test("each stabilization mode's default latency moves the first new-size frame; an explicit latency wins", arguments: latencies) func latencyPerMode(
        _ mode: String, _ explicit: Int64?, _ latency: Int64, _ k: Int64, _ time: Int64
    ) throws {
        let scenario = try F.scenario(Self.latencyScenario(mode: mode, explicit: explicit.map(Int.init)))
        #expect(scenario.device.effectiveChangeLatencyFrames == latency)
        #expect(scenario.deviceControls["front"]?.changeLatencyFrames == latency)
        let frames = F.frames(try F.run(try CaptureSession(scenario: scenario)))
        let first = try #require(frames.firstIndex { $0.dimensions.width == 1920 })
        #expect(Int64(first) == k)
        #expect(frames[first].sessionTime == F.ns(time))
        #expect(frames[first].deviceTime == MediaTime(value: 324_016_200 + 800_000 * k, timescale: 24_000_000))
    }

    @Test("cameras: each camera's mode sets its own latency; the back camera refuses lowLatency naming the supported modes") func camerasModes() throws {
        let json = DuoFixtures.individual(start: "1.0", events: "").replacingOccurrences(of: "\"changeLatencyFrames\": 3, ", with: "").replacingOccurrences(
            of: "\"format\": 1280, \"fps\": 60,", with: "\"format\": 1280, \"fps\": 60, \"preferredVideoStabilizationMode\": \"cinematic\",")
        let scenario = try DuoFixtures.scenario(json)
        let latencies = try scenario.makeCameraDescriptors().map(\.changeLatencyFrames)
        #expect(latencies == [2, 3, 2])  // outer: no mode (2), inner: cinematic (3), back: no mode (2)
        let bad = json.replacingOccurrences(
            of: "\"format\": \"1920x1080\", \"fps\": 30,", with: "\"format\": \"1920x1080\", \"fps\": 30, \"preferredVideoStabilizationMode\": \"lowLatency\",")
        #expect(
            throws: ScenarioError(
                file: "duo-test.json", key: "cameras[2].preferredVideoStabilizationMode", problem: "lowLatency is not supported by builtInDualWideCamera",
                allowed: "off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced")
        ) { _ = try DuoFixtures.scenario(bad) }
    }

    @Test(
        "scenario errors name the key and the allowed values",
        arguments: [
            (
                #"{"device": {"preferredVideoStabilizationMode": "steady"}, "durationSeconds": 1}"#, "device.preferredVideoStabilizationMode",
                "off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced, lowLatency"
            ),
            (
                #"{"device": {"format": 4032, "enabledFramings": ["wide3x4", "tight1x1"]}, "durationSeconds": 1}"#, "device.enabledFramings[1]",
                "wide3x4, narrow3x4, wide4x3, narrow4x3"
            ), (#"{"durationSeconds": 1, "events": [{"atSeconds": 0.5, "activeFormat": 2000}]}"#, "events[0].activeFormat", "1280, 1920, 3840, 4032"),
            (
                #"{"durationSeconds": 1, "events": [{"atSeconds": 0.5, "activeFormat": 4032}]}"#, "events[0].activeFormat",
                "a format listing 9x16: 1280, 1920, 3840"
            ), (#"{"durationSeconds": 1, "events": [{"atSeconds": 0.5, "smartFraming": "pause"}]}"#, "events[0].smartFraming", "start, stop"),
            (
                #"{"durationSeconds": 1, "initialDeviceOrientation": "faceUp"}"#, "initialDeviceOrientation",
                "portrait, landscapeLeft, portraitUpsideDown, landscapeRight"
            ), (#"{"durationSeconds": 1, "centerStageControlMode": "os"}"#, "centerStageControlMode", "user, app, cooperative"),
            (
                #"{"durationSeconds": 1, "events": [{"atSeconds": 0.5, "centerStageEnabled": true}]}"#, "events[0].centerStageEnabled",
                "\"centerStageControlMode\": app or cooperative"
            )
        ]) func errors(_ json: String, _ key: String, _ allowed: String)
    {
        do {
            _ = try F.scenario(json)
            Issue.record("\(json) was accepted")
        } catch {
            #expect(error.key == key)
            #expect(error.allowed == allowed)
            #expect(error.description.contains("orientation-test.json"))
        }
    }

    @Test("a cameras scenario: activeFormat must be some camera's format, listed per camera") func camerasFormatErrors() {
        let json = DuoFixtures.individual(start: "1.0", events: #"{"atSeconds": 0.2, "activeFormat": 4032}"#)
        #expect(throws: ScenarioError.self) { _ = try DuoFixtures.scenario(json) }
        do { _ = try DuoFixtures.scenario(json) } catch {
            #expect(error.key == "events[0].activeFormat")
            #expect(error.allowed == "outer: 1280, 1920, 3840; inner: 1280, 1920; back: 1920x1080, 3840x2160")
        }
    }

    @Test("active Center Stage zooms inside the ratio: zoom drawn, logged, never a segment") func centerStageZoomDoesNotSplit() async throws {
        // call-low-latency-center-stage: lowLatency (latency 1), Center Stage on (cooperative),
        // people 1 → zoom 1.5, 2 → 1.2, off → 1.0, on → 1.2; one ratio change (16x9).
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SampleStreams/orientation/call-low-latency-center-stage.json")
        let scenario = try Scenario.load(contentsOf: url)
        let (dir, m) = try await F.record(scenario)
        #expect(m.segments.count == 2)  // only the 16x9 request starts a segment
        #expect(m.segments.map(\.startReason) == [.recordingStarted, .dimensionsChanged])
        #expect(m.segments.map(\.frameCount) == [47, 14])
        let zooms = (m.events ?? []).filter { $0.kind == .zoomChanged }
        #expect(zooms.map(\.to) == ["1.5", "1.2", "1.0", "1.2"])
        #expect(zooms.map(\.frameIndex) == [7, 19, 28, 37])
        #expect((m.events ?? []).filter { $0.kind == .centerStageActiveChanged }.map(\.to) == ["false", "true"])
        let device = try #require(m.devices.first)
        #expect(device.preferredVideoStabilizationMode == "lowLatency" && device.changeLatencyFrames == 1)
        #expect(device.centerStageEnabled == true && device.centerStageControlMode == "cooperative")
        #expect(device.isCenterStageSupported == true && device.isCenterStageActive == true)
        // The zoom is in the pictures, the stamp still reads: every index, in order.
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-000.mp4")) == Array(0..<47))
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-001.mp4")) == Array(47..<61))
    }

    @Test("a drawn zoom changes the picture below the stamp rows, not the stamp") func zoomIsDrawn() throws {
        let json = """
            {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "1x1"}, "durationSeconds": 0.2,
             "events": [{"atSeconds": 0.1, "videoZoomFactor": 2.0}]}
            """
        let zoomed = F.frames(try F.run(try CaptureSession(scenario: try F.scenario(json))))
        let plain = F.frames(try F.run(try CaptureSession(scenario: try F.scenario(json.replacingOccurrences(of: "2.0", with: "1.0")))))
        #expect(zoomed.count == 6 && plain.count == 6)
        // Frames 0–2 come before the zoom: identical; frames 3–5 differ below row 32 only.
        for i in 0..<6 {
            let a = zoomed[i].pixelBuffer
            let b = plain[i].pixelBuffer
            #expect(a.lumaBytesPerRow == b.lumaBytesPerRow)
            let top = 0..<(32 * a.lumaBytesPerRow)
            let rest = (32 * a.lumaBytesPerRow)..<(1280 * a.lumaBytesPerRow)
            #expect(a.lumaPlane[top] == b.lumaPlane[top])
            #expect((a.lumaPlane[rest] == b.lumaPlane[rest]) == (i < 3))
        }
    }

    @Test("smart framing: start enables every supported framing (the seeds' start()); started late with a subset, only those framings are recommended")
    func smartFramingControls() throws {
        let base = """
            {"device": {"format": 4032, "fps": 15, "initialAspectRatio": "3x4"ENABLED}, "durationSeconds": 2.0,
             "events": [{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.5, "smartFraming": "start"},
                        {"atSeconds": 0.6, "peopleInFrame": 1}, {"atSeconds": 0.9, "peopleInFrame": 3},
                        {"atSeconds": 1.2, "smartFraming": "stop"}, {"atSeconds": 1.5, "peopleInFrame": 2}]}
            """
        // No enabledFramings: start() enables all; the person already in frame at the start
        // (narrow3x4, applied), seen again at 0.6 s (recommended again, already in effect),
        // 3 people (wide4x3) at 0.9 s.
        let all = try F.run(try CaptureSession(scenario: try F.scenario(base.replacingOccurrences(of: "ENABLED", with: ""))))
        #expect(F.records(all, .smartFramingRecommended).map(\.to) == ["narrow3x4", "narrow3x4", "wide4x3"])
        #expect(F.records(all, .smartFramingRecommended).map { $0.message?.components(separatedBy: "; ").last } == ["applied", "already in effect", "applied"])
        #expect(F.records(all, .smartFramingChanged).map(\.to) == ["start", "stop"])
        #expect(Set(F.frames(all).map(\.dimensions)) == [VideoDimensions(width: 3024, height: 4032), VideoDimensions(width: 4032, height: 3024)])
        // The zoom of each recommendation lands on the first frame of its ratio (the seeds'
        // code awaits setDynamicAspectRatio, then sets videoZoomFactor).
        let frames = F.frames(all)
        let firstLandscape = try #require(frames.firstIndex { $0.dimensions == VideoDimensions(width: 4032, height: 3024) })
        let zooms = F.records(all, .zoomChanged)
        #expect(zooms.last?.to == "1.0" && zooms.last?.frameIndex == Int64(firstLandscape))
        // Only wide4x3 enabled: 1 person (narrow3x4) before the start and after nothing; 3 → wide4x3.
        let some = try F.run(try CaptureSession(scenario: try F.scenario(base.replacingOccurrences(of: "ENABLED", with: #", "enabledFramings": ["wide4x3"]"#))))
        #expect(F.records(some, .smartFramingRecommended).map(\.to) == ["wide4x3"])
        #expect(F.records(some, .smartFramingRecommended).first?.sessionTime == F.ns(1_900_000_000))
        #expect(F.frames(some).last?.dimensions == VideoDimensions(width: 4032, height: 3024))
    }

    @Test("smartFraming start on 1920 makes 4032 active first (3x4 for a portrait ratio); a ratio the format lacks fails at its time and the session goes on")
    func smartFramingStartAndFailedRequest() throws {
        let json = """
            {"device": {"format": 1920, "fps": 15, "initialAspectRatio": "9x16"}, "durationSeconds": 2.0,
             "events": [{"atSeconds": 0.5, "smartFraming": "start"}, {"atSeconds": 1.0, "peopleInFrame": 3},
                        {"atSeconds": 1.5, "setDynamicAspectRatio": "16x9"}]}
            """
        let scenario = try F.scenario(json)
        try scenario.validate(file: "start.json")
        let events = try F.run(try CaptureSession(scenario: scenario))
        let sizes = F.frames(events).map(\.dimensions)
        #expect(sizes.first == VideoDimensions(width: 1080, height: 1920))
        #expect(sizes.contains(VideoDimensions(width: 3024, height: 4032)))
        #expect(sizes.last == VideoDimensions(width: 4032, height: 3024))
        #expect(F.records(events, .activeFormatChanged).map(\.to) == ["4032@15"])
        #expect(F.records(events, .smartFramingRecommended).map(\.to) == ["wide4x3"])
        let failed = F.records(events, .aspectRatioRequestFailed)
        #expect(failed.count == 1 && failed.first?.to == "16x9" && failed.first?.message?.contains("unsupportedRatio") == true)
        #expect(events.contains { if case .warning(let w) = $0 { w.contains("unsupportedRatio") } else { false } })
        #expect(!sizes.contains(VideoDimensions(width: 1920, height: 1080)))
    }
}
