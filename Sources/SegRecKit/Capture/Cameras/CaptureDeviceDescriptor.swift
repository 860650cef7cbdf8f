/// A `Sendable` stand-in for a camera, from which a session builds the ``CaptureDevice``:
/// the analog of AVKit's `AVCaptureDeviceDescriptor`, which a direction coordinator hands
/// to the app's change handler instead of a device (Docs/cameras.md).
///
/// It holds everything needed to make the device (type, active format, frame rate, device
/// clock, latencies, smart framing) plus the camera's position in the scenario's `cameras`
/// list, which the frame stamp's rows 16–31 carry.
package struct CaptureDeviceDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// `AVCaptureDevice.uniqueID`: the scenario's camera `id` (also the clock's identifier).
    package let uniqueID: String
    /// The camera type.
    package let deviceType: CaptureDevice.DeviceType
    /// The active format (one of the type's ``CaptureDevice/DeviceType/formats``).
    package let format: CaptureDevice.Format
    /// Capture rate, frames per second, at most the format's maximum.
    package let frameRate: FrameRate
    /// The camera's own device clock.
    package let clock: MediaClock
    /// 0-based position in the scenario's `cameras` (what the stamp's rows 16–31 carry);
    /// for the Virtual Front Camera, the number of physical cameras (one past the last).
    package let stampPosition: Int
    /// Frame periods from a request to its first new-size frame (≥ 0).
    package let changeLatencyFrames: Int64
    /// Frames from the first new-size frame to the completion.
    package let completionDelayFrames: Int64
    /// The smart framing monitor's `enabledFramings` by name (formats with smart framing
    /// only); nil when the app chose none (`start()` enables every supported framing), `[]`
    /// for none enabled (no recommendations).
    package let enabledFramings: [String]?
    /// Whether the smart framing monitor runs from the start (formats with smart framing only).
    package let startsSmartFraming: Bool
    /// The video connection's `preferredVideoStabilizationMode` (nil: not set, `off`).
    package let preferredVideoStabilizationMode: VideoStabilizationMode?
    /// Whether ``changeLatencyFrames`` is the stabilization mode's default (no explicit
    /// latency), so that a format switch recomputes it.
    package let changeLatencyFollowsStabilization: Bool
    /// Depth data delivery at start (never on the Virtual Front Camera).
    package let depthDataDeliveryEnabled: Bool
    /// Geometric distortion correction at start.
    package let geometricDistortionCorrectionEnabled: Bool

    /// A descriptor; see the properties.
    package init(
        uniqueID: String, deviceType: CaptureDevice.DeviceType, format: CaptureDevice.Format, frameRate: FrameRate, clock: MediaClock, stampPosition: Int,
        changeLatencyFrames: Int64 = 2, completionDelayFrames: Int64 = 0, enabledFramings: [String]? = nil, startsSmartFraming: Bool = false,
        depthDataDeliveryEnabled: Bool = false, geometricDistortionCorrectionEnabled: Bool = false,
        preferredVideoStabilizationMode: VideoStabilizationMode? = nil, changeLatencyFollowsStabilization: Bool = false
    ) {
        self.preferredVideoStabilizationMode = preferredVideoStabilizationMode
        self.changeLatencyFollowsStabilization = changeLatencyFollowsStabilization
        self.depthDataDeliveryEnabled = depthDataDeliveryEnabled
        self.geometricDistortionCorrectionEnabled = geometricDistortionCorrectionEnabled
        self.uniqueID = uniqueID
        self.deviceType = deviceType
        self.format = format
        self.frameRate = frameRate
        self.clock = clock
        self.stampPosition = stampPosition
        self.changeLatencyFrames = changeLatencyFrames
        self.completionDelayFrames = completionDelayFrames
        self.enabledFramings = enabledFramings
        self.startsSmartFraming = startsSmartFraming
    }

    /// The descriptor of `device` as it is now, at `stampPosition` (smart framing as its
    /// monitor is set up).
    package init(_ device: CaptureDevice, stampPosition: Int) {
        self.init(
            uniqueID: device.uniqueID, deviceType: device.deviceType, format: device.activeFormat, frameRate: device.frameRate, clock: device.clock,
            stampPosition: stampPosition, changeLatencyFrames: device.changeLatencyFrames, completionDelayFrames: device.completionDelayFrames,
            enabledFramings: device.chosenFramings?.map(\.name), startsSmartFraming: device.smartFramingMonitor?.isMonitoring ?? false,
            depthDataDeliveryEnabled: device.isDepthDataDeliveryEnabled, geometricDistortionCorrectionEnabled: device.isGeometricDistortionCorrectionEnabled,
            preferredVideoStabilizationMode: device.preferredVideoStabilizationMode, changeLatencyFollowsStabilization: device.changeLatencyFollowsStabilization
        )
    }

    /// `AVCaptureDevice.Position` of the camera (mounting side, not facing).
    package var position: CaptureDevice.Position { deviceType.position }

    /// Builds the device with `initialAspectRatio` (ignored by a fixed-size format; a square
    /// format that lacks it starts at its first listed ratio), its smart framing monitor
    /// limited to ``enabledFramings`` and started when ``startsSmartFraming``.
    /// - Throws: ``CaptureError`` as ``CaptureDevice/init(format:frameRate:clock:initialAspectRatio:changeLatencyFrames:completionDelayFrames:formats:deviceType:)``;
    ///   ``CaptureError/invalidParameter(name:value:allowed:)`` for framings the format lacks,
    ///   ``CaptureError/smartFramingUnsupported(formatSide:)`` for smart framing without a monitor.
    package func makeDevice(initialAspectRatio: DynamicAspectRatio) throws(CaptureError) -> CaptureDevice {
        let ratios = format.supportedDynamicAspectRatios
        let ratio = ratios.isEmpty || ratios.contains(initialAspectRatio) ? initialAspectRatio : ratios[0]
        let device = try CaptureDevice(
            format: format, frameRate: frameRate, clock: clock, initialAspectRatio: ratio, changeLatencyFrames: changeLatencyFrames,
            completionDelayFrames: completionDelayFrames, formats: deviceType.formats, deviceType: deviceType)
        // The app configures the camera before the session runs, inside the lock as on iOS.
        device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        if let enabledFramings {
            do {
                if let monitor = device.smartFramingMonitor {
                    try monitor.setEnabledFramings(named: enabledFramings)
                    device.appEnabledFramings = monitor.enabledFramings
                } else {
                    device.appEnabledFramings = try enabledFramings.map { name throws(CameraControlError) in try CaptureFraming(named: name) }
                }
            } catch { throw .invalidParameter(name: "enabledFramings", value: enabledFramings.joined(separator: ", "), allowed: "\(error)") }
        }
        try device.setDepthDataDeliveryEnabled(depthDataDeliveryEnabled)
        try device.setGeometricDistortionCorrectionEnabled(geometricDistortionCorrectionEnabled)
        device.preferredVideoStabilizationMode = preferredVideoStabilizationMode
        device.changeLatencyFollowsStabilization = changeLatencyFollowsStabilization
        if startsSmartFraming {
            guard let monitor = device.smartFramingMonitor else { throw .smartFramingUnsupported(formatSide: format.squareSide) }
            monitor.enableSupportedFramingsUnlessChosen()
            monitor.startMonitoring()
        }
        return device
    }

    /// `outer (builtInOuterUltraWideCamera, 3840 at 120 fps)`.
    package var description: String { "\(uniqueID) (\(deviceType.rawValue), \(format.name) at \(frameRate) fps)" }
}
