import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The unsupported-device fallback the seeds ask apps to test (issue 24 row 6): an earlier
/// front camera (4:3 sensor mounted landscape-left, no dynamic aspect ratio, no Center
/// Stage), recorded at its fixed size with the right angle; requests fail `unsupportedDevice`
/// and the recording goes on.
@Suite("Orientation: the earlier front camera (unsupported-device fallback)", .tags(.capture)) struct EarlierFrontCameraTests {
    typealias F = OrientationFixtures

    static let json = """
        {"device": {"type": "builtInWideAngleCamera", "format": "1280x960", "fps": 30,
                    "clock": {"timescale": 90000, "offsetSeconds": 0.5, "driftPPM": 0}},
         "centerStageControlMode": "app", "centerStageEnabled": true,
         "sessionStartSeconds": 1.0, "durationSeconds": 0.4,
         "events": [{"atSeconds": 0.1, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 0.2, "peopleInFrame": 1}]}
        """

    @Test("portrait: one 1280x960 file turned 270° (ffprobe rotation 90); the request fails unsupportedDevice; no Center Stage") func fallbackRecording()
        async throws
    {
        let scenario = try F.scenario(Self.json)
        #expect(scenario.deviceControls["front"]?.isCenterStageSupported == false && scenario.deviceControls["front"]?.isCenterStageActive == false)
        let (dir, m) = try await F.record(scenario)
        #expect(m.segments.count == 1)
        #expect(m.segments.first.map { [$0.width, $0.height, $0.frameCount, $0.rotationDegrees ?? -1] } == [1280, 960, 12, 270])
        #expect(m.frames.written == 12 && m.frames.dropped == 0)
        let failed = (m.events ?? []).filter { $0.kind == .aspectRatioRequestFailed }
        #expect(failed.count == 1 && failed.first?.message?.contains("failed unsupportedDevice: camera front (builtInWideAngleCamera)") == true)
        #expect(m.warnings.contains { $0.contains("failed unsupportedDevice") })
        #expect(!(m.events ?? []).contains { $0.kind == .zoomChanged })
        let file = dir.appendingPathComponent("segment-000.mp4")
        #expect(try MediaFileReader(url: file).streamInfo().rotationDegrees == 90)
        let probed = try F.ffprobeRotation(file)
        if probed != Int.min { #expect(probed == 90) }
        #expect(try RecorderTestSupport.stampedIndices(file) == Array(0..<12))
    }

    @Test("the angle per orientation: 270, 0, 90, 180 (level in landscapeLeft)") func angles() {
        var controls = CameraControlState()
        var angles: [Int] = []
        for orientation in [DeviceOrientation.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight] {
            _ = controls.setDeviceOrientation(orientation, at: MediaTime(value: 0, timescale: 1))
            angles.append(controls.rotationAngle(deviceType: .builtInWideAngleCamera, facing: .user).degrees)
        }
        #expect(angles == [270, 0, 90, 180])
    }

    @Test("scenario errors name the key: a square format, an unknown type, lowLatency") func errors() {
        let cases: [(String, String)] = [
            (Self.json.replacingOccurrences(of: #""format": "1280x960""#, with: #""format": "1920""#), "device.format"),
            (Self.json.replacingOccurrences(of: #""builtInWideAngleCamera""#, with: #""builtInDualWideCamera""#), "device.type"),
            (
                Self.json.replacingOccurrences(of: #""fps": 30,"#, with: #""fps": 30, "preferredVideoStabilizationMode": "lowLatency","#),
                "device.preferredVideoStabilizationMode"
            )
        ]
        for (json, key) in cases { #expect { _ = try F.scenario(json) } throws: { ($0 as? ScenarioError)?.key == key } }
    }
}
