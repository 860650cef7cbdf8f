/// The camera controls a capture session owns besides its devices (Docs/cameras.md,
/// "Orientation, formats and stabilization"): how the phone is held, Center Stage's
/// process-wide state, and what the last delivered frame looked like (capture angle, zoom,
/// Center Stage active), so the session can log each change once in the manifest's
/// `events` at the first frame it affects.
///
/// A `Sendable` value owned by one ``CaptureSession`` and mutated from its single task.
package struct CameraControlState: Sendable {
    /// How the phone is held now (`initialDeviceOrientation`, then `deviceOrientation`
    /// events).
    package private(set) var deviceOrientation: DeviceOrientation
    /// Center Stage's enabled intent and control mode.
    package private(set) var centerStage: CenterStageControl
    /// The last people count seen (drives active Center Stage's zoom).
    package private(set) var peopleInFrame: Int?
    /// The reconfiguration gap of an active-format switch (host nanoseconds).
    package let switchGap: MediaTime
    /// What the app does with smart framing recommendations (default: applies them).
    package var smartFramingPolicy: SmartFramingPolicy = .apply

    private var lastAngle: VideoRotationAngle?
    /// The zoom of the previous frame (1.0, the device's zoom at start, before the first).
    private var lastZoom: Double? = 1.0
    /// Why the zoom last changed, for the `zoomChanged` event's message.
    private var zoomCause = "videoZoomFactor"
    private var lastCenterStageActive: [String: Bool] = [:]

    /// The state at session start.
    /// - Parameters:
    ///   - deviceOrientation: `initialDeviceOrientation` (default portrait).
    ///   - centerStage: `centerStageEnabled` / `centerStageControlMode` (default iOS's:
    ///     user control, disabled).
    ///   - switchGap: ≥ 0, host clock (default 0.25 s).
    package init(
        deviceOrientation: DeviceOrientation = .portrait, centerStage: CenterStageControl = CenterStageControl(),
        switchGap: MediaTime = CameraControlState.defaultSwitchGap
    ) {
        self.deviceOrientation = deviceOrientation
        self.centerStage = centerStage
        self.switchGap = switchGap
    }

    /// 0.25 s, the session's default reconfiguration gap.
    package static let defaultSwitchGap = MediaTime(value: 250_000_000, timescale: 1_000_000_000)

    /// The capture angle for a camera of `deviceType` facing `facing` now
    /// (``RotationCoordinator``'s `videoRotationAngleForHorizonLevelCapture`), as
    /// Docs/cameras.md's table gives it per sensor and facing: square sensors (every front
    /// camera, the Virtual Front Camera) are portrait-mounted, the back camera's 16:9 sensor
    /// landscape-mounted; a camera facing the user turns with the orientation (0, 90, 180,
    /// 270 for portrait, landscapeLeft, portraitUpsideDown, landscapeRight on a portrait
    /// sensor; 90, 180, 270, 0 on a landscape one), a camera facing away against it (90, 0,
    /// 270, 180 for the back camera facing away).
    ///
    /// `facing` is the camera's facing relative to the display the app's view is on
    /// (``DirectionCoordinator``), and the device orientation is read relative to that
    /// display, so the angle follows the view when an iPhone Duo moves it between displays,
    /// as the rotation coordinator updates there: the back camera streaming to a view on the
    /// outer display (`openOuterDisplay`) faces the user and takes the user-facing angle.
    package func rotationAngle(deviceType: CaptureDevice.DeviceType, facing: CameraFacing) -> VideoRotationAngle {
        RotationCoordinator.videoRotationAngle(
            mounting: deviceType.sensorMounting, facing: facing == .user ? .user : .away, deviceOrientation: deviceOrientation)
    }

    /// `AVCaptureDevice.Format.isCenterStageSupported` for `device`'s active format
    /// (``CenterStageControl/isCenterStageSupported(deviceType:squareSide:)``: a square
    /// format of at most 1920 on a front camera; the Virtual Front Camera counts as one).
    package static func isCenterStageSupported(_ device: CaptureDevice) -> Bool {
        guard device.deviceType != .builtInDualWideCamera, device.deviceType != .builtInWideAngleCamera, device.activeFormat.fixedDimensions == nil else {
            return false
        }
        return device.activeFormat.squareSide <= CenterStageControl.largestCenterStageSquareSide
    }

    /// `device.isCenterStageActive` now: enabled, on a supporting format, with neither depth
    /// data delivery nor geometric distortion correction on.
    package func isCenterStageActive(_ device: CaptureDevice) -> Bool {
        centerStage.isCenterStageActive(
            formatSupportsCenterStage: Self.isCenterStageSupported(device), isDepthDataDeliveryEnabled: device.isDepthDataDeliveryEnabled,
            isGeometricDistortionCorrectionEnabled: device.isGeometricDistortionCorrectionEnabled)
    }

    /// Applies `{"depthDataDeliveryEnabled": …}` or `{"geometricDistortionCorrectionEnabled":
    /// …}` to `device` at host time `s`: the feature changes, and Center Stage, which the
    /// seeds say excludes both, stops (zoom back to 1.0) or resumes framing (the last people
    /// count) from the next frame, where `centerStageActiveChanged` is logged.
    /// - Returns: the feature's change (saying what it did to Center Stage), none when
    ///   nothing changes.
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` for depth on the
    ///   Virtual Front Camera.
    mutating func setCaptureFeature(_ feature: CaptureFeature, enabled: Bool, at s: MediaTime, device: CaptureDevice) throws(CaptureError)
        -> [CaptureSessionChange]
    {
        let was = feature == .depthDataDelivery ? device.isDepthDataDeliveryEnabled : device.isGeometricDistortionCorrectionEnabled
        guard was != enabled else { return [] }
        let wasActive = isCenterStageActive(device)
        switch feature {
        case .depthDataDelivery: try device.setDepthDataDeliveryEnabled(enabled)
        case .geometricDistortionCorrection: try device.setGeometricDistortionCorrectionEnabled(enabled)
        }
        let isActive = isCenterStageActive(device)
        try followCenterStage(wasActive: wasActive, on: device, inactiveCause: "Center Stage inactive: \(feature.rawValue) on")
        let effect =
            wasActive == isActive
            ? nil : isActive ? "Center Stage active again" : "Center Stage inactive while \(feature.rawValue) is on (they are mutually exclusive)"
        return [.captureFeatureChanged(feature, camera: device.uniqueID, from: was, to: enabled, at: s, centerStageEffect: effect)]
    }

    /// A capture feature Center Stage excludes.
    package enum CaptureFeature: String, Sendable, Hashable {
        /// Depth data delivery.
        case depthDataDelivery = "depth data delivery"
        /// Geometric distortion correction.
        case geometricDistortionCorrection = "geometric distortion correction"
    }

    // MARK: Events applied at their host time

    /// Applies `{"deviceOrientation": …}` at host time `s`: the orientation's change, or
    /// nil when it does not change.
    mutating func setDeviceOrientation(_ orientation: DeviceOrientation, at s: MediaTime) -> CaptureSessionChange? {
        guard orientation != deviceOrientation else { return nil }
        defer { deviceOrientation = orientation }
        return .deviceOrientationChanged(from: deviceOrientation, to: orientation, at: s)
    }

    /// Applies `{"centerStageEnabled": …}` by the app at host time `s`; Center Stage's zoom
    /// on `device` follows (people-count zoom while active, 1.0 when it turns off).
    /// - Returns: the `isCenterStageEnabled` change, none when the state does not change.
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` when the control mode
    ///   does not let the app change it, naming the modes that do.
    mutating func setCenterStageEnabled(_ enabled: Bool, at s: MediaTime, device: CaptureDevice) throws(CaptureError) -> [CaptureSessionChange] {
        let wasActive = isCenterStageActive(device)
        let changed: Bool
        do { changed = try centerStage.setCenterStageEnabled(enabled, by: .app) } catch {
            throw .invalidParameter(name: "centerStageEnabled", value: "\(enabled)", allowed: "\(error)")
        }
        guard changed else { return [] }  // already in that state: nothing happens, nothing logged
        try followCenterStage(wasActive: wasActive, on: device, inactiveCause: "Center Stage turned off")
        return [.centerStageEnabledChanged(camera: device.uniqueID, from: !enabled, to: enabled, by: .app, at: s)]
    }

    /// Applies `{"userCenterStageEnabled": …}` (the person, in Control Center) at host time
    /// `s`: honoured as the app's toggle is where `centerStageControlMode` lets the user
    /// (`user`, `cooperative`), so the app reflects the real state; in `app` mode the toggle
    /// is ignored and a `centerStageToggleIgnored` change says so.
    /// - Returns: the changes (none when the state is already the one asked for).
    /// - Throws: ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)`` (never for the
    ///   model's factors).
    mutating func setCenterStageEnabledByUser(_ enabled: Bool, at s: MediaTime, device: CaptureDevice) throws(CaptureError) -> [CaptureSessionChange] {
        let wasActive = isCenterStageActive(device)
        let changed: Bool
        do { changed = try centerStage.setCenterStageEnabled(enabled, by: .user) } catch {
            return [
                .centerStageToggleIgnored(
                    camera: device.uniqueID, isEnabled: centerStage.isCenterStageEnabled, requested: enabled, controlMode: centerStage.centerStageControlMode,
                    at: s)
            ]
        }
        guard changed else { return [] }
        try followCenterStage(wasActive: wasActive, on: device, inactiveCause: "Center Stage turned off by the user")
        return [.centerStageEnabledChanged(camera: device.uniqueID, from: !enabled, to: enabled, by: .user, at: s)]
    }

    /// Center Stage's zoom after a format switch from `old` to `new` (the same camera
    /// reconfigured, its zoom carried over): when Center Stage stops being active the zoom
    /// returns to 1.0 (the picture is un-zoomed from the new format's first frame, logged as
    /// `zoomChanged` then); when it becomes active it frames the last people count.
    /// - Throws: ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)`` (never for the
    ///   model's factors).
    mutating func formatDidChange(from old: CaptureDevice, to new: CaptureDevice) throws(CaptureError) {
        try followCenterStage(wasActive: isCenterStageActive(old), on: new, inactiveCause: "Center Stage inactive on format \(new.activeFormat.name)")
    }

    /// Sets `device`'s zoom when Center Stage's active state changed from `wasActive`: the
    /// people-count zoom when it became active (with a count known), 1.0 when it became
    /// inactive (the picture is no longer framed).
    private mutating func followCenterStage(wasActive: Bool, on device: CaptureDevice, inactiveCause: String) throws(CaptureError) {
        let isActive = isCenterStageActive(device)
        guard wasActive != isActive else { return }
        if isActive, let count = peopleInFrame {
            try device.applyVideoZoomFactor(CenterStageControl.zoomFactor(peopleInFrame: count))
            zoomCause = "Center Stage framing \(count) \(count == 1 ? "person" : "people")"
        } else if !isActive, device.videoZoomFactor != 1 {
            try device.applyVideoZoomFactor(1)
            zoomCause = inactiveCause
        }
    }

    /// Center Stage on the camera a switch hands the stream to (`old` → `new`): Center Stage
    /// is one process-wide state, so where it is active on `new` the last people count frames
    /// `new`'s first picture at once (the seeds: once enabled it applies to every supported
    /// camera); where it is not, `new` shows its own zoom. The next `zoomChanged` says which.
    /// - Throws: ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)`` (never for the
    ///   model's factors).
    mutating func cameraDidSwitch(from old: CaptureDevice, to new: CaptureDevice) throws(CaptureError) {
        if isCenterStageActive(new), let count = peopleInFrame {
            try new.applyVideoZoomFactor(CenterStageControl.zoomFactor(peopleInFrame: count))
            zoomCause = "Center Stage framing \(count) \(count == 1 ? "person" : "people") on \(new.uniqueID) (switched from \(old.uniqueID))"
        } else {
            let why = centerStage.isCenterStageEnabled ? "Center Stage not supported there" : "Center Stage off"
            zoomCause = "camera switched from \(old.uniqueID) to \(new.uniqueID) (its own zoom; \(why))"
        }
    }

    /// Applies a people count at host time `s` to `device` while Center Stage is active
    /// (zoom only, inside the ratio); remembers the count either way.
    /// - Returns: whether Center Stage zoomed.
    mutating func observePeople(_ count: Int, device: CaptureDevice) throws(CaptureError) -> Bool {
        peopleInFrame = count
        guard isCenterStageActive(device) else { return false }
        try device.applyVideoZoomFactor(CenterStageControl.zoomFactor(peopleInFrame: count))
        zoomCause = "Center Stage framing \(count) \(count == 1 ? "person" : "people")"
        return true
    }

    /// Notes why the next zoom change happens (for the `zoomChanged` message).
    mutating func noteZoomCause(_ cause: String) { zoomCause = cause }

    // MARK: Per frame

    /// The changes a frame delivered with `angle` and `zoom` by `device` starts: the
    /// capture angle when it differs from the previous frame's, the drawn zoom when it
    /// does, `device`'s `isCenterStageActive` when it does (the first frame only sets the
    /// baseline).
    mutating func frameChanges(angle: VideoRotationAngle, zoom: Double, device: CaptureDevice, frame: CaptureSessionChange.Frame) -> [CaptureSessionChange] {
        var changes: [CaptureSessionChange] = []
        if let lastAngle, lastAngle != angle { changes.append(.videoRotationAngleChanged(camera: device.uniqueID, from: lastAngle, to: angle, frame: frame)) }
        if let lastZoom, lastZoom != zoom {
            changes.append(.videoZoomFactorChanged(camera: device.uniqueID, from: lastZoom, to: zoom, frame: frame, cause: zoomCause))
        }
        let active = isCenterStageActive(device)
        if let last = lastCenterStageActive[device.uniqueID], last != active {
            changes.append(.centerStageActiveChanged(camera: device.uniqueID, from: last, to: active, frame: frame))
        }
        lastAngle = angle
        lastZoom = zoom
        lastCenterStageActive[device.uniqueID] = active
        return changes
    }
}

