extension CaptureSession {
    /// What a scheduled event does to the device.
    public enum Action: Sendable, Hashable {
        /// `device.setDynamicAspectRatio(ratio)`.
        case setDynamicAspectRatio(DynamicAspectRatio)
        /// `device.videoZoomFactor = factor` (never changes dimensions).
        case videoZoomFactor(Double)
        /// Feeds the smart framing monitor a people count; a new recommendation is applied
        /// at once as a `setDynamicAspectRatio` followed by a zoom.
        case peopleInFrame(Int)
        /// The device posture changes (several-camera sessions only:
        /// ``CameraSwitchingSession``); a one-camera session rejects it.
        case posture(DevicePosture)

        /// The action's key in a scenario file.
        public var key: String {
            switch self {
            case .setDynamicAspectRatio: "setDynamicAspectRatio"
            case .videoZoomFactor: "videoZoomFactor"
            case .peopleInFrame: "peopleInFrame"
            case .posture: "posture"
            }
        }
    }

    /// An action at a host (session clock) time.
    public struct Event: Sendable, Hashable {
        /// When the action happens, on the host clock (any timescale; compared exactly).
        public let hostTime: MediaTime
        /// What happens.
        public let action: Action

        /// Creates an event.
        public init(hostTime: MediaTime, action: Action) {
            self.hostTime = hostTime
            self.action = action
        }
    }
}
