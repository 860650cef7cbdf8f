/// A capture session over several cameras (iPhone Duo: outer, inner, back, and optionally
/// the Virtual Front Camera) that follows the device posture, run deterministically as a
/// pull-style stream of ``CaptureOutputEvent``s (DESIGN.md, "Cameras: iPhone Duo and
/// switching"). One camera streams at a time.
///
/// ## Timing
/// Camera *c* captures frame *i* at `D_c(i) = D0_c + round(i · ts_c / fps_c)`, with
/// `D0_c = convertTime(sessionStart, host → c)`: every camera's grid starts at session start.
/// Frames are delivered with their session time `convertTime(D_c(i), c → host)` and a
/// delivery sequence number (0, 1, 2, … over the whole session: ``VideoFrame/index``), while
/// that session time is before `sessionStart + duration`.
///
/// ## Individual cameras (``FrontCameraStrategy/individual``)
/// A posture event at host time `s` whose preferred camera `b` (``DirectionCoordinator``)
/// is not the streaming one ends the old camera's frames at those whose session time is
/// before `s` (the event is applied before any frame at or after it); `b` delivers from its
/// first frame with `D_b(i) ≥ convertTime(s + switchGap, host → b)`, cropped to the ratio
/// last set on a square camera when its format lists it. Requests pending on the old camera
/// (not yet in effect) complete `superseded` at once. A `setDynamicAspectRatio` that
/// reaches the back camera fails `unsupported`: a warning and an `aspectRatioRequestFailed`
/// event, and the session goes on.
///
/// ## Virtual Front Camera (``FrontCameraStrategy/virtual``)
/// One device, `virtualFront`, with its own clock and format streams throughout; a posture
/// change swaps its constituent (the camera whose picture it delivers) from its first frame
/// with `D ≥ convertTime(s, host → virtual) + changeLatencyFrames · ts / fps`: no gap, no
/// new size, a `constituentSwapped` event.
///
/// ## Events
/// Before the frames they concern it delivers ``CaptureOutputEvent/sessionEvent(_:)``s:
/// `postureChanged` and `facingChanged` at `s`, `cameraSwitched` / `constituentSwapped` at
/// the new camera's first frame (its device time on its clock), `mirroringChanged` at the
/// first frame mirrored differently.
///
/// ## Orientation, formats and stabilization (DESIGN.md)
/// Each frame carries the streaming camera's capture angle (square cameras portrait-mounted,
/// the back camera landscape-mounted, facing from the posture) and its active format. An
/// `apply` that needs another format, or an `activeFormat` event, reconfigures the streaming
/// camera as ``CaptureSession`` does (gap, new grid anchored at the gap end, `superseded`
/// pending requests, the ratio in effect kept: unlike a camera switch, which carries the
/// app's last-set ratio over); in virtual mode only ratios the virtual format lists can be applied.
/// Each camera's `videoZoomFactor` is drawn into its pictures (``ZoomingImageSource``).
///
/// Concurrency: a non-`Sendable` class driven by the one task that pulls its events; the
/// devices, coordinator and sources are owned by it.
public final class CameraSwitchingSession: CaptureOutputEventSource {
    /// What a scheduled event does.
    public enum Action: Sendable, Hashable {
        /// A device action, sent to the streaming device (the virtual one in virtual mode).
        case device(CaptureSession.Action)
        /// The device posture changes.
        case posture(DevicePosture)
    }

    /// An action at a host time.
    public struct Event: Sendable, Hashable {
        /// When, on the host clock.
        public let hostTime: MediaTime
        /// What happens.
        public let action: Action

        /// Creates an event.
        public init(hostTime: MediaTime, action: Action) {
            self.hostTime = hostTime
            self.action = action
        }
    }

