import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// RotationCoordinator (`videoRotationAngleForHorizonLevelCapture`), VideoRotationAngle and
/// RotationSchedule: exact angles per camera and orientation, and the frame a change
/// applies from.
@Suite("Rotation coordinator", .tags(.capture)) struct RotationCoordinatorTests {
    private let orientations: [DeviceOrientation] = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight]

    private func angles(_ coordinator: RotationCoordinator) -> [Int] {
        orientations.map { orientation in
            var c = coordinator
            c.setDeviceOrientation(orientation)
            return c.videoRotationAngleForHorizonLevelCapture.degrees
        }
    }

    @Test(
        "square front sensors (portrait-mounted): 0, 90, 180, 270",
        arguments: ["builtInUltraWideCamera", "builtInOuterUltraWideCamera", "builtInInnerUltraWideCamera"]) func squareFront(_ type: String) throws
    {
        let coordinator = try RotationCoordinator(deviceType: type)
        #expect(coordinator.mounting == .portrait && coordinator.facing == .user)
        #expect(angles(coordinator) == [0, 90, 180, 270])
    }

    @Test("back camera (landscape sensor): 90, 0, 270, 180") func back() throws {
        let coordinator = try RotationCoordinator(deviceType: "builtInDualWideCamera")
        #expect(coordinator.mounting == .landscape && coordinator.facing == .away)
        #expect(angles(coordinator) == [90, 0, 270, 180])
    }

    @Test("earlier landscape-left front sensors, and a square camera facing away") func otherMountings() {
        #expect(angles(RotationCoordinator(mounting: .landscape, facing: .user)) == [90, 180, 270, 0])
        #expect(angles(RotationCoordinator(mounting: .portrait, facing: .away)) == [0, 270, 180, 90])
        var outer = RotationCoordinator(mounting: .portrait, facing: .user, deviceOrientation: .landscapeLeft)
        #expect(outer.videoRotationAngleForHorizonLevelCapture == .degrees90)
        let opened = outer.setFacing(.away)  // an iPhone Duo opened: the outer camera faces away
        #expect(opened && outer.videoRotationAngleForHorizonLevelCapture == .degrees270)
        let again = outer.setFacing(.away)
        #expect(!again)
    }

    @Test("setDeviceOrientation reports whether the capture angle changed") func changeReporting() throws {
        var c = try RotationCoordinator(deviceType: "builtInUltraWideCamera", deviceOrientation: .landscapeRight)
        #expect(c.videoRotationAngleForHorizonLevelCapture == .degrees270)
        let same = c.setDeviceOrientation(.landscapeRight)
        let turned = c.setDeviceOrientation(.portrait)
        #expect(!same && turned)
        #expect(c.deviceOrientation == .portrait && c.videoRotationAngleForHorizonLevelCapture == .degrees0)
    }

    @Test("unknown device type or orientation names the allowed values") func unknownNames() throws {
        #expect(
            throws: CameraControlError.unknownValue(
                name: "device type", value: "builtInTelephotoCamera",
                allowed:
                    "builtInUltraWideCamera, builtInOuterUltraWideCamera, builtInInnerUltraWideCamera, builtInDualWideCamera, builtInWideAngleCamera, builtInVirtualFrontCamera"
            )
        ) { _ = try RotationCoordinator(deviceType: "builtInTelephotoCamera") }
        #expect(
            throws: CameraControlError.unknownValue(
                name: "deviceOrientation", value: "faceUp", allowed: "portrait, landscapeLeft, portraitUpsideDown, landscapeRight")
        ) { _ = try DeviceOrientation(named: "faceUp") }
        #expect(try DeviceOrientation(named: "portraitUpsideDown") == .portraitUpsideDown)
        let message = CameraControlError.unknownValue(name: "deviceOrientation", value: "faceUp", allowed: DeviceOrientation.allowedValues).description
        #expect(message == "deviceOrientation \"faceUp\" is unknown; allowed: portrait, landscapeLeft, portraitUpsideDown, landscapeRight")
    }

    @Test("angles: display-matrix degrees as ffprobe reads them, FFmpeg's own rotation, dimensions") func angleArithmetic() {
        #expect(VideoRotationAngle.allCases.map(\.displayMatrixRotationDegrees) == [0, -90, -180, 90])
        #expect(VideoRotationAngle(displayMatrixRotation: -90) == .degrees90)  // the phone sample
        #expect(VideoRotationAngle(displayMatrixRotation: 90) == .degrees270)
        #expect(VideoRotationAngle(displayMatrixRotation: 180) == .degrees180)
        #expect(VideoRotationAngle(displayMatrixRotation: -180) == .degrees180)
        #expect(VideoRotationAngle(displayMatrixRotation: 45) == nil)
        #expect(VideoRotationAngle(clockwiseDegrees: -270) == .degrees90)
        #expect(VideoRotationAngle(clockwiseDegrees: 720) == .degrees0)
        #expect(VideoRotationAngle.degrees90.adding(.degrees270) == .degrees0)
        #expect(VideoRotationAngle.degrees90.inverse == .degrees270)
        #expect(VideoRotationAngle.degrees270.rotated(VideoDimensions(width: 1920, height: 1080)) == VideoDimensions(width: 1080, height: 1920))
        #expect(VideoRotationAngle.degrees180.rotated(VideoDimensions(width: 1920, height: 1080)) == VideoDimensions(width: 1920, height: 1080))
    }

    @Test("a change applies from the first frame captured at or after it (exact, across clocks)") func firstFrame() throws {
        // 30 fps on a 24 MHz clock offset by 12.5 s with 50 ppm drift, session at 1.0 s host.
        let clock = try MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPartsPerBillion: 50_000)
        let timing = try FrameTiming(deviceClock: clock, frameRate: try FrameRate(30), sessionStart: MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
        for k: Int64 in [0, 1, 29, 30, 61, 900] {
            let t = try timing.sessionTime(ofFrame: k)
            // Exactly at frame k's timestamp: frame k; one nanosecond later: frame k + 1.
            #expect(try RotationCoordinator.firstFrame(capturedAtOrAfter: t, timing: timing) == k)
            let after = try t.adding(MediaTime(value: 1, timescale: 1_000_000_000))
            #expect(try RotationCoordinator.firstFrame(capturedAtOrAfter: after, timing: timing) == k + 1)
            let before = try t.subtracting(MediaTime(value: 1, timescale: 1_000_000_000))
            #expect(try RotationCoordinator.firstFrame(capturedAtOrAfter: before, timing: timing) == k)
        }
        // 2.0 s into the session: frame 60 is at 3.0 s (1 + 60/30) only up to clock rounding,
        // so the answer is whichever of 60/61 is the first at or after it.
        let two = MediaTime(value: 3_000_000_000, timescale: 1_000_000_000)
        let k = try RotationCoordinator.firstFrame(capturedAtOrAfter: two, timing: timing)
        #expect(try timing.sessionTime(ofFrame: k) >= two && (try timing.sessionTime(ofFrame: k - 1)) < two)
        #expect(k == 60 || k == 61)
        // Already captured frames are never chosen.
        #expect(try RotationCoordinator.firstFrame(capturedAtOrAfter: two, timing: timing, minimumIndex: 75) == 75)
    }

    @Test("schedule: a segment carries the angle of its first frame; changes list the split frames") func schedule() {
        var s = RotationSchedule(initial: .degrees0)
        let recorded = [
            s.record(.degrees90, fromFrame: 45), s.record(.degrees90, fromFrame: 50),  // already in effect
            s.record(.degrees270, fromFrame: 90), s.record(.degrees180, fromFrame: 90)
        ]  // a later change on the same frame replaces it
        #expect(recorded == [true, false, true, true])
        #expect(s.changeFrames == [45, 90])
        #expect([0, 44, 45, 89, 90, 1000].map { s.angle(atFrame: $0).degrees } == [0, 0, 90, 90, 180, 180])
        #expect(s.latest == .degrees180)
        let reset = s.record(.degrees0, fromFrame: 30)  // replaces both later entries
        #expect(reset)
        #expect(s.changes == [] && s.latest == .degrees0)
    }
}
