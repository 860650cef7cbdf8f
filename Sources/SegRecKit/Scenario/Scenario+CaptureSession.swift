extension Scenario {
    /// The device clock: `MediaClock(identifier: "front", …)` from ``Device/clock``, each
    /// decimal parameter rounded once.
    /// - Throws: ``CaptureError/time(_:)`` for parameters the clock model rejects.
    public func makeDeviceClock() throws(CaptureError) -> MediaClock {
        do {
            return try MediaClock(identifier: "front", timescale: device.clock.timescale,
                                  offsetSeconds: device.clock.offsetSeconds, driftPPM: device.clock.driftPPM)
        } catch { throw .time(error) }
    }

    /// The front camera this scenario describes: its change latency from
    /// ``Device/effectiveChangeLatencyFrames``; smart framing limited to
    /// `device.enabledFramings` (default none) and started when `device.smartFraming` is true.
    /// - Throws: ``CaptureError`` for a configuration the device rejects (run
    ///   ``validate(file:)`` first for messages naming keys).
    public func makeCaptureDevice() throws(CaptureError) -> CaptureDevice {
        guard let format = CaptureDevice.Format.frontCenterStage(squareSide: device.format) else {
            throw .invalidParameter(name: "format", value: "\(device.format)", allowed: ScenarioLimits.formatAllowed)
        }
        let camera = try CaptureDevice(format: format, frameRate: device.fps, clock: try makeDeviceClock(),
                                       initialAspectRatio: device.initialAspectRatio,
                                       changeLatencyFrames: device.effectiveChangeLatencyFrames,
                                       completionDelayFrames: device.completionDelayFrames)
        if let monitor = camera.smartFramingMonitor {
            do { try monitor.setEnabledFramings(named: device.enabledFramings) } catch {
                throw .invalidParameter(name: "enabledFramings", value: device.enabledFramings.joined(separator: ", "), allowed: "\(error)")
            }
        }
        if device.smartFraming {
            guard let monitor = camera.smartFramingMonitor else {
                throw .smartFramingUnsupported(formatSide: format.squareSide)
            }
            monitor.startMonitoring()
        }
        return camera
    }

    /// The position in ``events`` of each session event: time order, file order among
    /// equal times (a stable sort).
    var sessionEventOrder: [Int] {
        events.indices.sorted { (events[$0].atSeconds, $0) < (events[$1].atSeconds, $1) }
    }

    /// The scenario's events as session events at exact host times.
    public var sessionEvents: [CaptureSession.Event] {
        // In time order; events at the same instant keep their order in the file (a
        // stable sort), so "a later request takes effect over an earlier one" holds.
        // The start is rounded once, not once per event.
        let start = MediaClock.roundDecimal(sessionStartSeconds, scale: 9)
        return sessionEventOrder.map { events[$0] }.map { event in
                let offset = MediaClock.roundDecimal(event.atSeconds, scale: 9)
                return CaptureSession.Event(hostTime: MediaTime(value: start &+ offset, timescale: 1_000_000_000), action: event.action)
            }
    }
}

extension CaptureSession {
    /// A session running `scenario`: its device, start, duration and events.
    /// - Parameters:
    ///   - frameSource: pictures; `nil` for a new ``SyntheticSensor``.
    ///   - stampFrameIndex: stamp frame indices into a source that does not stamp itself.
    ///   - pixelBufferPool: where the ``SyntheticSensor`` built when `frameSource` is `nil`
    ///     takes its planes; default: a pool of its own; pass the recording's pool,
    ///     which the muxer's writers recycle encoded pictures into. A given `frameSource` keeps its own pool.
    /// - Throws: ``CaptureError`` (a scenario that passed ``Scenario/validate(file:)`` only
    ///   fails on arithmetic overflow).
    public convenience init(scenario: Scenario, frameSource: (any SensorImageSource)? = nil,
                            stampFrameIndex: Bool = false,
                            pixelBufferPool: PixelBufferPool = PixelBufferPool()) throws(CaptureError) {
        // The zoom is drawn into the picture; a stamping base keeps rows 0–31 (index and camera code).
        let pictures = ZoomingImageSource(base: frameSource ?? SyntheticSensor(pixelBufferPool: pixelBufferPool),
                                          preservedRows: 2 * FrameIndexStamp.rows, pixelBufferPool: pixelBufferPool)
        try self.init(device: try scenario.makeCaptureDevice(),
                      output: VideoDataOutput(frameSource: pictures, stampFrameIndex: stampFrameIndex),
                      sessionStart: scenario.sessionStart, duration: scenario.duration,
                      events: scenario.sessionEvents, controls: scenario.cameraControlState)
    }
}

extension Scenario {
    /// The session's orientation, Center Stage state and format-switch gap at start.
    public var cameraControlState: CameraControlState {
        CameraControlState(deviceOrientation: initialDeviceOrientation,
                           centerStage: CenterStageControl(centerStageControlMode: centerStageControlMode,
                                                           isCenterStageEnabled: centerStageEnabled),
                           switchGap: Self.nanoseconds(switchGapSeconds))
    }

    /// Each device's controls at start, by clock id, for the manifest's `devices` entries
    /// (stabilization mode, change latency in effect, Center Stage state).
    public var deviceControls: [String: DeviceControlInfo] {
        func info(_ type: CaptureDevice.DeviceType, _ format: CaptureDevice.Format?, _ mode: VideoStabilizationMode?,
                  _ latency: Int64) -> DeviceControlInfo {
            let supported = type != .builtInDualWideCamera && format?.fixedDimensions == nil
                && (format?.squareSide ?? Int.max) <= CenterStageControl.largestCenterStageSquareSide
            return DeviceControlInfo(deviceType: type.rawValue, preferredVideoStabilizationMode: mode, changeLatencyFrames: latency,
                                     centerStageEnabled: centerStageEnabled, centerStageControlMode: centerStageControlMode,
                                     isCenterStageSupported: supported, isCenterStageActive: supported && centerStageEnabled)
        }
        guard let cameras else {
            return ["front": info(.builtInUltraWideCamera, CaptureDevice.Format.frontCenterStage(squareSide: device.format),
                                  device.preferredVideoStabilizationMode, device.effectiveChangeLatencyFrames)]
        }
        var result: [String: DeviceControlInfo] = [:]
        for camera in cameras {
            result[camera.id] = info(camera.type, camera.activeFormat, camera.preferredVideoStabilizationMode,
                                     Device.changeLatency(explicit: device.isChangeLatencyExplicit ? device.changeLatencyFrames : nil,
                                                          mode: camera.preferredVideoStabilizationMode, fallback: device.changeLatencyFrames))
        }
        if frontCamera == .virtual, let virtual {
            result[Self.virtualFrontID] = info(.builtInVirtualFrontCamera,
                                               CaptureDevice.Format.virtualFrontFormats.first { $0.squareSide == virtual.format },
                                               nil, device.changeLatencyFrames)
        }
        return result
    }
}
