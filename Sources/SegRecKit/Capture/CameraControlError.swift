/// Errors of the camera controls of Docs/cameras.md (rotation, stabilization, Center
/// Stage, smart framing, active format). Every message names the offending value and what
/// is allowed, so a scenario error can name the file and key around it (exit 65 at the CLI).
package enum CameraControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A spelling that is none of the allowed ones (device type, orientation, stabilization
    /// mode, control mode, framing, smart framing action).
    case unknownValue(name: String, value: String, allowed: String)
    /// `preferredVideoStabilizationMode` the camera does not support
    /// (`AVCaptureDevice.Format.isVideoStabilizationModeSupported(_:)` is false).
    case unsupportedStabilizationMode(VideoStabilizationMode, deviceType: String, supported: [VideoStabilizationMode])
    /// `isCenterStageEnabled` set by someone the control mode does not allow
    /// (`AVCaptureDevice.centerStageControlMode`).
    case centerStageControlDenied(by: CenterStageControl.Requester, controlMode: CenterStageControl.ControlMode)
    /// A framing that is not in the monitor's `supportedFramings`.
    case unsupportedFraming(CaptureFraming, supported: [CaptureFraming])
    /// No format of the camera supports `ratio` (the seeds' `apply()` finds none).
    case noFormatSupports(DynamicAspectRatio, formats: [String])
    /// `activeFormat` asked for a format the camera does not list.
    case formatUnavailable(String, available: [String])
    /// An explicit format switch to a format that lacks the ratio in effect (never a silent
    /// fallback to another ratio).
    case formatLacksRatio(format: String, ratio: DynamicAspectRatio, supported: [DynamicAspectRatio])

    /// The message: the offending value and what is allowed.
    package var description: String {
        switch self {
        case .unknownValue(let name, let value, let allowed): return "\(name) \"\(value)\" is unknown; allowed: \(allowed)"
        case .unsupportedStabilizationMode(let mode, let type, let supported):
            return "video stabilization mode \(mode.rawValue) is not supported by \(type); supported: " + supported.map(\.rawValue).joined(separator: ", ")
        case .centerStageControlDenied(let requester, let mode):
            let allowed = CenterStageControl.ControlMode.allCases.filter { $0.allows(requester) }.map(\.rawValue)
            return "Center Stage cannot be turned on or off by the \(requester.rawValue) while centerStageControlMode is "
                + "\(mode.rawValue); allowed control modes for the \(requester.rawValue): \(allowed.joined(separator: ", "))"
        case .unsupportedFraming(let framing, let supported):
            return "framing \(framing.name) is not one of the monitor's supported framings; supported: " + supported.map(\.name).joined(separator: ", ")
        case .noFormatSupports(let ratio, let formats):
            return "no format of the camera supports dynamic aspect ratio \(ratio.rawValue); formats: " + formats.joined(separator: ", ")
        case .formatUnavailable(let format, let available):
            return "format \(format) is not one of the camera's formats; available: " + available.joined(separator: ", ")
        case .formatLacksRatio(let format, let ratio, let supported):
            return "format \(format) does not support the dynamic aspect ratio in effect, \(ratio.rawValue); supported: "
                + supported.map(\.rawValue).joined(separator: ", ")
        }
    }
}

extension CameraControlError {
    /// The case of `T` spelled `value`.
    /// - Throws: ``unknownValue(name:value:allowed:)`` for `name`, naming every spelling.
    static func spelled<T: CaseIterable & RawRepresentable<String>>(_ value: String, name: String) throws(CameraControlError) -> T {
        guard let spelled = T(rawValue: value) else {
            throw .unknownValue(name: name, value: value, allowed: T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return spelled
    }
}
