extension CaptureSession {
    /// What a scheduled event does to the device.
    package enum Action: Sendable, Hashable {
        /// `device.setDynamicAspectRatio(ratio)`.
        case setDynamicAspectRatio(DynamicAspectRatio)
        /// `device.videoZoomFactor = factor` (never changes dimensions).
        case videoZoomFactor(Double)
        /// Feeds the smart framing monitor a people count; a new recommendation is applied
        /// at once as a `setDynamicAspectRatio` followed by a zoom.
        case peopleInFrame(Int)
        /// The device posture changes (several-camera routings only); a session with
        /// ``CaptureSession/Routing/fixed`` rejects it. With ``CaptureSession/views`` it only
        /// opens or closes the phone (`closed`, `open`): the views' displays say the rest.
        case posture(DevicePosture)
        /// The app's view `id` moves to `display` (with ``CaptureSession/views`` only).
        case moveView(id: String, display: AppViews.Display)
        /// The app lets view `id`'s direction coordinator drive the recording (with
        /// ``CaptureSession/views`` only).
        case drivingView(String)
        /// The phone is now held this way (`UIDeviceOrientation`): the rotation coordinator's
        /// capture angle follows from the first frame captured at or after it.
        case deviceOrientation(DeviceOrientation)
        /// segrec's `apply(ratio)` (the seeds' always switches to the first format listing the
        /// ratio; Docs/cameras.md says why segrec departs): keep the active format if it lists
        /// the ratio, else switch to the first format that does (a reconfiguration gap), then
        /// set the ratio.
        case apply(DynamicAspectRatio)
        /// Switch `activeFormat` to the format spelled this way (`"1920"`), keeping the ratio.
        case activeFormat(String)
        /// Start or stop the smart framing monitor.
        case smartFraming(SmartFramingMonitor.Action)
        /// The app turns Center Stage on or off (`AVCaptureDevice.isCenterStageEnabled`),
        /// as `centerStageControlMode` allows.
        case centerStageEnabled(Bool)
        /// The person turns Center Stage on or off in Control Center's Video Effects:
        /// honoured when `centerStageControlMode` lets the user (`user`, `cooperative`),
        /// ignored (and logged as ignored) in `app` mode.
        case userCenterStageEnabled(Bool)
        /// Depth data delivery on or off on the streaming camera (not the Virtual Front
        /// Camera); Center Stage is inactive while it is on.
        case depthDataDeliveryEnabled(Bool)
        /// `isGeometricDistortionCorrectionEnabled` on the streaming camera; Center Stage is
        /// inactive while it is on.
        case geometricDistortionCorrectionEnabled(Bool)

        /// The action's key in a scenario file.
        package var key: String {
            switch self {
            case .setDynamicAspectRatio: "setDynamicAspectRatio"
            case .videoZoomFactor: "videoZoomFactor"
            case .peopleInFrame: "peopleInFrame"
            case .posture: "posture"
            case .moveView: "moveView"
            case .drivingView: "drivingView"
            case .deviceOrientation: "deviceOrientation"
            case .apply: "apply"
            case .activeFormat: "activeFormat"
            case .smartFraming: "smartFraming"
            case .centerStageEnabled: "centerStageEnabled"
            case .userCenterStageEnabled: "userCenterStageEnabled"
            case .depthDataDeliveryEnabled: "depthDataDeliveryEnabled"
            case .geometricDistortionCorrectionEnabled: "geometricDistortionCorrectionEnabled"
            }
        }
    }

    /// An action at a host (session clock) time.
    package struct Event: Sendable, Hashable {
        /// When the action happens, on the host clock (any timescale; compared exactly).
        package let hostTime: MediaTime
        /// What happens.
        package let action: Action

        /// Creates an event.
        package init(hostTime: MediaTime, action: Action) {
            self.hostTime = hostTime
            self.action = action
        }
    }
}
