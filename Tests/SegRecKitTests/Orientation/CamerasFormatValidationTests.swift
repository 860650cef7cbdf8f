import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// With `cameras`, an `activeFormat` is checked against the camera streaming at the event's
/// time, found by rehearsing the scenario's events through ``CaptureSession`` (the
/// session's own posture rule), before anything is recorded.
@Suite("Orientation: cameras formats checked against the streaming camera before recording", .tags(.cameras)) struct CamerasFormatValidationTests {
    typealias F = OrientationFixtures

    static func duo(posture: String, events: String) -> String {
        """
        {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 30},
                     {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30},
                     {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": 30}],
         "frontCamera": "individual", "initialPosture": "\(posture)", "initialAspectRatio": "16x9",
         "switchGapSeconds": 0.1, "sessionStartSeconds": 10.0, "durationSeconds": 2.0, "events": \(events)}
        """
    }

    @Test("activeFormat 3840 while the inner camera streams (posture open): events[0].activeFormat, inner's formats") func innerLacks3840() throws {
        #expect(
            throws: ScenarioError(
                file: "orientation-test.json", key: "events[0].activeFormat",
                problem: "3840 is not a format of camera inner (builtInInnerUltraWideCamera), streaming at 0.3 s", allowed: "the formats of inner: 1280, 1920")
        ) { _ = try F.scenario(Self.duo(posture: "open", events: #"[{"atSeconds": 0.3, "activeFormat": 3840}]"#)) }
        // Closed: the outer camera streams and has 3840.
        _ = try F.scenario(Self.duo(posture: "closed", events: #"[{"atSeconds": 0.3, "activeFormat": 3840}]"#))
    }

    @Test("the posture event before it decides: back camera after openOuterDisplay, outer before; file order kept") func postureDecides() throws {
        let after = #"[{"atSeconds": 0.4, "posture": "openOuterDisplay"}, {"atSeconds": 0.8, "activeFormat": 1920}]"#
        #expect(
            throws: ScenarioError(
                file: "orientation-test.json", key: "events[1].activeFormat",
                problem: "1920 is not a format of camera back (builtInDualWideCamera), streaming at 0.8 s", allowed: "the formats of back: 1920x1080, 3840x2160"
            )
        ) { _ = try F.scenario(Self.duo(posture: "closed", events: after)) }
        // Listed out of time order in the file: the key is the file's index.
        let unordered = #"[{"atSeconds": 0.8, "activeFormat": 1920}, {"atSeconds": 0.4, "posture": "openOuterDisplay"}]"#
        do {
            _ = try F.scenario(Self.duo(posture: "closed", events: unordered))
            Issue.record("1920 on the back camera was accepted")
        } catch { #expect(error.key == "events[0].activeFormat") }
        // The switch comes after the format event: outer (1280, 1920, 3840) streams at 0.8 s.
        let before = #"[{"atSeconds": 0.8, "activeFormat": 1920}, {"atSeconds": 0.9, "posture": "openOuterDisplay"}]"#
        let scenario = try F.scenario(Self.duo(posture: "closed", events: before))
        #expect(scenario.events.count == 2)
    }

    @Test("record exits 65 before creating the output folder") func commandLineRefusesBeforeRecording() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let file = dir.appendingPathComponent("inner-3840.json")
        try Self.duo(posture: "open", events: #"[{"atSeconds": 0.3, "activeFormat": 3840}]"#).write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let code = await SegRecCommand.main(["record", "--scenario", file.path, "--output", out.path, "--preset", "ultrafast", "--quiet"])
        #expect(code == 65)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test(
        "--source footage with cameras: each camera's notes name the ignored audio stream and the applied clip rotation",
        .enabled(if: FootageTestSupport.ready, "../shared/samples/ or ffmpeg/ffprobe missing: cameras footage notes skipped")) func footageNotes() async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let file = dir.appendingPathComponent("duo.json")
        try Self.duo(posture: "closed", events: "[]").replacingOccurrences(of: "\"durationSeconds\": 2.0", with: "\"durationSeconds\": 0.2").write(
            to: file, atomically: true, encoding: .utf8)
        let clip = FootageTestSupport.sample("phone_portrait_rot90_1920x1080_30fps.mp4").path
        let (code, _, manifest) = try await FootageTestSupport.record(["--source", clip, "--scenario", file.path])
        #expect(code == 0)
        let notes = try #require(manifest?.notes)
        for camera in ["outer", "inner", "back"] {
            #expect(notes.contains("camera \(camera): input stream #1 (audio, aac) ignored: only the first video stream is recorded"))
            #expect(
                notes.contains(
                    "camera \(camera): input display rotation -90 (ffprobe) is applied to the sensor image: each picture is turned 90° clockwise before cropping; the segments carry the device's capture angle instead"
                ))
        }
        // 0.2 s at 30 fps from session start 10 s: frames at 10 + i/30 < 10.2, i = 0…5.
        #expect(manifest?.frames.written == 6)
    }
}
