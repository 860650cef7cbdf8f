/// A camera (`AVCaptureDevice`): by default the front Center Stage camera (device type
/// `.builtInUltraWideCamera`, position `.front`), a square sensor cropped to a dynamic
/// aspect ratio, with its own device clock (Docs/clocks.md and Docs/cameras.md, "Dynamic
/// aspect ratio"); also the iPhone Duo cameras (``DeviceType``), including the back
/// camera's fixed 16:9 formats, built from a ``CaptureDeviceDescriptor``.
///
/// ## Timing model
/// Frame `i` is captured at `D(i)` (``FrameTiming``). A request made at host time `s`
/// takes effect on frame `k`, the first frame with
/// `D(k) ≥ convertTime(s, host → device) + changeLatencyFrames · ts / fps` (exact), and
/// never on a frame already captured. Requests are recorded in the order made and complete
/// in that order (FIFO).
///
/// ## Concurrency
/// `CaptureDevice` is a non-`Sendable` final class: it is owned by one ``CaptureSession``
/// and driven by the single task that pulls that session's events, so its mutable state
/// needs no lock and Swift 6's region checking keeps it from being shared. The `async`
/// ``setDynamicAspectRatio(_:)`` is `nonisolated(nonsending)`: it runs on the caller's
/// executor, so calling it never sends the device to another isolation domain. Everything
/// is deterministic: the device's "now" is the host time the session has reached.
package final class CaptureDevice {
    /// `AVCaptureDevice.DeviceType`: the single Center Stage front camera and the iPhone Duo
    /// cameras of the table in Docs/cameras.md.
    package enum DeviceType: String, Sendable, CaseIterable {
        /// The ultra-wide camera; on the front, the Center Stage square sensor.
        case builtInUltraWideCamera
        /// iPhone Duo's outer front camera (square sensor, up to 3840 at 120 fps).
        case builtInOuterUltraWideCamera
        /// iPhone Duo's inner, under-display front camera (square sensor, up to 1920 at 60 fps).
        case builtInInnerUltraWideCamera
        /// The back camera (16:9 landscape sensor, no dynamic aspect ratio).
        case builtInDualWideCamera
        /// The Virtual Front Camera: swaps between the outer and inner cameras by posture,
        /// limited to the formats they share.
        case builtInVirtualFrontCamera
        /// An earlier front camera (before the Center Stage front camera): a 4:3 sensor
        /// mounted landscape-left, fixed 4:3 formats, no dynamic aspect ratio, no Center Stage:
        /// the unsupported-device fallback the seeds ask apps to test.
        case builtInWideAngleCamera

        /// The formats a camera of this type offers (the table in Docs/cameras.md), smallest first.
        package var formats: [Format] {
            switch self {
            case .builtInUltraWideCamera: Format.frontCenterStageFormats
            case .builtInOuterUltraWideCamera: Format.outerUltraWideFormats
            case .builtInInnerUltraWideCamera: Format.innerUltraWideFormats
            case .builtInDualWideCamera: Format.dualWideFormats
            case .builtInVirtualFrontCamera: Format.virtualFrontFormats
            case .builtInWideAngleCamera: Format.earlierFrontFormats
            }
        }

        /// The fixed `AVCaptureDevice.Position` of the type: `.back` for the dual wide
        /// camera, `.front` for every other (both Duo front cameras report `.front`).
        package var position: Position { self == .builtInDualWideCamera ? .back : .front }

        /// How the sensor is mounted: square sensors portrait, the back camera landscape, the
        /// earlier front camera landscape-left (a portrait selfie turns 270°, as the seeds say).
        package var sensorMounting: RotationCoordinator.SensorMounting {
            switch self {
            case .builtInDualWideCamera: .landscape
            case .builtInWideAngleCamera: .landscapeLeft
            default: .portrait
            }
        }
    }
    /// `AVCaptureDevice.Position`: where the camera is mounted (not where it faces: see
    /// ``DirectionCoordinator``).
    package enum Position: String, Sendable, CaseIterable {
        /// On the display side.
        case front
        /// On the back.
        case back
    }

    /// The camera's type (`.builtInUltraWideCamera` for the single front camera).
    package let deviceType: DeviceType
    /// Where the camera is mounted.
    package var position: Position { deviceType.position }
    /// `AVCaptureDevice.uniqueID`: the scenario's camera `id` (`front` for the single camera).
    package var uniqueID: String { clock.identifier }
    /// The formats the camera offers (``Format/frontCenterStageFormats``).
    package let formats: [Format]
    /// The format frames are captured in.
    package let activeFormat: Format
    /// The device clock (`AVCaptureInputPort.clock`); its timescale is the timescale of `D(i)`.
    package let clock: MediaClock
    /// The capture frame rate (`1 / activeVideoMinFrameDuration`), frames per second.
    package let frameRate: FrameRate
    /// Frame periods between a request's converted host time and its first new-size frame
    /// (≥ 0; default 2).
    package let changeLatencyFrames: Int64
    /// Frames between the first new-size frame `k` and the delivery of the request's
    /// completion: the completion is delivered just before frame `k + completionDelayFrames`.
    /// May be negative (completion before the first new-size frame) but a completion never
    /// precedes its request. Default 0.
    package let completionDelayFrames: Int64

    /// Smallest and largest `videoZoomFactor` (`minAvailableVideoZoomFactor` /
    /// `maxAvailableVideoZoomFactor`).
    package static let videoZoomFactorRange: ClosedRange<Double> = 1.0...16.0

    /// The ratio of the latest request (the initial ratio before any): what frames have
    /// once every pending request has taken effect (`AVCaptureDevice.dynamicAspectRatio`,
    /// optional as there): `nil` on a camera whose active format has no dynamic aspect
    /// ratio (a fixed-size format such as the back camera's 1920x1080).
    package var dynamicAspectRatio: DynamicAspectRatio? { activeFormat.fixedDimensions == nil ? schedule.latest : nil }
    /// The current zoom (`AVCaptureDevice.videoZoomFactor`). Never changes frame dimensions.
    package private(set) var videoZoomFactor: Double = 1.0
    /// A zoom waiting for the first frame of a ratio change (grid index, factor): a smart
    /// framing recommendation applied as the seeds' code does, `videoZoomFactor` set once
    /// `setDynamicAspectRatio` has returned. Dropped when a later request takes that frame.
    private(set) var pendingZoom: (frame: Int64, factor: Double)?
    /// The framings the app enables on a smart framing monitor (`enabledFramings`), kept on
    /// a format without one so a later switch to the smart framing format gets them; nil
    /// when the app chose none (`start()` then enables every supported framing), `[]` when
    /// it chose to enable none.
    var appEnabledFramings: [CaptureFraming]?

    /// The framings the app chose for smart framing: its monitor's when the active format
    /// has one and the app (or `start()`) set them, else ``appEnabledFramings``; nil: none chosen.
    var chosenFramings: [CaptureFraming]? {
        guard let monitor = smartFramingMonitor else { return appEnabledFramings }
        return monitor.areEnabledFramingsChosen ? monitor.enabledFramings : nil
    }
    /// The smart framing monitor: non-`nil` only when the active format supports smart
    /// framing (the 4032 format).
    package let smartFramingMonitor: SmartFramingMonitor?

    /// Frame timing of the running session; `nil` until ``startCapture(sessionStart:)``.
    package private(set) var frameTiming: FrameTiming?
    /// Host time (nanoseconds) the device has reached: requests cannot be made earlier.
    package private(set) var currentHostTime: MediaTime = MediaTime(value: 0, timescale: 1_000_000_000)
    /// Index of the next frame the sensor will capture: frames before it can no longer change.
    package private(set) var nextFrameIndex: Int64 = 0
    /// Every request made, in order.
    package private(set) var requests: [DynamicAspectRatioRequest] = []

    private var schedule: AspectRatioSchedule

    /// Creates the front camera with `format` active.
    /// - Parameters:
    ///   - format: one of ``Format/frontCenterStageFormats`` (or any format).
    ///   - frameRate: capture rate, at most the format's ``Format/maxFrameRate``.
    ///   - clock: the device clock (timescale, offset, drift).
    ///   - initialAspectRatio: the ratio of frame 0; must be supported by `format`.
    ///   - changeLatencyFrames: ≥ 0 (default 2).
    ///   - completionDelayFrames: any (default 0).
    ///   - formats: the camera's format list.
    ///   - deviceType: its type (default the single Center Stage front camera). A
    ///     fixed-size format (the back camera) ignores `initialAspectRatio`.
    /// - Throws: ``CaptureError/unsupportedRatio(_:formatSide:supported:)``,
    ///   ``CaptureError/unsupportedFrameRate(_:formatSide:maximum:)`` or
    ///   ``CaptureError/invalidParameter(name:value:allowed:)`` for a negative latency.
    package init(
        format: Format, frameRate: FrameRate, clock: MediaClock, initialAspectRatio: DynamicAspectRatio, changeLatencyFrames: Int64 = 2,
        completionDelayFrames: Int64 = 0, formats: [Format] = Format.frontCenterStageFormats, deviceType: DeviceType = .builtInUltraWideCamera
    ) throws(CaptureError) {
        if format.fixedDimensions == nil { try format.validate(initialAspectRatio) }
        guard format.supports(frameRate: frameRate) else { throw .unsupportedFrameRate(frameRate, formatSide: format.squareSide, maximum: format.maxFrameRate) }
        guard changeLatencyFrames >= 0 else { throw .invalidParameter(name: "changeLatencyFrames", value: "\(changeLatencyFrames)", allowed: "≥ 0") }
        self.formats = formats
        self.deviceType = deviceType
        self.activeFormat = format
        self.frameRate = frameRate
        self.clock = clock
        self.changeLatencyFrames = changeLatencyFrames
        self.completionDelayFrames = completionDelayFrames
        self.schedule = AspectRatioSchedule(initial: initialAspectRatio)
        self.smartFramingMonitor = format.isSmartFramingSupported ? SmartFramingMonitor(format: format) : nil
    }

    /// Starts capturing: frame 0 is captured at the session start converted to the device
    /// clock (`D0`). Resets the frame counter and the device's current time.
    /// - Throws: ``CaptureError/time(_:)`` on overflow.
    package func startCapture(sessionStart: MediaTime) throws(CaptureError) {
        do {
            frameTiming = try FrameTiming(deviceClock: clock, frameRate: frameRate, sessionStart: sessionStart)
            currentHostTime = try sessionStart.converted(toTimescale: MediaClock.host.timescale)
        } catch { throw .time(error) }
        nextFrameIndex = 0
    }

    /// Starts capturing with an explicit `D0` (device ticks): a reconfigured device whose
    /// grid starts at the end of a reconfiguration gap; `hostTime` becomes its current time.
    /// - Throws: ``CaptureError/time(_:)`` on overflow.
    func startCapture(firstFrameDeviceTicks d0: Int64, at hostTime: MediaTime) throws(CaptureError) {
        frameTiming = FrameTiming(deviceClock: clock, frameRate: frameRate, firstFrameDeviceTicks: d0)
        do { currentHostTime = try hostTime.converted(toTimescale: MediaClock.host.timescale) } catch { throw .time(error) }
        nextFrameIndex = 0
    }

    /// Dimensions of frames in `ratio` on the active format.
    /// - Throws: ``CaptureError/unsupportedRatio(_:formatSide:supported:)``.
    package func dimensions(for ratio: DynamicAspectRatio) throws(CaptureError) -> VideoDimensions { try activeFormat.dimensions(for: ratio) }

    /// The ratio frame `index` is (or will be, given the requests so far) captured with.
    package func aspectRatio(atFrame index: Int64) -> DynamicAspectRatio { schedule.ratio(atFrame: index) }

    /// The ratio in effect before frame `index` is captured: frame `index − 1`'s ratio (the
    /// grid's initial ratio when `index` is 0), what the buffers had. Requests taking effect
    /// on frame `index` or later are still pending and do not count.
    package func ratioInEffect(beforeFrame index: Int64) -> DynamicAspectRatio { index <= 0 ? schedule.initial : schedule.ratio(atFrame: index - 1) }

    /// Dimensions of frame `index` given the requests so far.
    package func dimensions(atFrame index: Int64) -> VideoDimensions {
        if let fixed = activeFormat.fixedDimensions { return fixed }
        return schedule.ratio(atFrame: index).dimensions(squareSide: activeFormat.squareSide)
    }

    /// Asks for `ratio` at host time `sessionTime`: the synchronous core of
    /// ``setDynamicAspectRatio(_:)`` used by the deterministic pipeline.
    ///
    /// - Parameters:
    ///   - ratio: the aspect ratio asked for; the active format must support it.
    ///   - sessionTime: the host (session clock) time of the request; not earlier
    ///     than ``currentHostTime``; it becomes the new current time.
    /// - Returns: the request; its `change.deviceTime` is `D(k)`, the device time of the
    ///   first frame with the new dimensions (the frame `k` on which the request takes effect
    ///   when the ratio is already in effect).
    /// Made between ``lockForConfiguration()`` and ``unlockForConfiguration()``, as on iOS.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the device
    ///   is not locked (nothing changes);
    ///   ``CaptureError/unsupportedRatio(_:formatSide:supported:)`` (no fallback),
    ///   ``CaptureError/notCapturing``, ``CaptureError/requestOutOfOrder(requested:current:)``,
    ///   ``CaptureError/time(_:)``; ``CaptureError/dynamicAspectRatioUnsupported(camera:deviceType:)``
    ///   on a camera without dynamic aspect ratio (the back camera).
    @discardableResult package func submitDynamicAspectRatio(_ ratio: DynamicAspectRatio, atSessionTime sessionTime: MediaTime) throws(CaptureError)
        -> DynamicAspectRatioRequest
    {
        try requireLock("setDynamicAspectRatio")
        guard activeFormat.fixedDimensions == nil else { throw .dynamicAspectRatioUnsupported(camera: uniqueID, deviceType: deviceType.rawValue) }
        let dimensions = try activeFormat.dimensions(for: ratio)
        guard let timing = frameTiming else { throw .notCapturing }
        guard sessionTime >= currentHostTime else { throw .requestOutOfOrder(requested: sessionTime, current: currentHostTime) }
        let k: Int64
        let deviceTime: MediaTime
        let changeSessionTime: MediaTime
        do {
            let threshold = try convertTime(sessionTime, from: .host, to: clock)
            k = try timing.firstFrame(atOrAfter: threshold, plusFramePeriods: changeLatencyFrames, minimumIndex: nextFrameIndex)
            deviceTime = try timing.deviceTime(ofFrame: k)
            changeSessionTime = try convertTime(deviceTime, from: clock, to: .host)
            currentHostTime = try sessionTime.converted(toTimescale: MediaClock.host.timescale, rounding: .roundTowardPositiveInfinity)
        } catch { throw .time(error) }
        let changes = schedule.ratio(atFrame: k) != ratio
        if changes { schedule.apply(ratio, fromFrame: k) }
        // A request that takes the pending zoom's frame (or an earlier one) supersedes the
        // request it was waiting for: the app's `await` threw, the zoom is never set.
        if let pending = pendingZoom, k <= pending.frame { pendingZoom = nil }
        let request = DynamicAspectRatioRequest(
            sequenceNumber: requests.count, aspectRatio: ratio, requestTime: sessionTime, requestFrameIndex: nextFrameIndex, effectiveFrameIndex: k,
            change: DynamicAspectRatioChange(aspectRatio: ratio, dimensions: dimensions, deviceTime: deviceTime, sessionTime: changeSessionTime),
            changesDimensions: changes)
        requests.append(request)
        return request
    }

    /// Asks for `ratio` at host time `sessionTime` and returns `D(k)`, the device-clock time
    /// of the first frame with the new dimensions. See
    /// ``submitDynamicAspectRatio(_:atSessionTime:)`` for the rule and the errors.
    @discardableResult package func requestDynamicAspectRatio(_ ratio: DynamicAspectRatio, atSessionTime sessionTime: MediaTime) throws(CaptureError)
        -> MediaTime
    { try submitDynamicAspectRatio(ratio, atSessionTime: sessionTime).change.deviceTime }

    /// `AVCaptureDevice.setDynamicAspectRatio(_:)`: asks for `ratio` now (at
    /// ``currentHostTime``) and returns the device-clock time `D(k)` of the first frame with
    /// the new dimensions, at the device clock's timescale. Convert it with
    /// `convertTime(_:from: device.clock, to: .host)` before comparing with frame timestamps.
    /// Made between ``lockForConfiguration()`` and ``unlockForConfiguration()``, as on iOS.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the
    ///   device is not locked; otherwise as ``submitDynamicAspectRatio(_:atSessionTime:)``.
    @discardableResult nonisolated(nonsending) public func setDynamicAspectRatio(_ ratio: DynamicAspectRatio) async throws(CaptureError) -> MediaTime {
        try requestDynamicAspectRatio(ratio, atSessionTime: currentHostTime)
    }

    /// Sets `videoZoomFactor` (`AVCaptureDevice.videoZoomFactor`), between
    /// ``lockForConfiguration()`` and ``unlockForConfiguration()`` as on iOS. Zoom never
    /// changes frame dimensions.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the
    ///   device is not locked; ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)``
    ///   outside ``videoZoomFactorRange`` or when not finite.
    package func setVideoZoomFactor(_ factor: Double) throws(CaptureError) {
        try requireLock("videoZoomFactor")
        try applyVideoZoomFactor(factor)
    }

    /// Sets `videoZoomFactor` without the lock: the system's own zoom (Center Stage's
    /// framing, a reconfigured camera keeping its zoom). The app's zoom goes through
    /// ``setVideoZoomFactor(_:)``.
    /// - Throws: ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)``.
    func applyVideoZoomFactor(_ factor: Double) throws(CaptureError) {
        try Self.validateVideoZoomFactor(factor)
        videoZoomFactor = factor
    }

    /// The video connection's `preferredVideoStabilizationMode` (nil: not set, which an
    /// `AVCaptureConnection` treats as `off`).
    package internal(set) var preferredVideoStabilizationMode: VideoStabilizationMode?
    /// Whether ``changeLatencyFrames`` follows the stabilization mode in effect (a preferred
    /// mode was set and no explicit latency given): a format switch then recomputes it.
    package internal(set) var changeLatencyFollowsStabilization = false

    /// The connection's `activeVideoStabilizationMode`: the preferred mode where the active
    /// format supports it, else `off` (also when none is set).
    package var activeVideoStabilizationMode: VideoStabilizationMode {
        VideoStabilizationMode.activeMode(
            preferred: preferredVideoStabilizationMode, supported: Self.supportedVideoStabilizationModes(deviceType: deviceType, format: activeFormat))
    }

    /// The stabilization modes `format` of a camera of `deviceType` supports
    /// (`isVideoStabilizationModeSupported`): every mode but `lowLatency`, which needs a
    /// Center Stage format (a square front format of at most 1920; the Virtual Front
    /// Camera's count).
    package static func supportedVideoStabilizationModes(deviceType: DeviceType, format: Format) -> [VideoStabilizationMode] {
        let centerStageFormat =
            deviceType != .builtInDualWideCamera && deviceType != .builtInWideAngleCamera && format.fixedDimensions == nil
            && format.squareSide <= CenterStageControl.largestCenterStageSquareSide
        return VideoStabilizationMode.allCases.filter { $0 != .lowLatency || centerStageFormat }
    }

    /// Whether depth data is delivered (`isDepthDataDeliveryEnabled`); Center Stage is
    /// inactive while it is on. The Virtual Front Camera has no depth.
    package private(set) var isDepthDataDeliveryEnabled = false
    /// `AVCaptureDevice.isGeometricDistortionCorrectionEnabled`; Center Stage is inactive
    /// while it is on.
    package private(set) var isGeometricDistortionCorrectionEnabled = false

    /// Turns depth data delivery on or off, inside the configuration lock.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the
    ///   device is not locked; ``CaptureError/invalidParameter(name:value:allowed:)`` when
    ///   turning it on on the Virtual Front Camera (depth only on the individual cameras, as
    ///   the seeds say).
    package func setDepthDataDeliveryEnabled(_ enabled: Bool) throws(CaptureError) {
        try requireLock("depthDataDeliveryEnabled")
        guard !enabled || deviceType != .builtInVirtualFrontCamera else {
            throw .invalidParameter(
                name: "depthDataDeliveryEnabled", value: "true on \(uniqueID)",
                allowed: "false: the Virtual Front Camera has no depth; use individual cameras (\"frontCamera\": \"individual\")")
        }
        isDepthDataDeliveryEnabled = enabled
    }

    /// Sets `isGeometricDistortionCorrectionEnabled`, inside the configuration lock.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the
    ///   device is not locked.
    package func setGeometricDistortionCorrectionEnabled(_ enabled: Bool) throws(CaptureError) {
        try requireLock("geometricDistortionCorrectionEnabled")
        isGeometricDistortionCorrectionEnabled = enabled
    }

    /// Sets the smart framing monitor's `enabledFramings` (the seeds' `start()` does it inside
    /// the lock), kept for a later switch to the smart framing format when the active format
    /// has no monitor.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the
    ///   device is not locked; ``CaptureError/invalidParameter(name:value:allowed:)`` for a
    ///   framing the monitor does not support.
    package func setEnabledFramings(_ framings: [CaptureFraming]) throws(CaptureError) {
        try requireLock("enabledFramings")
        if let monitor = smartFramingMonitor { try monitor.setEnabledFramings(framings) }
        appEnabledFramings = framings
    }

    /// Whether the app holds the configuration lock (`lockForConfiguration()` called,
    /// `unlockForConfiguration()` not yet).
    package private(set) var isLockedForConfiguration = false

    /// `AVCaptureDevice.lockForConfiguration()`: from now until
    /// ``unlockForConfiguration()`` the app may change the device: every configuration
    /// change (``setDynamicAspectRatio(_:)`` and its synchronous core
    /// ``submitDynamicAspectRatio(_:atSessionTime:)``, ``setVideoZoomFactor(_:)``,
    /// ``setDepthDataDeliveryEnabled(_:)``, ``setGeometricDistortionCorrectionEnabled(_:)``,
    /// ``setEnabledFramings(_:)``, and `activeFormat` through
    /// ``CaptureSession/setActiveFormat(_:)``) throws
    /// ``CaptureError/notLockedForConfiguration(camera:operation:)`` outside it, as
    /// AVFoundation raises `NSGenericException` there. (The model has no other client that
    /// could hold the lock, so it never fails.)
    package func lockForConfiguration() { isLockedForConfiguration = true }

    /// `AVCaptureDevice.unlockForConfiguration()`: ends the configuration; later changes throw
    /// ``CaptureError/notLockedForConfiguration(camera:operation:)``.
    package func unlockForConfiguration() { isLockedForConfiguration = false }

    /// Throws unless the app holds the configuration lock.
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` naming `operation`.
    private func requireLock(_ operation: String) throws(CaptureError) {
        guard isLockedForConfiguration else { throw .notLockedForConfiguration(camera: uniqueID, operation: operation) }
    }

    /// Sets the device's initial configuration when a descriptor builds it or a reconfigured
    /// camera carries its state over (before it captures: no lock, as a new
    /// `AVCaptureDevice`'s settings are not changes).
    func configureInitially(depthDataDeliveryEnabled depth: Bool, geometricDistortionCorrectionEnabled correction: Bool) {
        isDepthDataDeliveryEnabled = depth
        isGeometricDistortionCorrectionEnabled = correction
    }

    /// Sets `videoZoomFactor` to `factor` from grid frame `index` on (the first frame of the
    /// request it follows), replacing a zoom still pending.
    /// - Throws: ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)``.
    func setVideoZoomFactor(_ factor: Double, fromFrame index: Int64) throws(CaptureError) {
        try Self.validateVideoZoomFactor(factor)
        pendingZoom = (index, factor)
    }

    /// Drops the zoom waiting for its request's first frame: the app's recommendation task
    /// was cancelled before `setDynamicAspectRatio` returned (smart framing stopped), so it
    /// never sets the zoom. - Returns: the dropped factor, or nil when none was pending.
    func cancelPendingZoom() -> Double? {
        defer { pendingZoom = nil }
        return pendingZoom?.factor
    }

    /// The zoom the device will show once pending changes land: the pending zoom's factor,
    /// else ``videoZoomFactor``.
    var latestVideoZoomFactor: Double { pendingZoom?.factor ?? videoZoomFactor }

    /// Applies the pending zoom when grid frame `index` is at or after its frame: called
    /// before frame `index` is drawn.
    func applyPendingZoom(beforeFrame index: Int64) {
        guard let pending = pendingZoom, index >= pending.frame else { return }
        videoZoomFactor = pending.factor
        pendingZoom = nil
    }

    /// Checks that `factor` is finite and in ``videoZoomFactorRange``.
    /// - Throws: ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)``.
    package static func validateVideoZoomFactor(_ factor: Double) throws(CaptureError) {
        let range = videoZoomFactorRange
        guard factor.isFinite, range.contains(factor) else { throw .zoomFactorOutOfRange(factor, minimum: range.lowerBound, maximum: range.upperBound) }
    }

    /// Makes `ratio` the ratio from frame `index` on (the app's ratio carried over to a
    /// camera the session switches to); no request, no completion. Ignored on a fixed-size
    /// format or a format that does not list `ratio` (the camera keeps its own dimensions).
    func carryOver(_ ratio: DynamicAspectRatio, fromFrame index: Int64) {
        guard activeFormat.fixedDimensions == nil, activeFormat.supportedDynamicAspectRatios.contains(ratio) else { return }
        schedule.apply(ratio, fromFrame: index)
    }

    /// Records that frames before `index` have been captured; moves the current time to
    /// at least `hostTime`. Called by the session as it delivers frames.
    func didCapture(upTo index: Int64, hostTime: MediaTime) {
        nextFrameIndex = max(nextFrameIndex, index)
        if hostTime > currentHostTime { currentHostTime = hostTime }
    }
}
