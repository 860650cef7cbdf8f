/// A camera's controls at session start, for its manifest `devices` entry (Docs/cameras.md,
/// "Orientation, formats and stabilization", "Center Stage state").
package struct DeviceControlInfo: Sendable, Equatable {
    /// `AVCaptureDevice.DeviceType` spelling.
    package var deviceType: String
    /// The scenario's `preferredVideoStabilizationMode`, or nil.
    package var preferredVideoStabilizationMode: VideoStabilizationMode?
    /// The change latency in effect, frames.
    package var changeLatencyFrames: Int64
    /// Process-wide `isCenterStageEnabled` at start.
    package var centerStageEnabled: Bool
    /// `centerStageControlMode`.
    package var centerStageControlMode: CenterStageControl.ControlMode
    /// `isCenterStageSupported` of the active format.
    package var isCenterStageSupported: Bool
    /// `isCenterStageActive` at start.
    package var isCenterStageActive: Bool
    /// The connection's `activeVideoStabilizationMode` at start: the preferred mode where
    /// the format supports it, else `off` (also when none is set).
    package var activeVideoStabilizationMode: VideoStabilizationMode = .off
    /// Depth data delivery at start.
    package var isDepthDataDeliveryEnabled = false
    /// Geometric distortion correction at start.
    package var isGeometricDistortionCorrectionEnabled = false

    /// A record; see the properties.
    package init(
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
