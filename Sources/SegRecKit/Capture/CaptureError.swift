/// Errors from the capture model (``CaptureDevice``, ``SmartFramingMonitor``,
/// ``CaptureSession``). Every message names the offending value and what is allowed.
package enum CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The active format does not list `ratio` in its `supportedDynamicAspectRatios`.
    /// Never silently replaced by another ratio.
    case unsupportedRatio(DynamicAspectRatio, formatSide: Int, supported: [DynamicAspectRatio])
    /// `frameRate` exceeds the format's `maxFrameRate` (frames per second).
    case unsupportedFrameRate(FrameRate, formatSide: Int, maximum: FrameRate)
    /// A zoom factor outside `minimum...maximum` (or not finite).
    case zoomFactorOutOfRange(Double, minimum: Double, maximum: Double)
    /// Smart framing was asked of a format that does not support it (only 4032 does).
    case smartFramingUnsupported(formatSide: Int)
    /// A framing that is not in the monitor's `supportedFramings`.
    case unsupportedFraming(CaptureFraming)
    /// A request needs the device to be capturing (``CaptureDevice/startCapture(sessionStart:)``).
    case notCapturing
    /// A request's host time is earlier than a previous request's or the current time
    /// (host nanoseconds): requests are made in time order.
    case requestOutOfOrder(requested: MediaTime, current: MediaTime)
    /// A parameter outside its allowed range (name, value, allowed).
    case invalidParameter(name: String, value: String, allowed: String)
    /// Exact time arithmetic overflowed.
    case time(MediaTimeError)
    /// `setDynamicAspectRatio` on a camera whose sensor has no dynamic aspect ratio (the
    /// back camera): the request fails `unsupported`.
    case dynamicAspectRatioUnsupported(camera: String, deviceType: String)
    /// A configuration change (`operation`, e.g. `videoZoomFactor`) on a device the app has
    /// not locked: AVFoundation requires `lockForConfiguration()` first.
    case notLockedForConfiguration(camera: String, operation: String)

    /// The message: the offending value and what is allowed.
    package var description: String {
        switch self {
        case .unsupportedRatio(let ratio, let side, let supported):
            return "dynamic aspect ratio \(ratio.rawValue) is not supported by the \(side) format; "
                + "supported: \(supported.map(\.rawValue).joined(separator: ", "))"
        case .unsupportedFrameRate(let rate, let side, let maximum): return "frame rate \(rate) fps exceeds the \(side) format's maximum of \(maximum) fps"
        case .zoomFactorOutOfRange(let value, let minimum, let maximum): return "video zoom factor \(value) is out of range; allowed: \(minimum)...\(maximum)"
        case .smartFramingUnsupported(let side): return "smart framing is not supported by the \(side) format; only the 4032 format supports it"
        case .unsupportedFraming(let framing):
            return "framing \(framing) is not one of the monitor's supported framings; allowed: " + CaptureFraming.allowedNames
        case .notCapturing: return "the capture device is not capturing: start a session first"
        case .requestOutOfOrder(let requested, let current):
            return "request at host time \(requested) is earlier than the device's current time \(current); requests must be made in time order"
        case .invalidParameter(let name, let value, let allowed): return "\(name) \(value) is invalid; allowed: \(allowed)"
        case .time(let error): return error.description
        case .dynamicAspectRatioUnsupported(let camera, let type):
            return "unsupported: camera \(camera) (\(type)) has no dynamic aspect ratio; only the square front cameras crop to 3x4, 4x3, 9x16, 16x9, 1x1"
        case .notLockedForConfiguration(let camera, let operation):
            return "\(operation) on camera \(camera) needs the device locked: call lockForConfiguration() first and unlockForConfiguration() after"
        }
    }
}