extension CaptureDevice {
    /// The same camera reconfigured to `format` at `frameRate` with `aspectRatio` in effect
    /// from its first frame, capturing from host time `start` (the end of the
    /// reconfiguration gap): its grid is anchored at `D0' = convertTime(start, host →
    /// device)` rounded up to the next device tick, so its first frame is the first
    /// device tick at or after the gap end. Clock, type, format list, latencies and zoom
    /// carry over; a new smart framing monitor (4032) takes the old one's enabled framings
    /// and running state.
    /// - Throws: ``CaptureError`` for a rate or ratio `format` rejects, or on overflow.
    /// Requests may be made from the switch time `switchedAt` on (during the gap they take
    /// effect from the first frame they can).
    func reconfigured(format: Format, frameRate: FrameRate, aspectRatio: DynamicAspectRatio, capturingFrom start: MediaTime, switchedAt s: MediaTime)
        throws(CaptureError) -> CaptureDevice
    {
        var latency = changeLatencyFrames
        if changeLatencyFollowsStabilization, let preferred = preferredVideoStabilizationMode {
            let supported = CaptureDevice.supportedVideoStabilizationModes(deviceType: deviceType, format: format)
            latency = VideoStabilizationMode.activeMode(preferred: preferred, supported: supported).defaultChangeLatencyFrames
        }
        let device = try CaptureDevice(
            format: format, frameRate: frameRate, clock: clock, initialAspectRatio: aspectRatio, changeLatencyFrames: latency,
            completionDelayFrames: completionDelayFrames, formats: formats, deviceType: deviceType)
        device.preferredVideoStabilizationMode = preferredVideoStabilizationMode
        device.changeLatencyFollowsStabilization = changeLatencyFollowsStabilization
        try device.applyVideoZoomFactor(videoZoomFactor)
        device.configureInitially(
            depthDataDeliveryEnabled: isDepthDataDeliveryEnabled, geometricDistortionCorrectionEnabled: isGeometricDistortionCorrectionEnabled)
        // The same AVCaptureDevice on iOS: the app's lock holds across the format change.
        if isLockedForConfiguration { device.lockForConfiguration() }
        device.appEnabledFramings = chosenFramings
        if let new = device.smartFramingMonitor {
            if let chosen = device.appEnabledFramings { try new.setEnabledFramings(chosen.filter { new.supportedFramings.contains($0) }) }
            if smartFramingMonitor?.isMonitoring == true { new.startMonitoring() }
        }
        let d0: MediaTime
        do { d0 = try convertTime(start, from: .host, to: clock, rounding: .roundTowardPositiveInfinity) } catch { throw .time(error) }
        try device.startCapture(firstFrameDeviceTicks: d0.value, at: s)
        return device
    }
}
