extension Scenario {
    /// One camera of `cameras` (Docs/cameras.md).
    package struct Camera: Sendable, Hashable {
        /// Unique id (the manifest's `camera` and the clock's name).
        package var id: String
        /// The camera type: `builtInOuterUltraWideCamera`, `builtInInnerUltraWideCamera` or
        /// `builtInDualWideCamera`.
        package var type: CaptureDevice.DeviceType
        /// The active format's spelling: a square side (`"1920"`) or `"WxH"` for the back camera.
        package var format: String
        /// Capture rate, at most the format's maximum.
        package var fps: FrameRate
        /// Whether the file gave `fps` (refused in virtual mode, where the Virtual Front
        /// Camera's `virtual.fps` is the rate).
        package var isFrameRateGiven = false
        /// The camera's device clock.
        package var clock: Clock
        /// `preferredVideoStabilizationMode`, or nil; sets the camera's default change latency.
        package var preferredVideoStabilizationMode: VideoStabilizationMode? = nil
        /// `depthDataDeliveryEnabled` at start (default false); Center Stage is inactive while on.
        package var depthDataDeliveryEnabled = false
        /// `geometricDistortionCorrectionEnabled` at start (default false); Center Stage is
        /// inactive while on.
        package var geometricDistortionCorrectionEnabled = false

        /// A camera; see the properties.
        package init(id: String, type: CaptureDevice.DeviceType, format: String, fps: FrameRate = Scenario.defaultFrameRate, clock: Clock = Clock()) {
            self.id = id
            self.type = type
            self.format = format
            self.fps = fps
            self.clock = clock
        }

        /// The active format, or `nil` when the type does not offer `format`.
        package var activeFormat: CaptureDevice.Format? { type.formats.first { $0.name == format } }
    }

    /// The Virtual Front Camera's configuration (`virtual`).
    package struct VirtualCamera: Sendable, Hashable {
        /// Square side: 1280 or 1920 (what inner and outer share).
        package var format: Int
        /// At most 60 fps.
        package var fps: FrameRate
        /// Its own device clock.
        package var clock: Clock
        /// Its video connection's `preferredVideoStabilizationMode` (in virtual mode the
        /// connection is the Virtual Front Camera's, not a constituent's), or nil; sets its
        /// default change latency as on any camera (`lowLatency`: 1 frame).
        package var preferredVideoStabilizationMode: VideoStabilizationMode? = nil

        /// A configuration; see the properties.
        package init(format: Int = 1920, fps: FrameRate = Scenario.defaultFrameRate, clock: Clock = Clock()) {
            self.format = format
            self.fps = fps
            self.clock = clock
        }
    }

    /// The id of the Virtual Front Camera's device and clock.
    package static let virtualFrontID = "virtualFront"

    /// The camera types a `cameras` entry may name.
    package static let cameraTypes: [CaptureDevice.DeviceType] = [.builtInOuterUltraWideCamera, .builtInInnerUltraWideCamera, .builtInDualWideCamera]
}

extension Scenario {
    /// The cameras the session is built from, in order (position = stamp code): `cameras`,
    /// or for a `device` scenario its one camera, the Center Stage front camera (`id`
    /// `front`, type `builtInUltraWideCamera`, `device`'s format, fps, clock and
    /// stabilization mode).
    package var sessionCameras: [Camera] {
        if let cameras { return cameras }
        var front = Camera(id: "front", type: device.type, format: device.fixedFormat ?? "\(device.format)", fps: device.fps, clock: device.clock)
        front.preferredVideoStabilizationMode = device.preferredVideoStabilizationMode
        front.depthDataDeliveryEnabled = device.depthDataDeliveryEnabled
        front.geometricDistortionCorrectionEnabled = device.geometricDistortionCorrectionEnabled
        return [front]
    }

    /// How the session picks its streaming camera: ``CaptureSession/Routing/fixed`` for a
    /// `device` scenario, else individual cameras or the Virtual Front Camera (`frontCamera`
    /// with its `virtual` description) from `initialPosture`.
    package var routing: CaptureSession.Routing {
        guard cameras != nil else { return .fixed }
        // With views the driving view's display decides the posture its coordinator sees.
        let posture = appViews?.drivingPosture ?? initialPosture
        return frontCamera == .virtual && virtual != nil ? .virtualFrontCamera(initialPosture: posture) : .individual(initialPosture: posture)
    }

