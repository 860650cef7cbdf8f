/// `AVCaptureVideoStabilizationMode`, as set with an `AVCaptureConnection`'s
/// `preferredVideoStabilizationMode` (Docs/cameras.md, "Orientation, formats and stabilization").
/// The raw value is the scenario spelling.
///
/// Stabilization looks ahead, so it delays when the first buffer of a new size comes: the
/// mode sets the default `changeLatencyFrames` (the model's assumption; an explicit value
/// in the scenario wins, see ``changeLatencyFrames(explicit:)``):
///
/// | mode | default `changeLatencyFrames` | supported by |
/// |---|---|---|
/// | `off` | 1 | every camera |
/// | `lowLatency` | 1 | Center Stage front cameras only |
/// | `standard` | 2 | every camera |
/// | `cinematic` | 3 | every camera |
/// | `cinematicExtended` | 4 | every camera |
/// | `cinematicExtendedEnhanced` | 5 | every camera |
package enum VideoStabilizationMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No stabilization (Apple's default for a connection).
    case off
    /// Standard stabilization.
    case standard
    /// Cinematic stabilization (more crop, more delay).
    case cinematic
    /// Extended cinematic stabilization, for recordings.
    case cinematicExtended
    /// Extended cinematic stabilization with the enhanced field of view, for recordings.
    case cinematicExtendedEnhanced
    /// Real-time stabilization for calls (iOS 26, Center Stage front cameras).
    case lowLatency

    /// The mode's default frame periods between a request and its first new-size buffer.
    package var defaultChangeLatencyFrames: Int64 {
        switch self {
        case .off, .lowLatency: 1
        case .standard: 2
        case .cinematic: 3
        case .cinematicExtended: 4
        case .cinematicExtendedEnhanced: 5
        }
    }

    /// The latency in effect: `explicit` when the scenario gives `changeLatencyFrames`,
    /// else ``defaultChangeLatencyFrames``.
    package func changeLatencyFrames(explicit: Int64?) -> Int64 { explicit ?? defaultChangeLatencyFrames }

    /// The allowed spellings, for error messages.
    package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The mode spelled `name`.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` naming the six modes.
    package init(named name: String) throws(CameraControlError) { self = try CameraControlError.spelled(name, name: "preferredVideoStabilizationMode") }

    /// The modes the camera of `deviceType` supports, in declaration order: all six on a
    /// Center Stage front camera, all but `lowLatency` elsewhere.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` for an unknown
    ///   device type.
    package static func supportedModes(deviceType: String) throws(CameraControlError) -> [VideoStabilizationMode] {
        let traits = try CameraTypeTraits(deviceType: deviceType)
        return allCases.filter { $0 != .lowLatency || traits.isCenterStageFrontCamera }
    }

    /// The modes a format supports (`AVCaptureDevice.Format.isVideoStabilizationModeSupported(_:)`),
    /// in declaration order: those of ``supportedModes(deviceType:)``, with `lowLatency` (a
    /// video-call mode) only on formats that support Center Stage (square, at most 1920), as
    /// the seeds' call code checks it on the active format.
    /// - Parameters:
    ///   - deviceType: the camera's `AVCaptureDevice.DeviceType` spelling.
    ///   - squareSide: the format's square side, or nil for a fixed (non-square) format.
    /// - Throws: as ``supportedModes(deviceType:)``.
    package static func supportedModes(deviceType: String, squareSide: Int?) throws(CameraControlError) -> [VideoStabilizationMode] {
        let centerStageFormat = try CenterStageControl.isCenterStageSupported(deviceType: deviceType, squareSide: squareSide)
        return try supportedModes(deviceType: deviceType).filter { $0 != .lowLatency || centerStageFormat }
    }

    /// The mode an `AVCaptureConnection` uses (`activeVideoStabilizationMode`) for a
    /// preferred one: `preferred` where the format supports it; `off` when none is set (the
    /// connection's default) or the format does not support it.
    package static func activeMode(preferred: VideoStabilizationMode?, supported: [VideoStabilizationMode]) -> VideoStabilizationMode {
        guard let preferred, supported.contains(preferred) else { return .off }
        return preferred
    }

    /// `AVCaptureDevice.Format.isVideoStabilizationModeSupported(_:)` for the camera of
    /// `deviceType`. - Throws: as ``supportedModes(deviceType:)``.
    package func isSupported(deviceType: String) throws(CameraControlError) -> Bool { try Self.supportedModes(deviceType: deviceType).contains(self) }

    /// Checks that the camera of `deviceType` supports this mode.
    /// - Throws: ``CameraControlError/unsupportedStabilizationMode(_:deviceType:supported:)``
    ///   naming the supported modes, or ``CameraControlError/unknownValue(name:value:allowed:)``
    ///   for an unknown device type.
    package func validate(deviceType: String) throws(CameraControlError) {
        let supported = try Self.supportedModes(deviceType: deviceType)
        guard supported.contains(self) else { throw .unsupportedStabilizationMode(self, deviceType: deviceType, supported: supported) }
    }
}
