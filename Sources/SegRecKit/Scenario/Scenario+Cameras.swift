extension Scenario {
    /// One camera of `cameras` (DESIGN.md, "Cameras: iPhone Duo and switching").
    public struct Camera: Sendable, Hashable {
        /// Unique id (the manifest's `camera` and the clock's name).
        public var id: String
        /// The camera type: `builtInOuterUltraWideCamera`, `builtInInnerUltraWideCamera` or
        /// `builtInDualWideCamera`.
        public var type: CaptureDevice.DeviceType
        /// The active format's spelling: a square side (`"1920"`) or `"WxH"` for the back camera.
        public var format: String
        /// Capture rate, at most the format's maximum.
        public var fps: FrameRate
        /// The camera's device clock.
        public var clock: Clock
        /// `preferredVideoStabilizationMode`, or nil; sets the camera's default change latency.
        public var preferredVideoStabilizationMode: VideoStabilizationMode? = nil

        /// A camera; see the properties.
        public init(id: String, type: CaptureDevice.DeviceType, format: String, fps: FrameRate = Scenario.defaultFrameRate,
                    clock: Clock = Clock()) {
            self.id = id
            self.type = type
            self.format = format
            self.fps = fps
            self.clock = clock
        }

        /// The active format, or `nil` when the type does not offer `format`.
        public var activeFormat: CaptureDevice.Format? { type.formats.first { $0.name == format } }
    }

    /// The Virtual Front Camera's configuration (`virtual`).
    public struct VirtualCamera: Sendable, Hashable {
        /// Square side: 1280 or 1920 (what inner and outer share).
        public var format: Int
        /// At most 60 fps.
        public var fps: FrameRate
        /// Its own device clock.
        public var clock: Clock

        /// A configuration; see the properties.
        public init(format: Int = 1920, fps: FrameRate = Scenario.defaultFrameRate, clock: Clock = Clock()) {
            self.format = format
            self.fps = fps
            self.clock = clock
        }
    }

    /// The id of the Virtual Front Camera's device and clock.
    public static let virtualFrontID = "virtualFront"

    /// The camera types a `cameras` entry may name.
    public static let cameraTypes: [CaptureDevice.DeviceType] = [
        .builtInOuterUltraWideCamera, .builtInInnerUltraWideCamera, .builtInDualWideCamera,
    ]

    /// The cameras as descriptors, in `cameras` order (position = stamp code).
    /// - Throws: ``CaptureError`` for a format the type lacks or clock parameters the model
    ///   rejects (run ``validate(file:)`` first for messages naming keys).
    public func makeCameraDescriptors() throws(CaptureError) -> [CaptureDeviceDescriptor] {
        var descriptors: [CaptureDeviceDescriptor] = []
        for (position, camera) in (cameras ?? []).enumerated() {
            guard let format = camera.activeFormat else {
                throw .invalidParameter(name: "cameras[\(position)].format", value: camera.format,
                                        allowed: camera.type.formats.map(\.name).joined(separator: ", "))
            }
            descriptors.append(CaptureDeviceDescriptor(
                uniqueID: camera.id, deviceType: camera.type, format: format, frameRate: camera.fps,
                clock: try Self.makeClock(camera.id, camera.clock), stampPosition: position,
                changeLatencyFrames: Device.changeLatency(explicit: device.isChangeLatencyExplicit ? device.changeLatencyFrames : nil,
                                                          mode: camera.preferredVideoStabilizationMode,
                                                          fallback: device.changeLatencyFrames),
                completionDelayFrames: device.completionDelayFrames))
        }
        return descriptors
    }

    /// The Virtual Front Camera's descriptor (`nil` unless `"frontCamera": "virtual"`).
    /// - Throws: ``CaptureError`` as ``makeCameraDescriptors()``.
    public func makeVirtualDescriptor() throws(CaptureError) -> CaptureDeviceDescriptor? {
        guard frontCamera == .virtual, let virtual else { return nil }
        guard let format = CaptureDevice.Format.virtualFrontFormats.first(where: { $0.squareSide == virtual.format }) else {
            throw .invalidParameter(name: "virtual.format", value: "\(virtual.format)", allowed: "1280, 1920")
        }
        return CaptureDeviceDescriptor(
            uniqueID: Self.virtualFrontID, deviceType: .builtInVirtualFrontCamera, format: format, frameRate: virtual.fps,
            clock: try Self.makeClock(Self.virtualFrontID, virtual.clock), stampPosition: cameras?.count ?? 0,
            changeLatencyFrames: device.changeLatencyFrames, completionDelayFrames: device.completionDelayFrames)
    }

    /// Every device clock of a cameras scenario: the cameras' in order, then the virtual one.
    /// - Throws: ``CaptureError`` as ``makeCameraDescriptors()``.
    public func makeCameraClocks() throws(CaptureError) -> [MediaClock] {
        try makeCameraDescriptors().map(\.clock) + (try makeVirtualDescriptor().map { [$0.clock] } ?? [])
    }

    /// The scenario's events for a ``CameraSwitchingSession``, in time order (stable for
    /// equal times), at exact host times.
    public var cameraSessionEvents: [CameraSwitchingSession.Event] {
        sessionEvents.map { event in
            if case .posture(let posture) = event.action {
                return CameraSwitchingSession.Event(hostTime: event.hostTime, action: .posture(posture))
            }
            return CameraSwitchingSession.Event(hostTime: event.hostTime, action: .device(event.action))
        }
    }

    private static func makeClock(_ id: String, _ clock: Clock) throws(CaptureError) -> MediaClock {
        do {
            return try MediaClock(identifier: id, timescale: clock.timescale, offsetSeconds: clock.offsetSeconds,
                                  driftPPM: clock.driftPPM)
        } catch { throw .time(error) }
    }
}

extension CameraSwitchingSession {
    /// The session a cameras scenario describes.
    /// - Parameters:
    ///   - sources: one picture source per camera, in `cameras` order (sized to the virtual
    ///     format in virtual mode); `nil` for a ``SyntheticSensor`` per camera with the
    ///     camera's own look (pattern = position + 1).
    ///   - stampFrameIndex: stamp sources that do not stamp themselves.
    ///   - mirrorMode: `--mirror`.
    ///   - pixelBufferPool: the synthetic sensors' pool.
    /// - Throws: ``CaptureError`` (a scenario that passed validation fails only on overflow).
    public convenience init(scenario: Scenario, sources: [any SensorImageSource]? = nil, stampFrameIndex: Bool = true,
                            mirrorMode: MirrorMode = .off, pixelBufferPool: PixelBufferPool = PixelBufferPool()) throws(CaptureError) {
        let cameras = try scenario.makeCameraDescriptors()
        let pictures = sources ?? cameras.indices.map {
            SyntheticSensor(pixelBufferPool: pixelBufferPool, pattern: $0 + 1) as any SensorImageSource
        }
        try self.init(cameras: cameras, virtual: try scenario.makeVirtualDescriptor(),
                      initialPosture: scenario.initialPosture, initialAspectRatio: scenario.device.initialAspectRatio,
                      switchGap: Scenario.nanoseconds(scenario.switchGapSeconds), sessionStart: scenario.sessionStart,
                      duration: scenario.duration, events: scenario.cameraSessionEvents, sources: pictures,
                      stampFrameIndex: stampFrameIndex, mirrorMode: mirrorMode, controls: scenario.cameraControlState,
                      pixelBufferPool: pixelBufferPool)
    }
}
