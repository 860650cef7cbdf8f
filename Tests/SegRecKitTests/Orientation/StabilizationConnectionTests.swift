import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Stabilization is the video connection's, checked against the active format, `off` when
/// unset as on `AVCaptureConnection` (issue 24 row 7).
@Suite("Orientation: the connection's stabilization mode", .tags(.capture)) struct StabilizationConnectionTests {
    static func decode(_ json: String) throws -> Scenario { try Scenario.decode(Data(json.utf8), file: "stab.json") }

    @Test("no mode named: the connection stabilizes with off; the change latency stays the model's 2 frames") func unsetIsOff() throws {
        let scenario = try Self.decode(#"{"device": {"format": 1920, "fps": 30}, "durationSeconds": 0.2}"#)
        let info = try #require(scenario.deviceControls["front"])
        #expect(info.preferredVideoStabilizationMode == nil && info.activeVideoStabilizationMode == .off && info.changeLatencyFrames == 2)
        let named = try Self.decode(#"{"device": {"format": 1920, "fps": 30, "preferredVideoStabilizationMode": "cinematic"}, "durationSeconds": 0.2}"#)
        #expect(named.deviceControls["front"]?.activeVideoStabilizationMode == .cinematic)
        #expect(named.deviceControls["front"]?.changeLatencyFrames == 3)
    }

    @Test("lowLatency is checked against the active format: 1280 and 1920 take it, 3840 and 4032 name what they support") func checkedAgainstFormat() throws {
        for side in [1280, 1920] {
            let ok = try Self.decode(#"{"device": {"format": \#(side), "fps": 30, "preferredVideoStabilizationMode": "lowLatency"}, "durationSeconds": 0.2}"#)
            #expect(ok.deviceControls["front"]?.activeVideoStabilizationMode == .lowLatency)
        }
        for side in [3840, 4032] {
            let json =
                #"{"device": {"format": \#(side), "fps": 30, "initialAspectRatio": "3x4", "preferredVideoStabilizationMode": "lowLatency"}, "durationSeconds": 0.2}"#
            #expect { _ = try Self.decode(json) } throws: { error in
                guard let error = error as? ScenarioError else { return false }
                return error.key == "device.preferredVideoStabilizationMode"
                    && error.problem == "lowLatency is not supported by the \(side) format of builtInUltraWideCamera"
                    && error.allowed.hasPrefix("off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced (")
            }
        }
    }

    @Test("a switch to a format without the preferred mode falls back to off, and back; each logged at the new format's first frame")
    func formatSwitchFallsBack() throws {
        let json = """
            {"device": {"format": 1920, "fps": 30, "preferredVideoStabilizationMode": "lowLatency",
                        "clock": {"timescale": 90000, "offsetSeconds": 0.5, "driftPPM": 0}},
             "switchGapSeconds": 0.1, "durationSeconds": 1.2,
             "events": [{"atSeconds": 0.2, "activeFormat": 3840}, {"atSeconds": 0.7, "activeFormat": 1920}]}
            """
        let events = try DuoFixtures.run(try CaptureSession(scenario: try Self.decode(json)))
        let changes = DuoFixtures.records(events, .videoStabilizationModeChanged)
        #expect(changes.map(\.from) == ["lowLatency", "off"] && changes.map(\.to) == ["off", "lowLatency"])
        // Logged at the end of each 0.1 s reconfiguration gap (session start 1.0 s).
        #expect(
            changes.map(\.sessionTime) == [MediaTime(value: 1_300_000_000, timescale: 1_000_000_000), MediaTime(value: 1_800_000_000, timescale: 1_000_000_000)]
        )
        #expect(changes.first?.message == "format 3840 does not support the preferred lowLatency: the connection stabilizes with off; change latency 1 frames")
        #expect(changes.last?.message == "format 1920 supports the preferred lowLatency again; change latency 1 frames")
    }

    @Test("cinematic on every format: a switch changes nothing") func supportedEverywhere() throws {
        let json = """
            {"device": {"format": 1920, "fps": 30, "preferredVideoStabilizationMode": "cinematic"},
             "durationSeconds": 0.8, "events": [{"atSeconds": 0.2, "activeFormat": 3840}]}
            """
        #expect(DuoFixtures.records(try DuoFixtures.run(try CaptureSession(scenario: try Self.decode(json))), .videoStabilizationModeChanged).isEmpty)
    }
}