    /// The clock sample times are expressed on: the host clock (nanoseconds).
    public let synchronizationClock: MediaClock = .host
    /// The physical cameras, in `cameras` order (their position is the stamp's camera code).
    public let cameras: [CaptureDeviceDescriptor]
    /// The devices built from ``cameras``, same order (a camera reconfigured to another
    /// format is replaced).
    public private(set) var devices: [CaptureDevice]
    /// Orientation, Center Stage and the last frame's angle and zoom.
    public private(set) var controls: CameraControlState
    /// The Virtual Front Camera in virtual mode, else `nil`.
    public let virtualDevice: CaptureDevice?
    /// Individual cameras or the Virtual Front Camera.
    public let strategy: FrontCameraStrategy
    /// Posture → facing; preferred camera.
    public let coordinator: DirectionCoordinator
    /// The reconfiguration gap of an individual-camera switch (host clock).
    public let switchGap: MediaTime
    /// Host time of the session start, nanoseconds.
    public let sessionStart: MediaTime
    /// `sessionStart + duration`: frames at or after it are not delivered.
    public let sessionEnd: MediaTime
    /// Scheduled events in time order.
    public let events: [Event]
    /// Whether buffers are mirrored.
    public let mirrorMode: MirrorMode
    /// Frames delivered so far.
    public private(set) var deliveredFrameCount: Int64 = 0

    private let output: VideoDataOutput
    private var sources: [any SensorImageSource]
    /// Position of the physical camera streaming (individual) or of the constituent in
    /// effect from the next frame on (virtual: see `constituents`).
    private var active: Int
    /// Next grid index of each physical camera (individual mode).
    private var nextGrid: [Int64]
    /// Virtual mode: constituent position from each grid index on (ascending).
    private var constituents: [(frame: Int64, position: Int)] = []
    private var appRatio: DynamicAspectRatio
    /// The ratio a camera switched to starts with (the carried-over app ratio), until it
    /// delivers a frame: its ratio in effect before then.
    private var activationRatio: DynamicAspectRatio?
    private var lastDelivered: (camera: Int, constituent: Int)?
    private var lastMirrored: Bool?
    private var requestsSeen: [Int]
    private var virtualRequestsSeen = 0
    private var completions = CompletionQueue()
    private var outbox: [CaptureOutputEvent] = []
    private var outboxHead = 0
    private var nextEvent = 0
    private var started = false
    private var finished = false
    /// Format switches per physical camera (the frames' ``CaptureFormatTag/generation``).
    private var formatGenerations: [Int]
    /// Each camera's rate as the scenario asked (kept across format switches where allowed).
    private let preferredFrameRates: [FrameRate]

