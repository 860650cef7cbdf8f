/// A camera's controls at session start, for its manifest `devices` entry (Docs/cameras.md,
/// "Orientation, formats and stabilization", "Center Stage state").
public struct DeviceControlInfo: Sendable, Equatable {
    /// `AVCaptureDevice.DeviceType` spelling.
    public var deviceType: String
    /// The scenario's `preferredVideoStabilizationMode`, or nil.
    public var preferredVideoStabilizationMode: VideoStabilizationMode?
    /// The change latency in effect, frames.
    public var changeLatencyFrames: Int64
    /// Process-wide `isCenterStageEnabled` at start.
    public var centerStageEnabled: Bool
    /// `centerStageControlMode`.
    public var centerStageControlMode: CenterStageControl.ControlMode
    /// `isCenterStageSupported` of the active format.
    public var isCenterStageSupported: Bool
    /// `isCenterStageActive` at start.
    public var isCenterStageActive: Bool
    /// The connection's `activeVideoStabilizationMode` at start: the preferred mode where
    /// the format supports it, else `off` (also when none is set).
    public var activeVideoStabilizationMode: VideoStabilizationMode = .off
    /// Depth data delivery at start.
    public var isDepthDataDeliveryEnabled = false
    /// Geometric distortion correction at start.
    public var isGeometricDistortionCorrectionEnabled = false

    /// A record; see the properties.
    public init(
        deviceType: String, preferredVideoStabilizationMode: VideoStabilizationMode?, changeLatencyFrames: Int64, centerStageEnabled: Bool,
        centerStageControlMode: CenterStageControl.ControlMode, isCenterStageSupported: Bool, isCenterStageActive: Bool
    ) {
        self.deviceType = deviceType
        self.preferredVideoStabilizationMode = preferredVideoStabilizationMode
        self.changeLatencyFrames = changeLatencyFrames
        self.centerStageEnabled = centerStageEnabled
        self.centerStageControlMode = centerStageControlMode
        self.isCenterStageSupported = isCenterStageSupported
        self.isCenterStageActive = isCenterStageActive
    }
}
