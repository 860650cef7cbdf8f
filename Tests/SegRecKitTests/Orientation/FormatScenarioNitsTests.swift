import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Scenario spelling details around formats and framings: the `WxH` name `segrec formats`
/// prints for a square format, numbers echoed as written, duplicate framings.
@Suite("Orientation: format and framing spellings", .tags(.cameras)) struct FormatScenarioNitsTests {
    typealias F = OrientationFixtures

    @Test("activeFormat \"1920x1920\" is the square 1920 format: 1280 16x9 → 1920x1080 after the gap") func squareWxHName() throws {
        // ts 24e6, offset 0, 30 fps, start 1 s: switch at 1.2e9 → frames 0…5 old (T(6) = 1.2e9);
        // D0' = ceil(to_dev(1.45e9)) = 34 800 000, new frames 1.45e9 + j·1e9/30 < 2e9: j = 0…16.
        let scenario = try F.scenario(
            """
            {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "16x9",
                        "clock": {"timescale": 24000000, "offsetSeconds": 0, "driftPPM": 0}},
             "sessionStartSeconds": 1.0, "durationSeconds": 1.0, "events": [{"atSeconds": 0.2, "activeFormat": "1920x1920"}]}
            """)
        #expect(scenario.events.first?.action == .activeFormat("1920"))
        let frames = F.frames(try F.run(try CaptureSession(scenario: scenario)))
        #expect(frames.count == 23)
        #expect(frames[5].dimensions == VideoDimensions(width: 1280, height: 720))
        #expect(frames[6].dimensions == VideoDimensions(width: 1920, height: 1080))
        #expect(frames[6].deviceTime == MediaTime(value: 34_800_000, timescale: 24_000_000))
        // A non-square WxH is not a front format; numbers are echoed as written, not quoted.
        #expect(
            throws: ScenarioError(
                file: "orientation-test.json", key: "events[0].activeFormat", problem: "1920x1080 is not a format of the front camera",
                allowed: "1280, 1920, 3840, 4032")
        ) { _ = try F.scenario(#"{"durationSeconds": 1, "events": [{"atSeconds": 0.2, "activeFormat": "1920x1080"}]}"#) }
        #expect(
            throws: ScenarioError(
                file: "orientation-test.json", key: "events[0].activeFormat", problem: "-1280 is not a format of the front camera",
                allowed: "1280, 1920, 3840, 4032")
        ) { _ = try F.scenario(#"{"durationSeconds": 1, "events": [{"atSeconds": 0.2, "activeFormat": -1280}]}"#) }
    }

    @Test("a framing listed twice in enabledFramings is an error naming both positions") func duplicateFraming() throws {
        #expect(
            throws: ScenarioError(
                file: "orientation-test.json", key: "device.enabledFramings[2]", problem: "wide3x4 is listed twice (also device.enabledFramings[0])",
                allowed: "each framing once: wide3x4, narrow3x4, wide4x3, narrow4x3")
        ) {
            _ = try F.scenario(
                """
                {"device": {"format": 4032, "initialAspectRatio": "3x4", "enabledFramings": ["wide3x4", "narrow3x4", "wide3x4"]},
                 "durationSeconds": 1}
                """)
        }
    }
}