    /// The change latency of `camera`: an explicit `changeLatencyFrames` wins, else its
    /// stabilization mode's default, else `changeLatencyFrames` (Docs/cameras.md, "Orientation, formats and stabilization").
    func changeLatencyFrames(of camera: Camera) -> Int64 {
        Device.changeLatency(
            explicit: device.isChangeLatencyExplicit ? device.changeLatencyFrames : nil, mode: camera.preferredVideoStabilizationMode,
            fallback: device.changeLatencyFrames)
    }

    /// The cameras as descriptors, in ``sessionCameras`` order (position = stamp code); the
    /// front camera's smart framing as `device.smartFraming` and `device.enabledFramings` say.
    /// - Throws: ``CaptureError`` for a format the type lacks or clock parameters the model
    ///   rejects (run ``validate(file:)`` first for messages naming keys).
    package func makeCameraDescriptors() throws(CaptureError) -> [CaptureDeviceDescriptor] {
        var descriptors: [CaptureDeviceDescriptor] = []
        for (position, camera) in sessionCameras.enumerated() {
            guard let format = camera.activeFormat else {
                throw .invalidParameter(
                    name: cameras == nil ? "format" : "cameras[\(position)].format", value: camera.format,
                    allowed: cameras == nil ? ScenarioLimits.formatAllowed : camera.type.formats.map(\.name).joined(separator: ", "))
            }
            descriptors.append(
                CaptureDeviceDescriptor(
                    uniqueID: camera.id, deviceType: camera.type, format: format, frameRate: camera.fps, clock: try Self.makeClock(camera.id, camera.clock),
                    stampPosition: position, changeLatencyFrames: changeLatencyFrames(of: camera), completionDelayFrames: device.completionDelayFrames,
                    enabledFramings: device.enabledFramings, startsSmartFraming: device.smartFraming, depthDataDeliveryEnabled: camera.depthDataDeliveryEnabled,
                    geometricDistortionCorrectionEnabled: camera.geometricDistortionCorrectionEnabled,
                    preferredVideoStabilizationMode: camera.preferredVideoStabilizationMode,
                    changeLatencyFollowsStabilization: !device.isChangeLatencyExplicit && camera.preferredVideoStabilizationMode != nil))
        }
        return descriptors
    }

    /// The Virtual Front Camera's descriptor (`nil` unless `"frontCamera": "virtual"`).
    /// - Throws: ``CaptureError`` as ``makeCameraDescriptors()``.
    package func makeVirtualDescriptor() throws(CaptureError) -> CaptureDeviceDescriptor? {
        guard cameras != nil, frontCamera == .virtual, let virtual else { return nil }
        guard let format = CaptureDevice.Format.virtualFrontFormats.first(where: { $0.squareSide == virtual.format }) else {
            throw .invalidParameter(name: "virtual.format", value: "\(virtual.format)", allowed: "1280, 1920")
        }
        let mode = virtual.preferredVideoStabilizationMode
        return CaptureDeviceDescriptor(
            uniqueID: Self.virtualFrontID, deviceType: .builtInVirtualFrontCamera, format: format, frameRate: virtual.fps,
            clock: try Self.makeClock(Self.virtualFrontID, virtual.clock), stampPosition: cameras?.count ?? 0, changeLatencyFrames: virtualChangeLatencyFrames,
            completionDelayFrames: device.completionDelayFrames, preferredVideoStabilizationMode: mode,
            changeLatencyFollowsStabilization: !device.isChangeLatencyExplicit && mode != nil)
    }

    /// The Virtual Front Camera's change latency: an explicit `changeLatencyFrames` wins, else
    /// its stabilization mode's default, else `changeLatencyFrames`.
    var virtualChangeLatencyFrames: Int64 {
        Device.changeLatency(
            explicit: device.isChangeLatencyExplicit ? device.changeLatencyFrames : nil, mode: virtual?.preferredVideoStabilizationMode,
            fallback: device.changeLatencyFrames)
    }

