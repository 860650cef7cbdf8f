import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// On iPhone Duo the rotation coordinator follows the display the app's view is on: the
/// capture angle uses the streaming camera's facing relative to that display (issue 24 row 8).
@Suite("Orientation: the angle follows the view's display and the camera's facing", .tags(.capture)) struct DuoRotationFacingTests {
    typealias F = DuoFixtures

    /// closed (outer, user) → openOuterDisplay at 0.3 s (back, now facing the user) →
    /// open at 0.9 s (inner, user), held `orientation` throughout.
    static func json(_ orientation: String) -> String {
        F.individual(start: "1.0", events: #"{"atSeconds": 0.3, "posture": "openOuterDisplay"}, {"atSeconds": 0.9, "posture": "open"}"#, duration: "1.4")
            .replacingOccurrences(of: #""frontCamera": "individual","#, with: #""frontCamera": "individual", "initialDeviceOrientation": "\#(orientation)","#)
    }

    /// Expected clockwise angles per camera, worked out from the rule `portraitAngle +
    /// direction · 90 · quarterTurns` (portrait 0, landscapeLeft 1, portraitUpsideDown 2,
    /// landscapeRight 3 turns; square sensors 0, the back camera 90; user +1): outer and
    /// inner face the user in their postures, and so does the back camera here.
    @Test(
        "each camera's angle in each orientation; the back camera facing the user turns with the user",
        arguments: [("portrait", 0, 90), ("landscapeLeft", 90, 180), ("portraitUpsideDown", 180, 270), ("landscapeRight", 270, 0)]) func anglesPerCamera(
            orientation: String, square: Int, back: Int
        ) throws
    {
        let frames = F.frames(try F.run(try CaptureSession(scenario: try F.scenario(Self.json(orientation)))))
        var angles: [String: Set<Int>] = [:]
        for frame in frames { angles[frame.camera?.id ?? "?", default: []].insert(frame.rotationAngle?.degrees ?? -1) }
        #expect(angles == ["outer": [square], "back": [back], "inner": [square]])
        #expect(frames.filter { $0.camera?.id == "back" }.allSatisfy { $0.camera?.facing == .user })
    }

    @Test("the table: facing away turns against the orientation, facing the user with it") func table() {
        var controls = CameraControlState()
        var rows: [[Int]] = []
        for orientation in [DeviceOrientation.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight] {
            _ = controls.setDeviceOrientation(orientation, at: MediaTime(value: 0, timescale: 1))
            rows.append([
                controls.rotationAngle(deviceType: .builtInDualWideCamera, facing: .away).degrees,
                controls.rotationAngle(deviceType: .builtInDualWideCamera, facing: .user).degrees,
                controls.rotationAngle(deviceType: .builtInOuterUltraWideCamera, facing: .user).degrees,
                controls.rotationAngle(deviceType: .builtInOuterUltraWideCamera, facing: .away).degrees
            ])
        }
        #expect(rows == [[90, 90, 0, 0], [0, 180, 90, 270], [270, 270, 180, 180], [180, 0, 270, 90]])
    }
}
