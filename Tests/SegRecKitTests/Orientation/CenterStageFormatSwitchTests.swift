import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Center Stage's zoom across an `activeFormat` switch, and `peopleInFrame` as a fact about
/// the scene (accepted on any format at any time; it acts only where Center Stage is active
/// or smart framing runs).
@Suite("Orientation: Center Stage across format switches, peopleInFrame anywhere", .tags(.cameras)) struct CenterStageFormatSwitchTests {
    typealias F = OrientationFixtures

    /// Runs `session`, returning its events and, per delivered frame, the zoom factor its
    /// ``ZoomingImageSource`` drew the picture with.
    static func runWithZoom(_ session: CaptureSession) throws -> ([CaptureOutputEvent], [Double]) {
        var events: [CaptureOutputEvent] = []
        var zooms: [Double] = []
        while let event = try session.next() {
            events.append(event)
            if case .frame = event { zooms.append(try #require(session.output.frameSource as? ZoomingImageSource).videoZoomFactor) }
        }
        return (events, zooms)
    }

    /// 1920 4x3, Center Stage on (cooperative), 1 person at 0.1 s; activeFormat 3840 at 0.5 s
    /// (Center Stage unsupported there); the app turns it off at 1.0 s and on at 1.2 s.
    static let deactivates = """
        {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "4x3",
                    "clock": {"timescale": 24000000, "offsetSeconds": 0.1, "driftPPM": 0}},
         "centerStageEnabled": true, "centerStageControlMode": "cooperative",
         "sessionStartSeconds": 1.0, "durationSeconds": 1.6,
         "events": [{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.5, "activeFormat": 3840},
                    {"atSeconds": 1.0, "centerStageEnabled": false}, {"atSeconds": 1.2, "centerStageEnabled": true}]}
        """

    @Test("a switch to 3840 makes Center Stage inactive: zoom 1.0 from the first 3840 frame, logged there") func zoomEndsWithCenterStage() throws {
        // to_dev(h) = (h/1e9 + 0.1) · 24e6; D0 = 26 400 000, D(i) = D0 + 800 000 i, T(i) = 1e9 + i·1e9/30.
        // 1 person at 1.1e9 = T(3): zoom 1.5 from frame 3. Switch at 1.5e9: frames 0…14 old (T(15) = 1.5e9).
        // D0' = ceil(to_dev(1.75e9)) = 1.85 · 24e6 = 44 400 000 (T = 1.75e9), frame 15; new frames
        // while 1.75e9 + j·1e9/30 < 2.6e9: j = 0…25, frames 15…40.
        let session = try CaptureSession(scenario: try F.scenario(Self.deactivates))
        let (events, zooms) = try Self.runWithZoom(session)
        #expect(zooms == Array(repeating: 1.0, count: 3) + Array(repeating: 1.5, count: 12) + Array(repeating: 1.0, count: 26))
        let frames = F.frames(events)
        #expect(frames[15].dimensions == VideoDimensions(width: 3840, height: 2880))
        let zoomChanges = F.records(events, .zoomChanged)
        #expect(zoomChanges.map(\.frameIndex) == [3, 15])
        #expect(zoomChanges.map(\.to) == ["1.5", "1.0"])
        let off = try #require(zoomChanges.last)
        #expect(off.from == "1.5" && off.sessionTime == F.ns(1_750_000_000))
        #expect(off.deviceTime == MediaTime(value: 44_400_000, timescale: 24_000_000))
        #expect(off.message == "Center Stage inactive on format 3840")
        let active = F.records(events, .centerStageActiveChanged)
        #expect(active.map(\.frameIndex) == [15] && active.first?.to == "false")
        #expect(session.device.videoZoomFactor == 1.0)
    }

    /// 3840 16x9, Center Stage enabled (inactive: 3840 does not support it), activeFormat 1920
    /// at 0.2 s (active there), 2 people at 0.6 s.
    static let activates = """
        {"device": {"format": 3840, "fps": 30, "initialAspectRatio": "16x9",
                    "clock": {"timescale": 24000000, "offsetSeconds": 0, "driftPPM": 0}},
         "centerStageEnabled": true, "centerStageControlMode": "app",
         "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.2, "activeFormat": 1920}, {"atSeconds": 0.6, "peopleInFrame": 2}]}
        """

    @Test("peopleInFrame after a switch to 1920 (Center Stage now active) is accepted and zooms 1.2") func peopleAfterSwitchToCenterStageFormat() throws {
        // D(i) = 24e6 + 800 000 i; switch at 1.2e9: frames 0…5 (T(6) = 1.2e9). D0' = ceil(to_dev(1.45e9))
        // = 34 800 000, frame 6. 2 people at 1.6e9: first new frame at/after it j = 5 (1.45e9 + 5e9/30 =
        // 1 616 666 667), frame 11, D = 34 800 000 + 4 000 000. New frames while < 2e9: j = 0…16, 23 in all.
        let session = try CaptureSession(scenario: try F.scenario(Self.activates))
        let (events, zooms) = try Self.runWithZoom(session)
        #expect(zooms == Array(repeating: 1.0, count: 11) + Array(repeating: 1.2, count: 12))
        let zoom = F.records(events, .zoomChanged)
        #expect(zoom.map(\.frameIndex) == [11] && zoom.first?.sessionTime == F.ns(1_616_666_667))
        #expect(zoom.first?.deviceTime == MediaTime(value: 38_800_000, timescale: 24_000_000))
        #expect(zoom.first?.message == "Center Stage framing 2 people")
        #expect(F.records(events, .centerStageActiveChanged).map(\.frameIndex) == [6])
    }

    @Test("peopleInFrame where neither Center Stage nor smart framing acts is accepted and changes nothing") func peopleWithoutEffect() throws {
        // 3840 with Center Stage enabled but unsupported: 30 frames (T(i) = 1e9 + i·1e9/30 < 2e9), none zoomed.
        let scenario = try F.scenario(
            """
            {"device": {"format": 3840, "fps": 30, "initialAspectRatio": "16x9",
                        "clock": {"timescale": 24000000, "offsetSeconds": -1.0, "driftPPM": 0}},
             "centerStageEnabled": true, "centerStageControlMode": "app", "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
             "events": [{"atSeconds": 0.2, "peopleInFrame": 1}]}
            """)
        let (events, zooms) = try Self.runWithZoom(try CaptureSession(scenario: scenario))
        #expect(zooms == Array(repeating: 1.0, count: 30))
        #expect(F.records(events, .zoomChanged).isEmpty)
        // A cameras scenario without Center Stage: accepted too.
        _ = try F.scenario(
            """
            {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 30},
                         {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30}],
             "frontCamera": "individual", "initialPosture": "closed", "durationSeconds": 1.0,
             "events": [{"atSeconds": 0.5, "peopleInFrame": 3}]}
            """)
        // Only a bad count is an error, naming the range and both uses.
        #expect(throws: CaptureError.invalidParameter(name: "peopleInFrame", value: "-1", allowed: CaptureSession.peopleInFrameAllowed)) {
            _ = try CaptureSession(
                device: try CaptureTestSupport.plainDevice(), sessionStart: F.ns(1_000_000_000), duration: F.ns(1_000_000_000),
                events: [.init(hostTime: F.ns(1_000_000_000), action: .peopleInFrame(-1))])
        }
        do {
            _ = try F.scenario(#"{"durationSeconds": 2, "events": [{"atSeconds": 1, "peopleInFrame": 101}]}"#)
            Issue.record("peopleInFrame 101 was accepted")
        } catch {
            #expect(error.key == "events[0].peopleInFrame" && error.problem == "101 is out of range")
            #expect(error.allowed.hasPrefix("an integer, 0...100") && error.allowed.contains("Center Stage's zoom") && error.allowed.contains("smart framing"))
            #expect(!error.description.contains("device.smartFraming"))
        }
    }
}
