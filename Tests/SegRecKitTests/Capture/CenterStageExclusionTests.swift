import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Center Stage excludes depth data delivery and geometric distortion correction (the
/// seeds); both are switchable per camera, depth never on the Virtual Front Camera
/// (issue 24 row 10).
@Suite("Capture: depth and distortion correction make Center Stage inactive", .tags(.capture)) struct CenterStageExclusionTests {
    /// One person in frame, Center Stage on (cooperative): zoom 1.5 from frame 3; the feature
    /// is turned on at 0.5 s (frame 15 on this 90 kHz, 30 fps clock) and off at 0.8 s (frame 24).
    static func scenario(_ key: String, startOn: Bool = false) -> String {
        """
        {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16", "\(key)": \(startOn),
                    "clock": {"timescale": 90000, "offsetSeconds": 0.5, "driftPPM": 0}},
         "centerStageControlMode": "cooperative", "centerStageEnabled": true,
         "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.5, "\(key)": true}, {"atSeconds": 0.8, "\(key)": false}]}
        """
    }

    static func run(_ json: String) throws -> [CaptureOutputEvent] {
        try DuoFixtures.run(try CaptureSession(scenario: try Scenario.decode(Data(json.utf8), file: "exclusion.json")))
    }

    @Test(
        "turning the feature on stops Center Stage's framing from the next frame; off resumes it",
        arguments: [
            ("depthDataDeliveryEnabled", SessionEventRecord.Kind.depthDataDeliveryChanged, "depth data delivery"),
            ("geometricDistortionCorrectionEnabled", .geometricDistortionCorrectionChanged, "geometric distortion correction")
        ]) func featureTogglesCenterStage(key: String, kind: SessionEventRecord.Kind, name: String) throws
    {
        let events = try Self.run(Self.scenario(key))
        let changes = DuoFixtures.records(events, kind)
        #expect(changes.map(\.to) == ["true", "false"])
        #expect(changes.map(\.message) == ["Center Stage inactive while \(name) is on (they are mutually exclusive)", "Center Stage active again"])
        let zooms = DuoFixtures.records(events, .zoomChanged)
        #expect(zooms.map(\.to) == ["1.5", "1.0", "1.5"])
        #expect(zooms.map(\.frameIndex) == [3, 15, 24])
        #expect(zooms[1].message == "Center Stage inactive: \(name) on")
        let active = DuoFixtures.records(events, .centerStageActiveChanged)
        #expect(active.map(\.to) == ["false", "true"] && active.map(\.frameIndex) == [15, 24])
    }

    @Test("a camera that starts with depth on: Center Stage inactive at start (manifest devices), no framing until it is off") func startsWithDepth() throws {
        let json = Self.scenario("depthDataDeliveryEnabled", startOn: true).replacingOccurrences(
            of: #"{"atSeconds": 0.5, "depthDataDeliveryEnabled": true}, "#, with: "")
        let scenario = try Scenario.decode(Data(json.utf8), file: "exclusion.json")
        let info = try #require(scenario.deviceControls["front"])
        #expect(info.isCenterStageSupported && !info.isCenterStageActive && info.isDepthDataDeliveryEnabled)
        let events = try DuoFixtures.run(try CaptureSession(scenario: scenario))
        #expect(DuoFixtures.records(events, .zoomChanged).map(\.frameIndex) == [24])
        #expect(DuoFixtures.records(events, .depthDataDeliveryChanged).map(\.to) == ["false"])
    }

    @Test("the Virtual Front Camera refuses depth, at start and as an event, naming individual cameras") func virtualHasNoDepth() throws {
        let base = DuoFixtures.virtualized(
            DuoFixtures.individual(start: "1.0", events: ""),
            virtual: #""format": 1280, "fps": 30, "clock": {"timescale": 48000, "offsetSeconds": 2, "driftPPM": 5}"#)
        let atStart = base.replacingOccurrences(of: #""virtual": {"format": 1280,"#, with: #""virtual": {"depthDataDeliveryEnabled": true, "format": 1280,"#)
        #expect { _ = try Scenario.decode(Data(atStart.utf8), file: "virtual.json") } throws: {
            ($0 as? ScenarioError)?.key == "virtual.depthDataDeliveryEnabled"
        }
        let asEvent = base.replacingOccurrences(of: #""events": []"#, with: #""events": [{"atSeconds": 0.2, "depthDataDeliveryEnabled": true}]"#)
        #expect { _ = try Scenario.decode(Data(asEvent.utf8), file: "virtual.json") } throws: { error in
            guard let error = error as? ScenarioError else { return false }
            return error.key == "events[0].depthDataDeliveryEnabled" && error.allowed.contains("\"frontCamera\": \"individual\"")
        }
        // Individual Duo cameras take depth (the outer camera here).
        let individual = DuoFixtures.individual(start: "1.0", events: #"{"atSeconds": 0.2, "depthDataDeliveryEnabled": true}"#)
        let events = try DuoFixtures.run(try CaptureSession(scenario: try DuoFixtures.scenario(individual)))
        #expect(DuoFixtures.records(events, .depthDataDeliveryChanged).map(\.camera) == ["outer"])
    }
}
