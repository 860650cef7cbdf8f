/// What the issue-13 camera controls need to know about a camera, keyed by its
/// `AVCaptureDevice.DeviceType` spelling (the scenario's `type`, e.g.
/// `"builtInOuterUltraWideCamera"`), so they do not depend on how the capture model spells
/// its device-type enum: pass that enum's `rawValue`.
///
/// | device type | Center Stage front camera | sensor mounting | `lowLatency` |
/// |---|---|---|---|
/// | `builtInUltraWideCamera` (front) | yes | portrait (square) | yes |
/// | `builtInOuterUltraWideCamera` | yes | portrait (square) | yes |
/// | `builtInInnerUltraWideCamera` | yes | portrait (square) | yes |
/// | `builtInDualWideCamera` (back) | no | landscape (16:9) | no |
/// | `builtInWideAngleCamera` (earlier front camera) | no | landscape-left (4:3) | no |
package struct CameraTypeTraits: Sendable, Hashable {
    /// The device type spelling.
    package let deviceType: String
    /// Whether it is one of the square Center Stage front cameras.
    package let isCenterStageFrontCamera: Bool
    /// How its sensor is mounted in the phone.
    package let sensorMounting: RotationCoordinator.SensorMounting

    /// The device types the camera model has (Docs/cameras.md), in table order.
    package static let knownDeviceTypes = [
        "builtInUltraWideCamera", "builtInOuterUltraWideCamera", "builtInInnerUltraWideCamera", "builtInDualWideCamera", "builtInWideAngleCamera",
        "builtInVirtualFrontCamera"
    ]

    /// The traits of `deviceType`.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` naming
    ///   ``knownDeviceTypes``.
    package init(deviceType: String) throws(CameraControlError) {
        switch deviceType {
        case "builtInUltraWideCamera", "builtInOuterUltraWideCamera", "builtInInnerUltraWideCamera", "builtInVirtualFrontCamera":
            isCenterStageFrontCamera = true
            sensorMounting = .portrait
        case "builtInDualWideCamera":
            isCenterStageFrontCamera = false
            sensorMounting = .landscape
        case "builtInWideAngleCamera":
            isCenterStageFrontCamera = false
            sensorMounting = .landscapeLeft
        default: throw .unknownValue(name: "device type", value: deviceType, allowed: Self.knownDeviceTypes.joined(separator: ", "))
        }
        self.deviceType = deviceType
    }
}
