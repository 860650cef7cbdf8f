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

    /// The front camera this scenario describes, with smart framing enabled for all
    /// supported framings and started when `device.smartFraming` is true.
    /// - Throws: ``CaptureError`` for a configuration the device rejects (run
    ///   ``validate(file:)`` first for messages naming keys).
    public func makeCaptureDevice() throws(CaptureError) -> CaptureDevice {
        guard let format = CaptureDevice.Format.frontCenterStage(squareSide: device.format) else {
            throw .invalidParameter(name: "format", value: "\(device.format)", allowed: ScenarioLimits.formatAllowed)
        }
        let camera = try CaptureDevice(format: format, frameRate: device.fps, clock: try makeDeviceClock(),
                                       initialAspectRatio: device.initialAspectRatio,
                                       changeLatencyFrames: device.changeLatencyFrames,
                                       completionDelayFrames: device.completionDelayFrames)
        if device.smartFraming {
            guard let monitor = camera.smartFramingMonitor else {
                throw .smartFramingUnsupported(formatSide: format.squareSide)
            }
            try monitor.setEnabledFramings(monitor.supportedFramings)
            monitor.startMonitoring()
        }
        return camera
    }

    /// The scenario's events as session events at exact host times.
    public var sessionEvents: [CaptureSession.Event] {
        // In time order; events at the same instant keep their order in the file (a
        // stable sort), so "a later request takes effect over an earlier one" holds.
        // The start is rounded once, not once per event.
        let start = MediaClock.roundDecimal(sessionStartSeconds, scale: 9)
        return events.enumerated().sorted { ($0.element.atSeconds, $0.offset) < ($1.element.atSeconds, $1.offset) }
            .map(\.element).map { event in
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
        try self.init(device: try scenario.makeCaptureDevice(),
                      output: VideoDataOutput(frameSource: frameSource ?? SyntheticSensor(pixelBufferPool: pixelBufferPool),
                                              stampFrameIndex: stampFrameIndex),
                      sessionStart: scenario.sessionStart, duration: scenario.duration,
                      events: scenario.sessionEvents)
    }
}
