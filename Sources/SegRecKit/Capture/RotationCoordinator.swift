/// The analog of `AVCaptureDevice.RotationCoordinator` for one camera: from how the
/// camera's sensor is mounted, which way it faces and how the phone is held
/// (``DeviceOrientation``), the clockwise angle a player must turn each captured picture
/// to show it level (`videoRotationAngleForHorizonLevelCapture`), Docs/cameras.md "Orientation,
/// formats and stabilization".
///
/// ## Rule
/// `angle = portraitAngle(mounting) + direction(facing) · 90° · quarterTurns(orientation)`
/// modulo 360, with `portraitAngle` 0 for a portrait-mounted sensor, 90 for the back
/// camera's landscape one and 270 for the earlier front cameras' landscape-left one (the
/// seeds: a portrait selfie says "rotate 270°"), and `direction` +1 for a camera facing
/// the user, −1 for one facing away:
///
/// | camera | portrait | landscapeLeft | portraitUpsideDown | landscapeRight |
/// |---|---|---|---|---|
/// | square Center Stage front sensor (portrait, user) | 0 | 90 | 180 | 270 |
/// | back camera (landscape, away) | 90 | 0 | 270 | 180 |
/// | earlier front sensors (landscape-left, user) | 270 | 0 | 90 | 180 |
///
/// A change of orientation applies from the first frame captured at or after it
/// (``firstFrame(capturedAtOrAfter:timing:minimumIndex:)``); a file fixes the angle of its
/// first frame in its display matrix (``VideoRotationAngle/displayMatrixRotationDegrees``).
///
/// A `Sendable` value: the session owns it and mutates it as orientation events arrive.
package struct RotationCoordinator: Sendable, Hashable {
    /// How a camera's sensor is mounted in the phone.
    package enum SensorMounting: String, Sendable, Hashable, CaseIterable {
        /// Long side vertical in a portrait phone (the square Center Stage front sensors
        /// count as portrait-mounted, as the seeds say): level in portrait (0°).
        case portrait
        /// Long side horizontal in a portrait phone (the back camera, earlier front
        /// cameras): a portrait phone needs a quarter turn (90°).
        case landscape
        /// Long side horizontal, level with the phone in landscapeLeft (the earlier front
        /// cameras): a portrait phone needs three quarter turns (270°).
        case landscapeLeft

        /// The capture angle with the phone in portrait.
        package var portraitAngle: VideoRotationAngle {
            switch self {
            case .portrait: .degrees0
            case .landscape: .degrees90
            case .landscapeLeft: .degrees270
            }
        }
    }

    /// Which way the camera points (the direction coordinator's `user` / `away`).
    package enum Facing: String, Sendable, Hashable, CaseIterable {
        /// Towards the person holding the phone (front cameras; the outer camera of a
        /// closed iPhone Duo).
        case user
        /// Away from them (the back camera; the outer camera of an open iPhone Duo).
        case away
    }

    /// How the sensor is mounted.
    package let mounting: SensorMounting
    /// Which way the camera points now.
    package private(set) var facing: Facing
    /// How the phone is held now (`initialDeviceOrientation`, then each
    /// `deviceOrientation` event).
    package private(set) var deviceOrientation: DeviceOrientation

    /// A coordinator for a camera mounted as `mounting`, pointing `facing`, with the phone
    /// held `deviceOrientation` (default portrait).
    package init(mounting: SensorMounting, facing: Facing, deviceOrientation: DeviceOrientation = .portrait) {
        self.mounting = mounting
        self.facing = facing
        self.deviceOrientation = deviceOrientation
    }

    /// A coordinator for the camera of `deviceType` (its `AVCaptureDevice.DeviceType`
    /// spelling, see ``CameraTypeTraits``): square Center Stage front cameras are
    /// portrait-mounted and face the user unless told otherwise; the back camera is
    /// landscape-mounted and faces away; the earlier front camera is landscape-left mounted
    /// and faces the user.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` for an unknown
    ///   device type, naming the known ones.
    package init(deviceType: String, facing: Facing? = nil, deviceOrientation: DeviceOrientation = .portrait) throws(CameraControlError) {
        let traits = try CameraTypeTraits(deviceType: deviceType)
        self.init(
            mounting: traits.sensorMounting, facing: facing ?? (traits.sensorMounting == .landscape ? .away : .user), deviceOrientation: deviceOrientation)
    }

    /// `videoRotationAngleForHorizonLevelCapture`: the clockwise angle a player turns the
    /// pictures captured now (table above).
    package var videoRotationAngleForHorizonLevelCapture: VideoRotationAngle {
        Self.videoRotationAngle(mounting: mounting, facing: facing, deviceOrientation: deviceOrientation)
    }

    /// The capture angle for any mounting, facing and orientation (the rule above).
    package static func videoRotationAngle(mounting: SensorMounting, facing: Facing, deviceOrientation: DeviceOrientation) -> VideoRotationAngle {
        let turns = facing == .user ? deviceOrientation.quarterTurns : -deviceOrientation.quarterTurns
        return VideoRotationAngle(clockwiseDegrees: mounting.portraitAngle.degrees + 90 * turns)!
    }

    /// Records that the phone is now held `orientation`.
    /// - Returns: whether ``videoRotationAngleForHorizonLevelCapture`` changed.
    @discardableResult package mutating func setDeviceOrientation(_ orientation: DeviceOrientation) -> Bool {
        let before = videoRotationAngleForHorizonLevelCapture
        deviceOrientation = orientation
        return videoRotationAngleForHorizonLevelCapture != before
    }

    /// Records that the camera now points `facing` (an iPhone Duo opened or closed).
    /// - Returns: whether ``videoRotationAngleForHorizonLevelCapture`` changed.
    @discardableResult package mutating func setFacing(_ facing: Facing) -> Bool {
        let before = videoRotationAngleForHorizonLevelCapture
        self.facing = facing
        return videoRotationAngleForHorizonLevelCapture != before
    }

    /// The first frame a change made at host time `hostTime` applies to: the smallest
    /// index `k ≥ minimumIndex` whose session timestamp `convertTime(D(k), device → host)`
    /// is at or after `hostTime`, exact (the same rule by which the session applies an
    /// event before the frame it precedes). With `--split-on-rotation` the new segment
    /// starts at that frame.
    /// - Parameters:
    ///   - hostTime: the change's host (session clock) time, any timescale.
    ///   - timing: the streaming camera's ``FrameTiming``.
    ///   - minimumIndex: frames before it are already captured (default 0).
    /// - Throws: ``MediaTimeError/overflow(operation:)``.
    package static func firstFrame(capturedAtOrAfter hostTime: MediaTime, timing: FrameTiming, minimumIndex: Int64 = 0) throws(MediaTimeError) -> Int64 {
        try timing.firstFrame(capturedAtOrAfter: hostTime, minimumIndex: minimumIndex)
    }
}
