/// Center Stage's state, as the seeds separate it (Docs/cameras.md, "Center Stage state"):
///
/// - ``isCenterStageEnabled``: the *process-wide intent* (`AVCaptureDevice.isCenterStageEnabled`,
///   a class property on iOS), changed by the app or by the user in Control Center, as
///   ``centerStageControlMode`` allows;
/// - ``centerStageControlMode``: who may change it (`AVCaptureDevice.centerStageControlMode`):
///   `user` (only Control Center; iOS's default), `app` (only the app), `cooperative`
///   (both);
/// - a camera's `isCenterStageActive` (``isCenterStageActive(formatSupportsCenterStage:isDepthDataDeliveryEnabled:isGeometricDistortionCorrectionEnabled:)``):
///   whether Center Stage is actually framing that camera's pictures now: enabled, on a
///   format that supports it, with depth delivery and geometric distortion correction off
///   (each is mutually exclusive with it).
///
/// Active Center Stage only zooms inside the current aspect ratio
/// (``zoomFactor(peopleInFrame:)``): frame dimensions never change, so it never starts a
/// segment.
///
/// Not a global: a `Sendable` value owned by the session (iOS keeps it per process; a
/// session models one process), so several recordings in one program do not share it.
package struct CenterStageControl: Sendable, Hashable {
    /// `AVCaptureDevice.CenterStageControlMode`. The raw value is the scenario spelling.
    package enum ControlMode: String, Sendable, Hashable, Codable, CaseIterable {
        /// Only the user (Control Center) turns Center Stage on or off; iOS's default.
        case user
        /// Only the app does.
        case app
        /// Both do.
        case cooperative

        /// Whether `requester` may turn Center Stage on or off in this mode.
        package func allows(_ requester: Requester) -> Bool {
            switch self {
            case .user: requester == .user
            case .app: requester == .app
            case .cooperative: true
            }
        }

        /// The allowed spellings, for error messages: `user, app, cooperative`.
        package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

        /// The mode spelled `name`.
        /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` naming the three modes.
        package init(named name: String) throws(CameraControlError) { self = try CameraControlError.spelled(name, name: "centerStageControlMode") }
    }

    /// Who asks to turn Center Stage on or off.
    package enum Requester: String, Sendable, Hashable, CaseIterable {
        /// The person, in Control Center's Video Effects.
        case user
        /// The app's code.
        case app
    }

    /// Who may change ``isCenterStageEnabled``.
    package private(set) var centerStageControlMode: ControlMode
    /// The process-wide intent: Center Stage is wanted on every camera that supports it.
    package private(set) var isCenterStageEnabled: Bool

    /// The state at session start: by default iOS's (`user` control, disabled). A scenario
    /// states the initial values directly, whoever may change them later.
    package init(centerStageControlMode: ControlMode = .user, isCenterStageEnabled: Bool = false) {
        self.centerStageControlMode = centerStageControlMode
        self.isCenterStageEnabled = isCenterStageEnabled
    }

    /// Sets who may change ``isCenterStageEnabled`` (the app sets it before enabling, as
    /// the seeds show).
    package mutating func setCenterStageControlMode(_ mode: ControlMode) { centerStageControlMode = mode }

    /// Turns Center Stage on or off on behalf of `requester`.
    /// - Returns: whether ``isCenterStageEnabled`` changed.
    /// - Throws: ``CameraControlError/centerStageControlDenied(by:controlMode:)`` when the
    ///   control mode does not let `requester` change it (the app in `user` mode, the user
    ///   in `app` mode); the state is unchanged.
    @discardableResult package mutating func setCenterStageEnabled(_ enabled: Bool, by requester: Requester = .app) throws(CameraControlError) -> Bool {
        guard centerStageControlMode.allows(requester) else { throw .centerStageControlDenied(by: requester, controlMode: centerStageControlMode) }
        defer { isCenterStageEnabled = enabled }
        return enabled != isCenterStageEnabled
    }

    /// A camera's `isCenterStageActive`: enabled, and the camera's active format supports
    /// Center Stage (`AVCaptureDevice.Format.isCenterStageSupported`, see
    /// ``isCenterStageSupported(deviceType:squareSide:)``), and neither depth data delivery
    /// nor geometric distortion correction is on (the seeds: mutually exclusive with it).
    package func isCenterStageActive(formatSupportsCenterStage: Bool, isDepthDataDeliveryEnabled: Bool, isGeometricDistortionCorrectionEnabled: Bool = false)
        -> Bool
    { isCenterStageEnabled && formatSupportsCenterStage && !isDepthDataDeliveryEnabled && !isGeometricDistortionCorrectionEnabled }

    /// Largest square side of a format that supports Center Stage (the model's assumption:
    /// Center Stage frames video-resolution formats, 1280 and 1920; the 3840 format and the
    /// 4032 photo format, which has smart framing instead, do not support it).
    package static let largestCenterStageSquareSide = 1920

    /// `AVCaptureDevice.Format.isCenterStageSupported` in the model: a square format of
    /// side at most ``largestCenterStageSquareSide`` on a Center Stage front camera
    /// (``CameraTypeTraits``); never on the back camera.
    /// - Parameters:
    ///   - deviceType: the camera's `AVCaptureDevice.DeviceType` spelling.
    ///   - squareSide: the format's square side in pixels, or nil for a non-square format.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` for an unknown
    ///   device type.
    package static func isCenterStageSupported(deviceType: String, squareSide: Int?) throws(CameraControlError) -> Bool {
        let traits = try CameraTypeTraits(deviceType: deviceType)
        guard traits.isCenterStageFrontCamera, let squareSide else { return false }
        return squareSide <= largestCenterStageSquareSide
    }

    /// The zoom active Center Stage applies inside the current ratio for `count` people in
    /// frame (the model's assumption, like the smart framing table): 1 person 1.5 (closer),
    /// 2 people 1.2, none or 3 and more 1.0 (wide). Dimensions never change.
    package static func zoomFactor(peopleInFrame count: Int) -> Double {
        switch count {
        case 1: 1.5
        case 2: 1.2
        default: 1.0
        }
    }
}