    /// Every device clock, the manifest's `devices`: the cameras' in order, then the virtual one.
    /// - Throws: ``CaptureError`` as ``makeCameraDescriptors()``.
    package func makeCameraClocks() throws(CaptureError) -> [MediaClock] {
        try makeCameraDescriptors().map(\.clock) + (try makeVirtualDescriptor().map { [$0.clock] } ?? [])
    }

    /// The front camera's clock of a `device` scenario: `MediaClock(identifier: "front", …)`
    /// from ``Device/clock``, each decimal parameter rounded once.
    /// - Throws: ``CaptureError/time(_:)`` for parameters the clock model rejects.
    package func makeDeviceClock() throws(CaptureError) -> MediaClock { try Self.makeClock("front", device.clock) }

    private static func makeClock(_ id: String, _ clock: Clock) throws(CaptureError) -> MediaClock {
        do { return try MediaClock(identifier: id, timescale: clock.timescale, offsetSeconds: clock.offsetSeconds, driftPPM: clock.driftPPM) } catch {
            throw .time(error)
        }
    }

    /// The position in ``events`` of each session event: time order, file order among
    /// equal times (a stable sort).
    var sessionEventOrder: [Int] { events.indices.sorted { (events[$0].atSeconds, $0) < (events[$1].atSeconds, $1) } }

    /// The scenario's events as session events at exact host times.
    package var sessionEvents: [CaptureSession.Event] {
        // In time order; events at the same instant keep their order in the file (a
        // stable sort), so "a later request takes effect over an earlier one" holds.
        // The start is rounded once, not once per event.
        let start = MediaClock.roundDecimal(sessionStartSeconds, scale: 9)
        return sessionEventOrder.map { events[$0] }.map { event in
            let offset = MediaClock.roundDecimal(event.atSeconds, scale: 9)
            return CaptureSession.Event(hostTime: MediaTime(value: start &+ offset, timescale: 1_000_000_000), action: event.action)
        }
    }

    /// The session's orientation, Center Stage state and switch gap at start.
    package var cameraControlState: CameraControlState {
        var state = CameraControlState(
            deviceOrientation: initialDeviceOrientation,
            centerStage: CenterStageControl(centerStageControlMode: centerStageControlMode, isCenterStageEnabled: centerStageEnabled),
            switchGap: Self.nanoseconds(switchGapSeconds))
        state.smartFramingPolicy = device.smartFramingPolicy
        return state
    }

    /// Each device's controls at start, by clock id, for the manifest's `devices` entries
    /// (stabilization mode, change latency in effect, Center Stage state).
    package var deviceControls: [String: DeviceControlInfo] {
        func info(
            _ type: CaptureDevice.DeviceType, _ format: CaptureDevice.Format?, _ mode: VideoStabilizationMode?, _ latency: Int64, depth: Bool = false,
            distortionCorrection: Bool = false
        ) -> DeviceControlInfo {
            let supported =
                type != .builtInDualWideCamera && format?.fixedDimensions == nil
                && (format?.squareSide ?? Int.max) <= CenterStageControl.largestCenterStageSquareSide
            var info = DeviceControlInfo(
                deviceType: type.rawValue, preferredVideoStabilizationMode: mode, changeLatencyFrames: latency, centerStageEnabled: centerStageEnabled,
                centerStageControlMode: centerStageControlMode, isCenterStageSupported: supported,
                isCenterStageActive: CenterStageControl(centerStageControlMode: centerStageControlMode, isCenterStageEnabled: centerStageEnabled)
                    .isCenterStageActive(
                        formatSupportsCenterStage: supported, isDepthDataDeliveryEnabled: depth, isGeometricDistortionCorrectionEnabled: distortionCorrection))
            if let format {
                info.activeVideoStabilizationMode = VideoStabilizationMode.activeMode(
                    preferred: mode, supported: CaptureDevice.supportedVideoStabilizationModes(deviceType: type, format: format))
            }
            info.isDepthDataDeliveryEnabled = depth
            info.isGeometricDistortionCorrectionEnabled = distortionCorrection
            return info
        }
        var result: [String: DeviceControlInfo] = [:]
        for camera in sessionCameras {
            result[camera.id] = info(
                camera.type, camera.activeFormat, camera.preferredVideoStabilizationMode, changeLatencyFrames(of: camera),
                depth: camera.depthDataDeliveryEnabled, distortionCorrection: camera.geometricDistortionCorrectionEnabled)
        }
        if cameras != nil, frontCamera == .virtual, let virtual {
            result[Self.virtualFrontID] = info(
                .builtInVirtualFrontCamera, CaptureDevice.Format.virtualFrontFormats.first { $0.squareSide == virtual.format },
                virtual.preferredVideoStabilizationMode, virtualChangeLatencyFrames)
        }
        return result
    }
}

