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
        events: #"{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.4, "posture": "open"}, {"atSeconds": 1.0, "posture": "openOuterDisplay"}"#,
        duration: "1.4"
    ).replacingOccurrences(
        of: #""frontCamera": "individual","#, with: #""frontCamera": "individual", "centerStageControlMode": "app", "centerStageEnabled": true,"#)

    @Test("outer → inner keeps the 1.5 framing from inner's first frame; the back camera shows its own 1.0, saying why") func framingFollowsTheSwitch() throws {
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
        let json = Self.json.replacingOccurrences(of: #""centerStageEnabled": true"#, with: #""centerStageEnabled": false"#).replacingOccurrences(
            of: #"{"atSeconds": 0.1, "peopleInFrame": 1}"#, with: #"{"atSeconds": 0.1, "videoZoomFactor": 2.0}"#)
        let events = try F.run(try CaptureSession(scenario: try F.scenario(json)))
        let zooms = F.records(events, .zoomChanged)
        #expect(zooms.map(\.to) == ["2.0", "1.0"])
        #expect(zooms.map(\.camera) == ["outer", "inner"])
        #expect(zooms.last?.message == "camera switched from outer to inner (its own zoom; Center Stage off)")
    }
}

/// The person's Control Center toggle (`userCenterStageEnabled`), honoured or ignored by
/// `centerStageControlMode` as the seeds describe: the app reflects the real state.
@Suite("Capture: the user's Center Stage toggle", .tags(.capture)) struct UserCenterStageToggleTests {
    static func scenario(mode: String, enabled: Bool) -> String {
        """
        {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16",
                    "clock": {"timescale": 90000, "offsetSeconds": 0.5, "driftPPM": 0}},
         "centerStageControlMode": "\(mode)", "centerStageEnabled": \(enabled),
         "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.5, "userCenterStageEnabled": \(!enabled)}]}
        """
    }

    static func run(mode: String, enabled: Bool) throws -> [CaptureOutputEvent] {
        try DuoFixtures.run(try CaptureSession(scenario: try Scenario.decode(Data(scenario(mode: mode, enabled: enabled).utf8), file: "toggle.json")))
    }

    @Test("user and cooperative modes: the toggle turns Center Stage off (zoom back to 1.0) or on (framing 1.5)", arguments: ["user", "cooperative"])
    func honoured(mode: String) throws {
        let off = try Self.run(mode: mode, enabled: true)
        let changed = DuoFixtures.records(off, .centerStageEnabledChanged)
        #expect(changed.map(\.to) == ["false"] && changed.map(\.message) == ["by the user (Control Center)"])
        #expect(changed.first?.sessionTime == MediaTime(value: 1_500_000_000, timescale: 1_000_000_000))
        let zooms = DuoFixtures.records(off, .zoomChanged)
        #expect(zooms.map(\.to) == ["1.5", "1.0"])
        #expect(zooms.last?.message == "Center Stage turned off by the user")
        // Frame 15 (0.5 s at 30 fps on a 90 kHz clock) is the first captured at or after the toggle.
        #expect(zooms.last?.frameIndex == 15)
        let on = try Self.run(mode: mode, enabled: false)
        #expect(DuoFixtures.records(on, .centerStageEnabledChanged).map(\.to) == ["true"])
        #expect(DuoFixtures.records(on, .zoomChanged).map(\.to) == ["1.5"])
        #expect(DuoFixtures.records(on, .zoomChanged).first?.frameIndex == 15)
    }

    @Test("app mode: the user's toggle is ignored and logged as ignored; the framing stays") func ignoredInAppMode() throws {
        let events = try Self.run(mode: "app", enabled: true)
        #expect(DuoFixtures.records(events, .centerStageEnabledChanged).isEmpty)
        let ignored = DuoFixtures.records(events, .centerStageToggleIgnored)
        #expect(ignored.map(\.to) == ["false"] && ignored.map(\.from) == ["true"])
        #expect(ignored.first?.message == "the user's Control Center toggle is ignored: centerStageControlMode is app")
        #expect(DuoFixtures.records(events, .zoomChanged).map(\.to) == ["1.5"])
    }

    @Test("the key is read as a boolean; anything else names the key") func badValue() throws {
        let json = Self.scenario(mode: "user", enabled: true).replacingOccurrences(
            of: #""userCenterStageEnabled": false"#, with: #""userCenterStageEnabled": "off""#)
        #expect { _ = try Scenario.decode(Data(json.utf8), file: "toggle.json") } throws: { error in
            guard let error = error as? ScenarioError else { return false }
            return error.key == "events[1].userCenterStageEnabled" && error.allowed == "true or false"
        }
    }
}

/// Discovery on iPhone Duo (issue 24 row 9): `.front` ultra-wide yields the Virtual Front
/// Camera; the individual cameras are asked for by type.
@Suite("Cameras: discovering the front camera", .tags(.cameras)) struct FrontCameraDiscoveryTests {
    @Test("Duo: .front builtInUltraWideCamera discovers virtualFront; by type, outer and inner; a single front camera is itself") func discovery() throws {
        let json = DuoFixtures.virtualized(
            DuoFixtures.individual(start: "1.0", events: ""),
            virtual: #""format": 1280, "fps": 30, "clock": {"timescale": 48000, "offsetSeconds": 2, "driftPPM": 5}"#)
        let scenario = try DuoFixtures.scenario(json)
        let phone = try scenario.makeCameraDescriptors() + [try #require(try scenario.makeVirtualDescriptor())]
        let front = CaptureDeviceDiscoverySession(deviceTypes: [.builtInUltraWideCamera], position: .front, available: phone)
        #expect(front.devices.map(\.uniqueID) == ["virtualFront"])
        #expect(front.devices.first?.deviceType == .builtInVirtualFrontCamera)
        // The Wide type at .front finds it too, as the seeds say ("the Wide or Ultra Wide device type").
        let wide = CaptureDeviceDiscoverySession(deviceTypes: [.builtInWideAngleCamera], position: .front, available: phone)
        #expect(wide.devices.map(\.uniqueID) == ["virtualFront"])
        #expect(CaptureDeviceDiscoverySession(deviceTypes: [.builtInWideAngleCamera], position: .back, available: phone).devices.isEmpty)
        // Asked twice (ultra-wide and the virtual type itself): listed once.
        let twice = CaptureDeviceDiscoverySession(deviceTypes: [.builtInUltraWideCamera, .builtInVirtualFrontCamera], position: .front, available: phone)
        #expect(twice.devices.map(\.uniqueID) == ["virtualFront"])
        let individual = CaptureDeviceDiscoverySession(
            deviceTypes: [.builtInOuterUltraWideCamera, .builtInInnerUltraWideCamera], position: .front, available: phone)
        #expect(individual.devices.map(\.uniqueID) == ["outer", "inner"])
        // No position given: only exact types (the rule is the .front discovery's).
        #expect(CaptureDeviceDiscoverySession(deviceTypes: [.builtInUltraWideCamera], position: nil, available: phone).devices.isEmpty)
        // A phone with the single Center Stage front camera discovers that camera.
        let single = try Scenario.decode(Data(#"{"device": {"format": 1280, "fps": 30}, "durationSeconds": 0.2}"#.utf8), file: "single.json")
            .makeCameraDescriptors()
        #expect(CaptureDeviceDiscoverySession(deviceTypes: [.builtInUltraWideCamera], position: .front, available: single).devices.map(\.uniqueID) == ["front"])
    }
}
