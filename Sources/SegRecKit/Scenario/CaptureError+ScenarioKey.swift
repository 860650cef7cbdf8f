extension CaptureError {
    /// The scenario key a capture error most likely comes from, for messages about a
    /// scenario the camera model rejects after ``Scenario/validate(file:)`` let it pass
    /// (e.g. an overflow in the clock arithmetic): `device.fps`, `device.clock`, ….
    package var scenarioKey: String {
        switch self {
        case .unsupportedRatio: "device.initialAspectRatio"
        case .unsupportedFrameRate: "device.fps"
        case .zoomFactorOutOfRange: "events[].videoZoomFactor"
        case .smartFramingUnsupported, .unsupportedFraming: "device.smartFraming"
        case .requestOutOfOrder: "events[].atSeconds"
        case .invalidParameter(let name, _, _): name
        case .notCapturing, .time: "device.clock, device.fps or sessionStartSeconds"
        case .dynamicAspectRatioUnsupported: "events[].setDynamicAspectRatio"
        case .notLockedForConfiguration: "events[]"
        }
    }
}
