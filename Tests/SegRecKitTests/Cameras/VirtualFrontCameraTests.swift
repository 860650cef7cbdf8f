import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Cameras: Virtual Front Camera", .tags(.cameras)) struct VirtualFrontCameraTests {
    typealias F = DuoFixtures

    static let json = """
        {"cameras": [
          {"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 3840,
           "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
          {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1920,
           "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}}],
         "frontCamera": "virtual",
         "virtual": {"format": 1280, "fps": 30, "clock": {"timescale": 48000, "offsetSeconds": 100.125, "driftPPM": 35}},
         "initialPosture": "closed", "initialAspectRatio": "9x16", "changeLatencyFrames": 2,
         "sessionStartSeconds": 2.0, "durationSeconds": 3.0,
         "events": [{"atSeconds": 0.8, "posture": "open"}, {"atSeconds": 2.2, "posture": "closed"}]}
        """

    @Test("posture changes swap the constituent on the virtual clock with no gap and no size change") func swaps() throws {
        // Virtual clock ts 48000, offset 100.125 s, +35 ppm, 30 fps, start 2.0 s (Python fractions):
        //   open at 2.8 s: k = min i: D(i) ≥ to_dev(2.8e9) + 2·48000/30 = 27, D(27) = 4945372, T(27) = 2899977459
        //   closed at 4.2 s: k = 69, D(69) = 5012572, T(69) = 4299928461
        let events = try F.run(try CaptureSession(scenario: try F.scenario(Self.json)))
        let frames = F.frames(events)
        #expect(frames.allSatisfy { $0.camera?.id == "virtualFront" && $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(
            frames.map { $0.producer ?? "?" } == Array(repeating: "outer", count: 27) + Array(repeating: "inner", count: 42)
                + Array(repeating: "outer", count: frames.count - 69))
        // No gap: consecutive virtual frames throughout.
        for (a, b) in zip(frames, frames.dropFirst()) { #expect(try a.sessionTime.adding(a.duration) == b.sessionTime) }
        let swaps = F.records(events, .constituentSwapped)
        #expect(swaps.map(\.frameIndex) == [27, 69])
        #expect(swaps.map(\.deviceTime) == [F.t(4_945_372, 48_000), F.t(5_012_572, 48_000)])
        #expect(swaps.map(\.sessionTime) == [F.t(2_899_977_459), F.t(4_299_928_461)])
        #expect(swaps.map(\.to) == ["inner", "outer"])
        #expect(F.records(events, .cameraSwitched).isEmpty)
    }

    @Test("a virtual format above the shared limits is an error that says to use individual cameras") func limits() {
        for (from, to, key) in [
            ("\"format\": 1280, \"fps\": 30", "\"format\": 3840, \"fps\": 30", "virtual.format"),
            ("\"format\": 1280, \"fps\": 30", "\"format\": 1280, \"fps\": 120", "virtual.fps")
        ] {
            do throws(ScenarioError) {
                _ = try F.scenario(Self.json.replacingOccurrences(of: from, with: to))
                Issue.record("\(to) was accepted")
            } catch {
                #expect(error.key == key)
                #expect(error.allowed.contains("1280 or 1920") && error.allowed.contains("\"frontCamera\": \"individual\""))
                #expect(error.file == "duo-test.json")
            }
        }
    }
}
