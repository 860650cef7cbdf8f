/// Turns the device posture into each camera's facing and says which camera the app should
/// stream from: the analog of AVKit's `AVCaptureDeviceDirectionCoordinator` (Docs/cameras.md,
/// "Cameras: iPhone Duo and switching").
///
/// | posture            | outer | inner | back | single front / virtual |
/// |--------------------|-------|-------|------|------------------------|
/// | `closed`           | user  | away  | away | user                   |
/// | `open`             | away  | user  | away | user                   |
/// | `openOuterDisplay` | user  | away  | user | user                   |
///
/// Like the real one it never hands out devices: its change handler gets
/// ``CaptureDeviceDescriptor``s, and the session builds or picks the device.
///
/// Concurrency: a non-`Sendable` class owned by one session and updated from its task.
package final class DirectionCoordinator {
    /// One report to the change handler.
    package struct FacingChange: Sendable {
        /// The posture now.
        package let posture: DevicePosture
        /// Every monitored camera with its facing, in monitored order.
        package let facings: [(descriptor: CaptureDeviceDescriptor, facing: CameraFacing)]
        /// The camera an app using individual cameras should stream from now.
        package let preferredCamera: CaptureDeviceDescriptor?
    }

    /// The cameras it monitors.
    package let monitored: [CaptureDeviceDescriptor]
    /// The current posture.
    package private(set) var posture: DevicePosture
    /// Called after every posture change (not for the initial posture).
    package var onFacingChange: ((FacingChange) -> Void)?

    /// A coordinator monitoring `cameras`, starting in `posture`.
    package init(monitoring cameras: [CaptureDeviceDescriptor], posture: DevicePosture, onFacingChange: ((FacingChange) -> Void)? = nil) {
        self.monitored = cameras
        self.posture = posture
        self.onFacingChange = onFacingChange
    }

    /// The facing of a camera of `type` in `posture` (table above).
    package static func facing(of type: CaptureDevice.DeviceType, in posture: DevicePosture) -> CameraFacing {
        switch (type, posture) {
        case (.builtInUltraWideCamera, _), (.builtInVirtualFrontCamera, _), (.builtInWideAngleCamera, _): .user
        case (.builtInOuterUltraWideCamera, .open): .away
        case (.builtInOuterUltraWideCamera, _): .user
        case (.builtInInnerUltraWideCamera, .open): .user
        case (.builtInInnerUltraWideCamera, _): .away
        case (.builtInDualWideCamera, .openOuterDisplay): .user
        case (.builtInDualWideCamera, _): .away
        }
    }

    /// `camera`'s facing in the current posture.
    package func facing(of camera: CaptureDeviceDescriptor) -> CameraFacing { Self.facing(of: camera.deviceType, in: posture) }

    /// The camera an app with individual cameras streams from in `posture`: `closed` →
    /// outer, `open` → inner, `openOuterDisplay` → back if monitored, else outer (found
    /// with a ``CaptureDeviceDiscoverySession``); `nil` when none is monitored.
    package func preferredCamera(in posture: DevicePosture) -> CaptureDeviceDescriptor? {
        let types: [CaptureDevice.DeviceType] =
            switch posture {
            case .closed: [.builtInOuterUltraWideCamera]
            case .open: [.builtInInnerUltraWideCamera]
            case .openOuterDisplay: [.builtInDualWideCamera, .builtInOuterUltraWideCamera]
            }
        return CaptureDeviceDiscoverySession(deviceTypes: types, position: nil, available: monitored).devices.first
    }

    /// The constituent the Virtual Front Camera uses in `posture`: `closed` and
    /// `openOuterDisplay` → outer, `open` → inner.
    package func virtualConstituent(in posture: DevicePosture) -> CaptureDeviceDescriptor? {
        let type: CaptureDevice.DeviceType = posture == .open ? .builtInInnerUltraWideCamera : .builtInOuterUltraWideCamera
        return CaptureDeviceDiscoverySession(deviceTypes: [type], position: .front, available: monitored).devices.first
    }

    /// Moves to `newPosture` and, when it differs, calls the change handler.
    /// - Returns: the report (also when no handler is set), or `nil` for the same posture.
    @discardableResult package func update(posture newPosture: DevicePosture) -> FacingChange? {
        guard newPosture != posture else { return nil }
        posture = newPosture
        let change = FacingChange(posture: newPosture, facings: monitored.map { ($0, facing(of: $0)) }, preferredCamera: preferredCamera(in: newPosture))
        onFacingChange?(change)
        return change
    }
}