extension CaptureSession {
    /// The session `scenario` describes, for one camera (`device`) or several (`cameras`):
    /// its devices (``Scenario/makeCameraDescriptors()``, the Virtual Front Camera last),
    /// routing, start, duration, events and controls.
    /// - Parameters:
    ///   - scenario: a scenario that passed ``Scenario/validate(file:)``.
    ///   - sources: one picture source per camera, in ``Scenario/sessionCameras`` order
    ///     (sized to the virtual format in virtual mode); `nil` for a ``SyntheticSensor``
    ///     per camera (the single camera's look, or each Duo camera's own: pattern = position + 1).
    ///     The zoom is drawn into each (``ZoomingImageSource``).
    ///   - stampFrameIndex: stamp sources that do not stamp themselves.
    ///   - mirrorMode: `--mirror` (default `.off`).
    ///   - pixelBufferPool: where the synthetic sensors and the zoom take their planes;
    ///     default: a pool of its own; pass the recording's pool, which the muxer's writers
    ///     recycle encoded pictures into. A given source keeps its own pool.
    /// - Throws: ``CaptureError`` (a scenario that passed ``Scenario/validate(file:)`` only
    ///   fails on arithmetic overflow).
    package convenience init(
        scenario: Scenario, sources: [any SensorImageSource]? = nil, stampFrameIndex: Bool = false, mirrorMode: MirrorMode = .off,
        pixelBufferPool: PixelBufferPool = PixelBufferPool()
    ) throws(CaptureError) {
        let cameras = try scenario.makeCameraDescriptors()
        let virtual = try scenario.makeVirtualDescriptor()
        let pictures =
            sources
            ?? cameras.indices.map { SyntheticSensor(pixelBufferPool: pixelBufferPool, pattern: scenario.cameras == nil ? 0 : $0 + 1) as any SensorImageSource }
        var devices: [CaptureDevice] = []
        for descriptor in cameras + (virtual.map { [$0] } ?? []) {
            devices.append(try descriptor.makeDevice(initialAspectRatio: scenario.device.initialAspectRatio))
        }
        // The zoom is drawn into the picture; a stamping base keeps rows 0–31 (index and camera code).
        let output = VideoDataOutput(
            frameSources: pictures.map { ZoomingImageSource(base: $0, preservedRows: 2 * FrameIndexStamp.rows, pixelBufferPool: pixelBufferPool) },
            stampFrameIndex: stampFrameIndex)
        try self.init(
            devices: devices, routing: scenario.routing, output: output, sessionStart: scenario.sessionStart, duration: scenario.duration,
            events: scenario.sessionEvents, controls: scenario.cameraControlState, mirrorMode: mirrorMode, microphone: try scenario.makeMicrophone())
        if let views = scenario.appViews { try setViews(views) }
    }

    /// A one-camera scenario's session with `frameSource` as the camera's pictures (`nil`
    /// for a new ``SyntheticSensor``); see ``init(scenario:sources:stampFrameIndex:mirrorMode:pixelBufferPool:)``.
    package convenience init(
        scenario: Scenario, frameSource: (any SensorImageSource)?, stampFrameIndex: Bool = false, pixelBufferPool: PixelBufferPool = PixelBufferPool()
    ) throws(CaptureError) {
        try self.init(scenario: scenario, sources: frameSource.map { [$0] }, stampFrameIndex: stampFrameIndex, pixelBufferPool: pixelBufferPool)
    }
}
