import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Capture angles in files: each segment's display matrix is the angle at its first frame
/// (ffprobe `rotation` = −angle), `rotationDegrees` in the manifest is the angle; later
/// changes are logged and apply from the next segment, or split with `--split-on-rotation`.
@Suite("Orientation: rotation per segment", .tags(.cameras)) struct RotationRecordingTests {
    typealias F = OrientationFixtures

    /// (orientation, clockwise angle, ffprobe rotation) for the square front camera
    /// (portrait-mounted: 0, 90, 180, 270) and the back camera (landscape: 90, 0, 270, 180).
    static let front: [(DeviceOrientation, Int, Int?)] = [
        (.portrait, 0, nil), (.landscapeLeft, 90, -90), (.portraitUpsideDown, 180, -180), (.landscapeRight, 270, 90)
    ]
    static let back: [(DeviceOrientation, Int, Int?)] = [
        (.portrait, 90, -90), (.landscapeLeft, 0, nil), (.portraitUpsideDown, 270, 90), (.landscapeRight, 180, -180)
    ]

    @Test("square front camera: every orientation, read back with ffprobe and libavformat", arguments: front) func frontCamera(
        _ orientation: DeviceOrientation, _ angle: Int, _ rotation: Int?
    ) async throws {
        let json = """
            {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16"},
             "initialDeviceOrientation": "\(orientation.rawValue)", "durationSeconds": 0.1}
            """
        let (dir, m) = try await F.record(try F.scenario(json))
        #expect(m.segments.count == 1 && m.segments[0].rotationDegrees == angle && m.segments[0].frameCount == 3)
        let file = dir.appendingPathComponent("segment-000.mp4")
        #expect(try MediaFileReader(url: file).streamInfo().rotationDegrees == rotation)
        let probed = try F.ffprobeRotation(file)
        if probed != Int.min { #expect(probed == rotation) }
    }

    @Test("back camera (one-camera session): every orientation, read back with ffprobe", arguments: back) func backCamera(
        _ orientation: DeviceOrientation, _ angle: Int, _ rotation: Int?
    ) async throws {
        let pool = PixelBufferPool()
        let formats = CaptureDevice.Format.dualWideFormats
        let clock = try MediaClock(identifier: "back", timescale: 1_000_000_000, offsetSeconds: 0.5, driftPPM: 0)
        let device = try CaptureDevice(
            format: formats[0], frameRate: try FrameRate(30), clock: clock, initialAspectRatio: .ratio16x9, formats: formats, deviceType: .builtInDualWideCamera
        )
        let session = try CaptureSession(
            device: device, output: VideoDataOutput(frameSource: SyntheticSensor(pixelBufferPool: pool)), sessionStart: F.ns(1_000_000_000),
            duration: F.ns(100_000_000), controls: CameraControlState(deviceOrientation: orientation))
        let (dir, m) = try await F.record(session, clocks: [clock], frameRate: try FrameRate(30), pool: pool)
        #expect(m.segments.count == 1 && m.segments[0].rotationDegrees == angle && m.segments[0].width == 1920)
        let file = dir.appendingPathComponent("segment-000.mp4")
        #expect(try MediaFileReader(url: file).streamInfo().rotationDegrees == rotation)
        let probed = try F.ffprobeRotation(file)
        if probed != Int.min { #expect(probed == rotation) }
    }

    /// ts 90000, off −3.25 s, −20 ppm, 30 fps, start 2.0 s, 0.5 s; landscapeRight at +0.2 s.
    static let turn = """
        {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16",
                    "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}},
         "sessionStartSeconds": 2.0, "durationSeconds": 0.5,
         "events": [{"atSeconds": 0.2, "deviceOrientation": "landscapeRight"}]}
        """

    @Test("--split-on-rotation: a rotationChanged segment from the first frame captured at or after the change") func splitOnRotation() async throws {
        // Python fractions: D0 = to_dev(2e9); T(5) = 2166667222 < s = 2.2e9 ≤ T(6) = 2200001222,
        // D(6) = −94498 (ticks of the −3.25 s offset clock); T(15) = 2500007222 ≥ 2.5e9: 15 frames.
        let (dir, m) = try await F.record(try F.scenario(Self.turn), splitOnRotation: true)
        #expect(m.segments.count == 2)
        let (a, b) = (m.segments[0], m.segments[1])
        #expect(a.frameCount == 6 && a.rotationDegrees == 0 && a.sessionEnd == F.ns(2_200_001_222))
        #expect(b.startReason == .rotationChanged && b.firstFrameIndex == 6 && b.frameCount == 9)
        #expect(b.sessionStart == F.ns(2_200_001_222) && b.rotationDegrees == 270 && b.change == nil)
        #expect(b.sessionEnd == F.ns(2_500_007_222))
        #expect(try MediaFileReader(url: dir.appendingPathComponent(a.file)).streamInfo().rotationDegrees == nil)
        #expect(try MediaFileReader(url: dir.appendingPathComponent(b.file)).streamInfo().rotationDegrees == 90)
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent(b.file)) == Array(6..<15))
        let logged = try #require(m.events?.first { $0.kind == .rotationChanged })
        #expect(logged.frameIndex == 6 && logged.sessionTime == F.ns(2_200_001_222) && logged.to == "270")
        #expect(logged.deviceTime == MediaTime(value: -94_498, timescale: 90_000))
        #expect(m.events?.first { $0.kind == .deviceOrientationChanged }?.sessionTime == F.ns(2_200_000_000))
    }

    @Test("without --split-on-rotation the change is logged and the file keeps its first frame's angle") func rotationAppliesFromTheNextSegment() async throws {
        let (dir, m) = try await F.record(try F.scenario(Self.turn))
        #expect(m.segments.count == 1 && m.segments[0].frameCount == 15 && m.segments[0].rotationDegrees == 0)
        #expect(try MediaFileReader(url: dir.appendingPathComponent("segment-000.mp4")).streamInfo().rotationDegrees == nil)
        #expect(m.events?.filter { $0.kind == .rotationChanged }.map(\.frameIndex) == [6])
    }

    @Test("the next segment (a ratio change) carries the angle in effect at its first frame") func nextSegmentCarriesTheNewAngle() async throws {
        var scenario = try F.scenario(Self.turn)
        scenario.events.append(Scenario.Event(atSeconds: 0.3, action: .setDynamicAspectRatio(.ratio16x9)))
        let (dir, m) = try await F.record(scenario)
        #expect(m.segments.map(\.rotationDegrees) == [0, 270])
        #expect(m.segments.map(\.startReason) == [.recordingStarted, .dimensionsChanged])
        #expect(try MediaFileReader(url: dir.appendingPathComponent("segment-001.mp4")).streamInfo().rotationDegrees == 90)
    }

    @Test("iPhone Duo: the outer camera follows the front table; the back camera in openOuterDisplay faces the user and turns with it") func duoCameras() throws
    {
        // landscapeLeft: portrait sensor facing the user 0 + 90; landscape sensor facing the
        // user 90 + 90 (facing away it would be 90 − 90 = 0).
        for (posture, camera, angle) in [("closed", "outer", VideoRotationAngle.degrees90), ("openOuterDisplay", "back", .degrees180)] {
            let json = DuoFixtures.individual(start: "1.0", events: "", duration: "0.1").replacingOccurrences(
                of: "\"initialPosture\": \"closed\"", with: "\"initialPosture\": \"\(posture)\", \"initialDeviceOrientation\": \"landscapeLeft\"")
            let session = try CaptureSession(scenario: try DuoFixtures.scenario(json))
            let frames = DuoFixtures.frames(try DuoFixtures.run(session))
            #expect(!frames.isEmpty && frames.allSatisfy { $0.camera?.id == camera && $0.rotationAngle == angle })
        }
    }

    @Test("the phone sample as sensor image: upright pictures, files rotated as the device says, not as the clip") func phoneSampleAsSensorImage() async throws
    {
        guard FootageTestSupport.ready else {
            print("skipped: ../shared/samples or ffmpeg/ffprobe not available")
            return
        }
        let clip = FootageTestSupport.sample("phone_portrait_rot90_1920x1080_30fps.mp4")
        for (orientation, rotation) in [(DeviceOrientation.portrait, nil as Int?), (.landscapeLeft, -90)] {
            let json = """
                {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16"},
                 "initialDeviceOrientation": "\(orientation.rawValue)", "durationSeconds": 0.2}
                """
            let pool = PixelBufferPool()
            let sensor = try DecodedClipSensor(squareSide: 1280, canReopen: true, pixelBufferPool: pool, appliesDisplayRotation: true) {
                try VideoFileDecoder(path: clip.path, pixelBufferPool: pool)
            }
            #expect(sensor.appliedRotation == .degrees90 && sensor.clipRotationDegrees == -90)
            let (dir, m) = try await F.record(try F.scenario(json), frameSource: sensor)
            #expect(m.segments.count == 1 && m.segments[0].frameCount == 6)
            let file = dir.appendingPathComponent("segment-000.mp4")
            #expect(try MediaFileReader(url: file).streamInfo().rotationDegrees == rotation)
            #expect(try RecorderTestSupport.stampedIndices(file) == Array(0..<6))
        }
    }
}
