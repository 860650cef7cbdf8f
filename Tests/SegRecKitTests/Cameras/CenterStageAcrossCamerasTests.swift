import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Center Stage is one state per process (the seeds): once active it frames every camera
/// that supports it, so a camera switch keeps the framing where the new camera supports it
/// and the log says why a zoom changed.
@Suite("Cameras: Center Stage across a camera switch", .tags(.cameras)) struct CenterStageAcrossCamerasTests {
    typealias F = DuoFixtures

    /// outer (1280) → inner (1280) at 0.4 s → back at 1.0 s (1.4 s long), Center Stage enabled by the app,
    /// one person in frame from 0.1 s.
    static let json = F.individual(
        start: "1.0",
        events: #"{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.4, "posture": "open"}, {"atSeconds": 1.0, "posture": "openOuterDisplay"}"#, duration: "1.4"
    ).replacingOccurrences(of: #""frontCamera": "individual","#, with: #""frontCamera": "individual", "centerStageControlMode": "app", "centerStageEnabled": true,"#)

    @Test("outer → inner keeps the 1.5 framing from inner's first frame; the back camera shows its own 1.0, saying why")
    func framingFollowsTheSwitch() throws {
        let events = try F.run(try CaptureSession(scenario: try F.scenario(Self.json)))
        let frames = F.frames(events)
        let zooms = F.records(events, .zoomChanged)
        let firstInner = try #require(frames.first { $0.camera?.id == "inner" })
        let firstBack = try #require(frames.first { $0.camera?.id == "back" })
        // 1.5 on outer at the count, no change at the switch to inner, 1.0 on back.
        #expect(zooms.map(\.to) == ["1.5", "1.0"])
        #expect(zooms.map(\.camera) == ["outer", "back"])
        #expect(zooms.last?.frameIndex == firstBack.index)
        #expect(zooms.last?.message == "camera switched from inner to back (its own zoom; Center Stage not supported there)")
        #expect(!zooms.contains { $0.frameIndex == firstInner.index })
        // No camera's own active state changed (each camera's first frame sets its baseline).
        #expect(F.records(events, .centerStageActiveChanged).isEmpty)
    }

    @Test("Center Stage off: the switch shows the new camera's own zoom, no framing carried") func offKeepsOwnZoom() throws {
        let json = Self.json.replacingOccurrences(of: #""centerStageEnabled": true"#, with: #""centerStageEnabled": false"#)
            .replacingOccurrences(of: #"{"atSeconds": 0.1, "peopleInFrame": 1}"#, with: #"{"atSeconds": 0.1, "videoZoomFactor": 2.0}"#)
        let events = try F.run(try CaptureSession(scenario: try F.scenario(json)))
        let zooms = F.records(events, .zoomChanged)
        #expect(zooms.map(\.to) == ["2.0", "1.0"])
        #expect(zooms.map(\.camera) == ["outer", "inner"])
        #expect(zooms.last?.message == "camera switched from outer to inner (its own zoom; Center Stage off)")
    }
}