    /// Creates a session.
    /// - Parameters:
    ///   - cameras: the physical cameras (at least an outer and an inner camera for posture
    ///     switching; positions are their order).
    ///   - virtual: the Virtual Front Camera's descriptor in virtual mode, else `nil`.
    ///   - initialPosture: the posture at session start; the streaming camera follows it.
    ///   - initialAspectRatio: the app's ratio at start (ignored by the back camera).
    ///   - switchGap: ≥ 0; host time from a posture event to the new camera's threshold.
    ///   - sessionStart, duration: host clock; duration > 0.
    ///   - events: in non-decreasing time order within the session.
    ///   - sources: one picture source per camera (same order); in virtual mode sized to
    ///     the virtual format.
    ///   - stampFrameIndex: stamp sources that do not stamp themselves.
    ///   - mirrorMode: default `.off`.
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` for a missing camera,
    ///   a source count that differs, bad times or events; ``CaptureError`` from the devices.
    public init(cameras: [CaptureDeviceDescriptor], virtual: CaptureDeviceDescriptor?, initialPosture: DevicePosture,
                initialAspectRatio: DynamicAspectRatio, switchGap: MediaTime, sessionStart: MediaTime,
                duration: MediaTime, events: [Event], sources: [any SensorImageSource],
                stampFrameIndex: Bool = true, mirrorMode: MirrorMode = .off,
                controls: CameraControlState = CameraControlState(),
                pixelBufferPool: PixelBufferPool = PixelBufferPool()) throws(CaptureError) {
        let ns = MediaClock.host.timescale
        do {
            self.sessionStart = try sessionStart.converted(toTimescale: ns)
            self.sessionEnd = try self.sessionStart.adding(try duration.converted(toTimescale: ns))
            self.switchGap = try switchGap.converted(toTimescale: ns)
        } catch { throw .time(error) }
        guard duration > .zero else {
            throw .invalidParameter(name: "duration", value: "\(duration)", allowed: "> 0")
        }
        guard switchGap >= .zero else {
            throw .invalidParameter(name: "switchGapSeconds", value: "\(switchGap)", allowed: "≥ 0")
        }
        guard sources.count == cameras.count else {
            throw .invalidParameter(name: "sources", value: "\(sources.count)", allowed: "one per camera (\(cameras.count))")
        }
        coordinator = DirectionCoordinator(monitoring: cameras, posture: initialPosture)
        guard coordinator.preferredCamera(in: .closed) != nil, coordinator.preferredCamera(in: .open) != nil else {
            throw .invalidParameter(name: "cameras", value: cameras.map(\.deviceType.rawValue).joined(separator: ", "),
                                    allowed: "at least one builtInOuterUltraWideCamera and one builtInInnerUltraWideCamera")
        }
        var previous = self.sessionStart
        for (i, event) in events.enumerated() {
            guard event.hostTime >= previous, event.hostTime < sessionEnd else {
                throw .invalidParameter(name: "events[\(i)] host time", value: "\(event.hostTime)",
                                        allowed: "non-decreasing, in [\(self.sessionStart), \(sessionEnd))")
            }
            previous = event.hostTime
            if case .device(.peopleInFrame(let count)) = event.action, count < 0 {
                throw .invalidParameter(name: "peopleInFrame", value: "\(count)", allowed: CaptureSession.peopleInFrameAllowed)
            }
        }
        self.cameras = cameras
        self.devices = try cameras.map { (descriptor) throws(CaptureError) in
            try descriptor.makeDevice(initialAspectRatio: initialAspectRatio)
        }
        self.virtualDevice = try virtual.map { (descriptor) throws(CaptureError) in
            try descriptor.makeDevice(initialAspectRatio: initialAspectRatio)
        }
        strategy = virtual == nil ? .individual : .virtual
        self.events = events
        // Zoom is drawn into each camera's pictures; a stamping base keeps rows 0–31.
        self.sources = sources.map {
            ZoomingImageSource(base: $0, preservedRows: 2 * FrameIndexStamp.rows, pixelBufferPool: pixelBufferPool)
        }
        self.controls = controls
        self.formatGenerations = Array(repeating: 0, count: cameras.count)
        self.preferredFrameRates = cameras.map(\.frameRate)
        self.output = VideoDataOutput(stampFrameIndex: stampFrameIndex)
        self.mirrorMode = mirrorMode
        appRatio = initialAspectRatio
        nextGrid = Array(repeating: 0, count: cameras.count)
        requestsSeen = Array(repeating: 0, count: cameras.count)
        let first = (virtual == nil ? coordinator.preferredCamera(in: initialPosture)
                                    : coordinator.virtualConstituent(in: initialPosture))
        active = first?.stampPosition ?? 0
        if virtual != nil { constituents = [(0, active)] }
    }

    /// The device frames come from: the virtual one, or the active physical camera.
    public var streamingDevice: CaptureDevice { virtualDevice ?? devices[active] }

    /// Stops the session: queued events are still delivered, then nil.
    public func stopRunning() { finished = true }

    /// The next output event, or `nil` at the end of the stream.
    /// - Throws: ``CaptureError`` or the frame sources' errors.
    public func next() throws -> CaptureOutputEvent? {
        while outboxHead == outbox.count {
            if finished { return nil }
            try produce()
        }
        let event = outbox[outboxHead]
        outboxHead += 1
        if outboxHead == outbox.count { outbox.removeAll(keepingCapacity: true); outboxHead = 0 }
        return event
    }

    // MARK: Producing

    private func start() throws(CaptureError) {
        guard !started else { return }
        for device in devices { try device.startCapture(sessionStart: sessionStart) }
        try virtualDevice?.startCapture(sessionStart: sessionStart)
        started = true
    }

    /// The next frame the session would deliver: device, grid index, session time.
    private func candidate() throws(CaptureError) -> (device: CaptureDevice, grid: Int64, time: MediaTime) {
        let device = streamingDevice
        guard let timing = device.frameTiming else { throw .notCapturing }
        let grid = virtualDevice != nil ? deliveredFrameCount : nextGrid[active]
        do { return (device, grid, try timing.sessionTime(ofFrame: grid)) } catch { throw .time(error) }
    }

    private func produce() throws {
        try start()
        var next = try candidate()
        while nextEvent < events.count, events[nextEvent].hostTime <= next.time {
            try apply(events[nextEvent])
            nextEvent += 1
            next = try candidate()
        }
        collectRequests()
        guard next.time < sessionEnd else {
            while let completion = completions.pop() { outbox.append(completion) }
            finished = true
            return
        }
        while let completion = completions.popDue(beforeFrame: deliveredFrameCount) { outbox.append(completion) }
        try deliver(device: next.device, grid: next.grid, sessionTime: next.time)
    }

    private func deliver(device: CaptureDevice, grid: Int64, sessionTime: MediaTime) throws {
        guard let timing = device.frameTiming else { throw CaptureError.notCapturing }
        let producer = virtualDevice == nil ? active : constituent(atFrame: grid)
        let deviceTime: MediaTime, nextSessionTime: MediaTime
        do {
            deviceTime = try timing.deviceTime(ofFrame: grid)
            nextSessionTime = try timing.sessionTime(ofFrame: grid + 1)
        } catch { throw CaptureError.time(error) }
        let index = deliveredFrameCount
        if let last = lastDelivered {
            if virtualDevice == nil, last.camera != active {
                outbox.append(.sessionEvent(SessionEventRecord(
                    kind: .cameraSwitched, sessionTime: sessionTime, deviceTime: deviceTime, deviceClock: device.uniqueID,
                    camera: device.uniqueID, from: cameras[last.camera].uniqueID, to: device.uniqueID, frameIndex: index)))
            } else if virtualDevice != nil, last.constituent != producer {
                outbox.append(.sessionEvent(SessionEventRecord(
                    kind: .constituentSwapped, sessionTime: sessionTime, deviceTime: deviceTime, deviceClock: device.uniqueID,
                    camera: device.uniqueID, from: cameras[last.constituent].uniqueID, to: cameras[producer].uniqueID,
                    frameIndex: index)))
            }
        }
        let facing = virtualDevice != nil ? CameraFacing.user : coordinator.facing(of: cameras[active])
        let mirrored = mirrorMode.mirrors(facing)
        if let lastMirrored, lastMirrored != mirrored {
            outbox.append(.sessionEvent(SessionEventRecord(
                kind: .mirroringChanged, sessionTime: sessionTime, camera: device.uniqueID,
                from: lastMirrored ? "on" : "off", to: mirrored ? "on" : "off", frameIndex: index)))
        }
        let camera = FrameCamera(id: device.uniqueID, deviceType: device.deviceType, facing: facing,
                                 producer: cameras[producer].uniqueID, producerPosition: producer, isMirrored: mirrored)
        if let zooming = sources[producer] as? ZoomingImageSource { zooming.videoZoomFactor = device.videoZoomFactor }
        var frame = try output.frame(index: index, dimensions: device.dimensions(atFrame: grid), deviceTime: deviceTime,
                                     sessionTime: sessionTime, nextSessionTime: nextSessionTime,
                                     source: &sources[producer], camera: camera)
        let angle = controls.rotationAngle(deviceType: device.deviceType)
        frame.rotationAngle = angle
        frame.captureFormat = CaptureFormatTag(camera: device.uniqueID, format: device.activeFormat.name, frameRate: device.frameRate,
                                               generation: virtualDevice == nil ? formatGenerations[active] : 0)
        for record in controls.frameRecords(angle: angle, zoom: device.videoZoomFactor, device: device, frameIndex: index,
                                            sessionTime: sessionTime, deviceTime: deviceTime) {
            outbox.append(.sessionEvent(record))
        }
        outbox.append(.frame(frame))
        lastDelivered = (virtualDevice == nil ? active : 0, producer)
        activationRatio = nil
        lastMirrored = mirrored
        deliveredFrameCount += 1
        if virtualDevice == nil { nextGrid[active] = grid + 1 }
        device.didCapture(upTo: grid + 1, hostTime: sessionTime)
    }

    /// Applies every scheduled event at its time without producing pictures (as
    /// ``CaptureSession`` does): a format the camera streaming then lacks, or another event
    /// it rejects, fails before anything is recorded. Frames between events are counted as
    /// delivered, not drawn. The session is used up: record with a new one.
    /// - Throws: ``CaptureEventError`` with the position in ``events`` of the event the
    ///   session rejects; ``streamingDevice`` is then the camera streaming at that event.
    func rehearse() throws(CaptureEventError) {
        do { try start() } catch { throw CaptureEventError(eventIndex: nil, error: error) }
        for (i, event) in events.enumerated() {
            do {
                try skipFrames(before: event.hostTime)
                try apply(event)
            } catch let error as CaptureError {
                throw CaptureEventError(eventIndex: i, error: error)
            } catch {
                throw CaptureEventError(eventIndex: i, error: .invalidParameter(name: "event", value: "\(error)", allowed: "an event the session accepts"))
            }
            outbox.removeAll(keepingCapacity: true)
        }
        finished = true
    }

    /// Counts as delivered the streaming device's frames whose session time is before `h`:
    /// those ``produce()`` delivers before it applies an event at host time `h`.
    private func skipFrames(before h: MediaTime) throws(CaptureError) {
        let device = streamingDevice
        guard let timing = device.frameTiming else { throw .notCapturing }
        let grid = virtualDevice != nil ? deliveredFrameCount : nextGrid[active]
        do {
            let n = try timing.firstFrame(capturedAtOrAfter: h, minimumIndex: grid)
            guard n > grid else { return }
            let last = try timing.sessionTime(ofFrame: n - 1)
            deliveredFrameCount += n - grid
            if virtualDevice == nil { nextGrid[active] = n }
            lastDelivered = (virtualDevice == nil ? active : 0, virtualDevice == nil ? active : constituent(atFrame: n - 1))
            activationRatio = nil
            device.didCapture(upTo: n, hostTime: last)
        } catch { throw .time(error) }
    }

    /// The ratio in effect on the streaming camera now (what its buffers had): pending
    /// requests do not count; a camera just switched to has the ratio it started with.
    var ratioInEffect: DynamicAspectRatio {
        if let virtualDevice { return virtualDevice.ratioInEffect(beforeFrame: deliveredFrameCount) }
        return activationRatio ?? devices[active].ratioInEffect(beforeFrame: nextGrid[active])
    }

    /// Virtual mode: the constituent whose picture frame `grid` shows.
    private func constituent(atFrame grid: Int64) -> Int {
        constituents.last { $0.frame <= grid }?.position ?? active
    }

    /// Moves requests the streaming device recorded into the completion queue, their frame
    /// indices translated to delivery sequence numbers (the streaming device delivers its
    /// grid frames from `next` on as delivery numbers from `deliveredFrameCount` on).
    private func collectRequests() {
        let device = streamingDevice
        let seen = virtualDevice != nil ? virtualRequestsSeen : requestsSeen[active]
        let requests = device.requests
        guard seen < requests.count else { return }
        let base = virtualDevice != nil ? deliveredFrameCount : nextGrid[active]
        for request in requests[seen...] {
            let shift = deliveredFrameCount - base
            completions.enqueue(DynamicAspectRatioRequest(
                sequenceNumber: request.sequenceNumber, aspectRatio: request.aspectRatio,
                requestTime: request.requestTime, requestFrameIndex: request.requestFrameIndex + shift,
                effectiveFrameIndex: request.effectiveFrameIndex + shift, change: request.change,
                changesDimensions: request.changesDimensions), completionDelayFrames: device.completionDelayFrames)
        }
        if virtualDevice != nil { virtualRequestsSeen = requests.count } else { requestsSeen[active] = requests.count }
    }

    // MARK: Events

    private func apply(_ event: Event) throws {
        switch event.action {
        case .posture(let posture):
            try changePosture(to: posture, at: event.hostTime)
        case .device(let action):
            let device = streamingDevice
            switch action {
            case .setDynamicAspectRatio(let ratio):
                do {
                    try device.submitDynamicAspectRatio(ratio, atSessionTime: event.hostTime)
                    appRatio = ratio
                    collectRequests()
                } catch .dynamicAspectRatioUnsupported(let camera, let type) {
                    let message = "setDynamicAspectRatio(\(ratio.rawValue)) at session time \(event.hostTime) failed unsupported: camera \(camera) (\(type)) has no dynamic aspect ratio; the recording goes on at its fixed size"
                    outbox.append(.warning(message))
                    outbox.append(.sessionEvent(SessionEventRecord(
                        kind: .aspectRatioRequestFailed, sessionTime: event.hostTime, camera: camera,
                        to: ratio.rawValue, message: message)))
                }
            case .videoZoomFactor(let factor):
                controls.noteZoomCause("videoZoomFactor")
                try device.setVideoZoomFactor(factor)
            case .peopleInFrame(let count):
                // Only Center Stage frames people on these cameras (none has smart framing).
                _ = try controls.observePeople(count, device: device)
            case .posture(let posture):
                try changePosture(to: posture, at: event.hostTime)
            case .deviceOrientation(let orientation):
                if let record = controls.setDeviceOrientation(orientation, at: event.hostTime) { outbox.append(.sessionEvent(record)) }
            case .centerStageEnabled(let enabled):
                for record in try controls.setCenterStageEnabled(enabled, at: event.hostTime, device: device) {
                    outbox.append(.sessionEvent(record))
                }
            case .smartFraming:
                throw CaptureError.smartFramingUnsupported(formatSide: device.activeFormat.squareSide)
            case .apply(let ratio):
                try applyRatio(ratio, at: event.hostTime)
            case .activeFormat(let name):
                try switchActiveFormat(to: name, at: event.hostTime)
            }
        }
    }

    /// The seeds' `apply(ratio)` on the streaming camera: a plain `setDynamicAspectRatio`
    /// when its format lists the ratio, else a switch to the first format that does; on the
    /// back camera (no format lists any ratio) it fails `unsupported` like a request would.
    private func applyRatio(_ ratio: DynamicAspectRatio, at s: MediaTime) throws {
        let device = streamingDevice
        if device.activeFormat.supportedDynamicAspectRatios.contains(ratio) || device.activeFormat.fixedDimensions != nil {
            try apply(Event(hostTime: s, action: .device(.setDynamicAspectRatio(ratio))))
            return
        }
        guard virtualDevice == nil else {
            throw CaptureError.invalidParameter(name: "apply", value: ratio.rawValue,
                                                allowed: "a ratio the Virtual Front Camera's format lists (use individual cameras to switch formats)")
        }
        let selection: ActiveFormatSelection<CaptureDevice.Format>
        do {
            selection = try ActiveFormatSelection.apply(ratio, formats: device.formats, activeFormat: device.activeFormat,
                                                        currentAspectRatio: ratioInEffect, currentFrameRate: device.frameRate,
                                                        preferredFrameRate: preferredFrameRates[active])
        } catch { throw CaptureError.invalidParameter(name: "apply", value: ratio.rawValue, allowed: "\(error)") }
        appRatio = ratio
        try switchFormat(to: selection, at: s, because: "apply(\(ratio.rawValue))")
    }

    /// `{"activeFormat": name}` on the streaming camera.
    private func switchActiveFormat(to name: String, at s: MediaTime) throws {
        let device = streamingDevice
        guard virtualDevice == nil else {
            throw CaptureError.invalidParameter(name: "activeFormat", value: name,
                                                allowed: "no format switch on the Virtual Front Camera (use individual cameras)")
        }
        let selection: ActiveFormatSelection<CaptureDevice.Format>
        if device.activeFormat.fixedDimensions != nil {
            // The back camera's fixed-size formats: no ratio to keep, only size and rate.
            guard let index = device.formats.firstIndex(where: { $0.name == name }), let size = device.formats[index].fixedDimensions else {
                throw CaptureError.invalidParameter(name: "activeFormat", value: name,
                                                    allowed: "camera \(device.uniqueID): " + device.formats.map(\.name).joined(separator: ", "))
            }
            let format = device.formats[index]
            let rate = ActiveFormatSelection<CaptureDevice.Format>.clamped(preferredFrameRates[active], to: format.maxFrameRate)
            selection = ActiveFormatSelection(format: format, formatIndex: index, aspectRatio: ratioInEffect,
                                              dimensions: size, frameRate: rate, formatChanged: format != device.activeFormat,
                                              aspectRatioChanged: false, dimensionsChanged: size != device.activeFormat.fixedDimensions,
                                              frameRateChanged: rate != device.frameRate)
        } else {
            do {
                selection = try ActiveFormatSelection.switchFormat(
                    to: name, formats: device.formats, activeFormat: device.activeFormat,
                    currentAspectRatio: ratioInEffect,
                    currentFrameRate: device.frameRate, preferredFrameRate: preferredFrameRates[active])
            } catch { throw CaptureError.invalidParameter(name: "activeFormat", value: name, allowed: "camera \(device.uniqueID): \(error)") }
        }
        guard selection.formatChanged else { return }
        try switchFormat(to: selection, at: s, because: "activeFormat \(name)")
        // Requests pending at the switch were superseded: the app's ratio is the one kept.
        if selection.format.fixedDimensions == nil { appRatio = selection.aspectRatio }
    }

    /// Reconfigures the streaming physical camera to `selection` at host time `s`: pending
    /// requests complete `superseded` (the new format starts with `selection.aspectRatio`,
    /// the ratio in effect at `s` or an `apply`'s own), the new device's grid starts at the
    /// first device tick at or after `s + switchGap`; Center Stage's zoom follows its active
    /// state on the new format.
    private func switchFormat(to selection: ActiveFormatSelection<CaptureDevice.Format>, at s: MediaTime,
                              because cause: String) throws {
        collectRequests()
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: deliveredFrameCount))
        let old = devices[active]
        let start: MediaTime
        do { start = try s.adding(controls.switchGap) } catch { throw CaptureError.time(error) }
        let new = try old.reconfigured(format: selection.format, frameRate: selection.frameRate,
                                       aspectRatio: selection.aspectRatio, capturingFrom: start, switchedAt: s)
        try controls.formatDidChange(from: old, to: new)
        devices[active] = new
        activationRatio = nil
        nextGrid[active] = 0
        requestsSeen[active] = 0
        formatGenerations[active] += 1
        guard let timing = new.frameTiming else { throw CaptureError.notCapturing }
        do {
            outbox.append(.sessionEvent(SessionEventRecord(
                kind: .activeFormatChanged, sessionTime: try timing.sessionTime(ofFrame: 0), deviceTime: try timing.deviceTime(ofFrame: 0),
                deviceClock: new.uniqueID, camera: new.uniqueID, from: "\(old.activeFormat.name)@\(old.frameRate)",
                to: "\(new.activeFormat.name)@\(new.frameRate)", frameIndex: deliveredFrameCount,
                message: "\(cause) at session time \(s): \(selection.dimensions) \(selection.aspectRatio.rawValue) after a \(controls.switchGap) reconfiguration gap"
                    + (selection.startsSegment ? "; new segment (formatChanged)" : "; same dimensions and rate: no new segment"))))
        } catch { throw CaptureError.time(error) }
    }

    private func changePosture(to posture: DevicePosture, at s: MediaTime) throws {
        let before = Dictionary(uniqueKeysWithValues: cameras.map { ($0.uniqueID, coordinator.facing(of: $0)) })
        let old = coordinator.posture
        guard let change = coordinator.update(posture: posture) else { return }
        outbox.append(.sessionEvent(SessionEventRecord(kind: .postureChanged, sessionTime: s,
                                                       from: old.rawValue, to: posture.rawValue)))
        for (descriptor, facing) in change.facings where before[descriptor.uniqueID] != facing {
            outbox.append(.sessionEvent(SessionEventRecord(
                kind: .facingChanged, sessionTime: s, camera: descriptor.uniqueID,
                from: before[descriptor.uniqueID]?.rawValue, to: facing.rawValue)))
        }
        if let virtualDevice {
            guard let target = coordinator.virtualConstituent(in: posture)?.stampPosition,
                  target != constituents.last?.position, let timing = virtualDevice.frameTiming else { return }
            do {
                let threshold = try convertTime(s, from: .host, to: virtualDevice.clock)
                let k = try timing.firstFrame(atOrAfter: threshold, plusFramePeriods: virtualDevice.changeLatencyFrames,
                                              minimumIndex: deliveredFrameCount)
                constituents.removeAll { $0.frame >= k }
                if constituents.last?.position != target { constituents.append((k, target)) }
            } catch { throw CaptureError.time(error) }
            return
        }
        guard let b = change.preferredCamera?.stampPosition, b != active else { return }
        // Requests not in effect on the old camera never will be.
        collectRequests()
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: deliveredFrameCount))
        devices[active].didCapture(upTo: nextGrid[active], hostTime: s)
        let device = devices[b]
        guard let timing = device.frameTiming else { throw CaptureError.notCapturing }
        let first: Int64
        do {
            let threshold = try convertTime(try s.adding(switchGap), from: .host, to: device.clock)
            first = try timing.firstFrame(atOrAfter: threshold, minimumIndex: max(device.nextFrameIndex, nextGrid[b]))
        } catch { throw CaptureError.time(error) }
        device.carryOver(appRatio, fromFrame: first)
        activationRatio = device.aspectRatio(atFrame: first)
        device.didCapture(upTo: first, hostTime: s)
        // Requests the new camera took earlier are already queued; count them as seen.
        requestsSeen[b] = device.requests.count
        nextGrid[b] = first
        active = b
    }
}
