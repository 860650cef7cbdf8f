/// The analog of `AVCaptureSession` with one or more ``CaptureDevice`` inputs and one
/// ``VideoDataOutput``, run deterministically as a pull-style stream of
/// ``CaptureOutputEvent``s. One camera streams at a time; the ``Routing`` says which: the
/// single Center Stage front camera throughout, the iPhone Duo camera the posture selects, or
/// the Virtual Front Camera (Docs/clocks.md, Docs/cameras.md).
///
/// ## What it delivers
/// Camera *c* captures frame *i* at `D_c(i) = D0_c + round(i · ts_c / fps_c)`, with
/// `D0_c = convertTime(sessionStart, host → c)`: every camera's grid starts at session start.
/// Frames are delivered with their session time `convertTime(D_c(i), c → host)` and a
/// delivery sequence number (0, 1, 2, … over the whole session: ``VideoFrame/index``; with
/// one camera the grid index *i*) while that session time is before
/// `sessionStart + duration`. Before each frame it applies, in time order, every scheduled
/// event whose host time is ≤ the frame's session time; events after the last frame are
/// applied at the end. Completions of `setDynamicAspectRatio` requests are placed just before
/// frame `k + completionDelayFrames`, never before the first frame at/after the request and
/// in FIFO order; a completion due after the last frame never arrives (the recording ends
/// first: its segment is `announced: false`, Docs/DESIGN.md "Dynamic aspect ratio"). A
/// request that a later one overrides on its own frame completes `superseded`
/// (``CaptureOutputEvent/dynamicAspectRatioChangeSuperseded(_:)``). A completion placed
/// before the frame it announces (a negative `completionDelayFrames`) is held back, with
/// everything after it, until that frame is captured: if a camera or format switch, or a
/// later request for that frame or an earlier one, comes first, it is delivered
/// `superseded` instead of with a time (the request never took effect), in the same place.
///
/// ## Individual cameras (``Routing/individual(initialPosture:)``)
/// A posture event at host time `s` whose preferred camera `b` (``DirectionCoordinator``)
/// is not the streaming one ends the old camera's frames at those whose session time is
/// before `s`; `b` delivers from its first frame with
/// `D_b(i) ≥ convertTime(s + switchGap, host → b)`, cropped to the ratio last set on a square
/// camera when its format lists it. Requests pending on the old camera (not yet in effect)
/// complete `superseded` at once. A `setDynamicAspectRatio` that reaches the back camera
/// fails `unsupported`: a warning and an `aspectRatioRequestFailed` event, and the session
/// goes on. `cameraSwitched` is logged at the new camera's first frame (its device time on its clock).
///
/// ## Virtual Front Camera (``Routing/virtualFrontCamera(initialPosture:)``)
/// One device, `virtualFront`, with its own clock and format streams throughout; a posture
/// change swaps its constituent (the camera whose picture it delivers) from its first frame
/// with `D ≥ convertTime(s, host → virtual) + changeLatencyFrames · ts / fps`: no gap, no
/// new size, a `constituentSwapped` event. It cannot switch formats.
///
/// ## Orientation, formats and stabilization (Docs/cameras.md)
/// Before the first frame, and before every frame in which any part of it changes, the
/// session announces the stream's format (``CaptureOutputEvent/formatChanged(_:)``): the
/// streaming camera, its capture angle (``CameraControlState/rotationAngle(deviceType:facing:)``:
/// square sensors portrait-mounted, the back camera landscape-mounted, each turned by its
/// facing relative to the view's display), rate, active format,
/// mirroring and dimensions; a `deviceOrientation` event applies from the first frame at or
/// after it. An `apply` that needs another format, or an
/// `activeFormat` event, reconfigures the streaming camera: frames stop at the event time
/// `s`, requests not yet in effect complete `superseded` (the new format starts with the
/// ratio in effect at `s`, what the last frame had, or an `apply`'s own), and the new
/// format's grid is anchored at `D0' = ⌈convertTime(s + switchGap, host → device)⌉` (frame
/// *j* of it at `D0' + round(j · ts / fps')`). Frame indices keep counting across switches.
/// Each camera's `videoZoomFactor` is drawn into its pictures when the source is a
/// ``ZoomingImageSource``. Buffers are mirrored as ``mirrorMode`` says (`mirroringChanged`
/// at the first frame mirrored differently).
///
/// ## Use
/// ```swift
/// let session = try CaptureSession(scenario: scenario)
/// var events = session.makeIterator()
/// while let event = try events.next() { … }
/// ```
/// A session runs once: after its last event, ``next()`` returns `nil`.
///
/// Concurrency: a non-`Sendable` class driven by one task (the consumer pulling events);
/// the devices, coordinator, monitor, output and sources are owned by it and never shared.
public final class CaptureSession {
    /// Which camera the session streams from (Docs/cameras.md).
    public enum Routing: Sendable, Hashable {
        /// One camera streams throughout: the single Center Stage front camera, facing the
        /// user. Its stream format names no camera and its frames carry no camera code.
        case fixed
        /// Individual cameras, switched as the app does with
        /// `AVCaptureDeviceDirectionCoordinator`: the camera the posture selects streams
        /// (`closed` → outer, `open` → inner, `openOuterDisplay` → back if present, else outer).
        case individual(initialPosture: DevicePosture)
        /// The Virtual Front Camera (the last device, type `builtInVirtualFrontCamera`)
        /// streams throughout, showing the constituent the posture selects.
        case virtualFrontCamera(initialPosture: DevicePosture)
    }

    /// The clock sample times are expressed on (`AVCaptureSession.synchronizationClock`):
    /// the host clock (nanoseconds) once the session runs, `nil` before
    /// ``startRunning()`` (the seeds' `missingSynchronizationClock`: there is nothing to
    /// convert a device time to yet).
    public var synchronizationClock: MediaClock? { isRunning ? .host : nil }
    /// How the streaming camera is chosen.
    public let routing: Routing
    /// The physical cameras as descriptors, in order (their position is the stamp's camera code).
    public let cameras: [CaptureDeviceDescriptor]
    /// The devices: the physical cameras in ``cameras`` order, then the Virtual Front Camera
    /// with ``Routing/virtualFrontCamera(initialPosture:)`` (a camera reconfigured to another
    /// format is replaced).
    public private(set) var devices: [CaptureDevice]
    /// Orientation, Center Stage and the last frame's angle and zoom.
    public private(set) var controls: CameraControlState
    /// The video data output (one picture source per physical camera).
    public let output: VideoDataOutput
    /// Posture → facing and preferred camera; `nil` with ``Routing/fixed``.
    public let coordinator: DirectionCoordinator?
    /// Host time the session starts at (frame 0's capture instant), nanoseconds.
    public let sessionStart: MediaTime
    /// How long the source runs, nanoseconds.
    public let duration: MediaTime
    /// `sessionStart + duration`: frames at or after it are not delivered.
    public let sessionEnd: MediaTime
    /// Scheduled events, in time order.
    public let events: [Event]
    /// Whether buffers are mirrored (`isVideoMirrored`): `auto` while the streaming camera faces the user.
    public let mirrorMode: MirrorMode
    /// The microphone (an audio data output beside the video one), or nil for a silent
    /// session. Its buffers ride the same stream, before each frame those captured before
    /// it (by session time), and after the last frame the rest up to ``sessionEnd``.
    public let microphone: AudioCaptureDevice?

    /// Every rate a frame of this session can be captured at: each camera's rate as asked,
    /// clamped to each of its formats' `maxFrameRate` (what an `activeFormat` switch or a
    /// camera switch can bring), without repeats.
    public var captureFrameRates: [FrameRate] {
        var rates: [FrameRate] = []
        for (device, preferred) in zip(devices, preferredFrameRates) {
            for format in device.formats {
                let rate = ActiveFormatSelection<CaptureDevice.Format>.clamped(preferred, to: format.maxFrameRate)
                if !rates.contains(rate) { rates.append(rate) }
            }
            if !rates.contains(device.frameRate) { rates.append(device.frameRate) }
        }
        return rates
    }

    /// Whether the session has started (the first ``next()`` starts it).
    public private(set) var isRunning = false
    /// Frames delivered so far.
    public private(set) var deliveredFrameCount: Int64 = 0

    /// Position in ``devices`` of the device frames come from.
    private var streaming: Int
    /// Next grid index of each device.
    private var nextGrid: [Int64]
    /// Requests of each device already moved to the completion queue.
    private var requestsSeen: [Int]
    /// Format switches per device (``VideoStreamFormat/formatGeneration``).
    private var formatGenerations: [Int]
    /// The format last announced in the event stream (``CaptureOutputEvent/formatChanged(_:)``).
    private var announcedFormat: VideoStreamFormat?
    /// Each device's rate as asked at start (kept across format switches where the format allows it).
    private let preferredFrameRates: [FrameRate]
    /// Virtual routing: constituent position from each grid index on (ascending).
    private var constituents: [(frame: Int64, position: Int)] = []
    /// The ratio last set on a square camera (the app's choice), carried to a camera switched to.
    private var appRatio: DynamicAspectRatio
    /// The ratio a camera switched to starts with (the carried-over app ratio), until it
    /// delivers a frame: its ratio in effect before then.
    private var activationRatio: DynamicAspectRatio?
    private var lastDelivered: (device: Int, producer: Int)?
    private var lastMirrored: Bool?
    /// Session time of the streaming device's grid frame `grid`, already computed as the
    /// previous frame's end.
    private var nextFrameSessionTime: (device: Int, grid: Int64, time: MediaTime)?
    private var nextEvent = 0
    private var completions = CompletionQueue()
    /// Events produced and not yet delivered from `outboxHead` on; a delivered event's slot
    /// is emptied (taken, not copied), so the outbox never keeps a delivered frame's planes
    /// alive: the pool hands them out again once the encoder lets go, and a plane still
    /// referenced here would be copied in full by its next writer (copy-on-write).
    private var outbox: [CaptureOutputEvent?] = []
    private var outboxHead = 0
    /// Timed completions in the outbox ahead of the frame they announce (a negative
    /// `completionDelayFrames`), in outbox order: nothing from the first on is delivered
    /// until its frame is captured or it is superseded (see the type's documentation).
    private var heldCompletions: [(position: Int, request: DynamicAspectRatioRequest)] = []
    private var finished = false

    /// Creates a session.
    /// - Parameters:
    ///   - devices: the cameras (their position is the stamp's camera code); exactly one
    ///     with ``Routing/fixed``; at least an outer and an inner camera otherwise, the
    ///     Virtual Front Camera last with ``Routing/virtualFrontCamera(initialPosture:)``.
    ///   - routing: which camera streams (default ``Routing/fixed``).
    ///   - output: one picture source per physical camera (in virtual routing sized to the
    ///     virtual format).
    ///   - sessionStart: host time of frame 0 (any timescale; kept at nanoseconds).
    ///   - duration: > 0.
    ///   - events: in non-decreasing time order, each in `sessionStart ..< sessionStart + duration`;
    ///     what an event asks of the camera is checked when it is applied (`rehearse()`
    ///     applies them all without pictures).
    ///   - controls: initial orientation, Center Stage state and the switch gap (default:
    ///     portrait, iOS's Center Stage defaults, 0.25 s).
    ///   - mirrorMode: default `.off`.
    ///   - microphone: the session's microphone (its buffers ride the stream), or nil (default).
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` for a bad duration,
    ///   gap or event time, a negative people count, devices or sources that do not fit the
    ///   routing; ``CaptureError/time(_:)``.
    public init(
        devices: [CaptureDevice], routing: Routing = .fixed, output: VideoDataOutput = VideoDataOutput(), sessionStart: MediaTime, duration: MediaTime,
        events: [Event] = [], controls: CameraControlState = CameraControlState(), mirrorMode: MirrorMode = .off, microphone: AudioCaptureDevice? = nil
    ) throws(CaptureError) {
        let ns = MediaClock.host.timescale
        do {
            self.sessionStart = try sessionStart.converted(toTimescale: ns)
            self.duration = try duration.converted(toTimescale: ns)
            self.sessionEnd = try self.sessionStart.adding(self.duration)
        } catch { throw .time(error) }
        guard duration > .zero else { throw .invalidParameter(name: "duration", value: "\(duration)", allowed: "> 0") }
        var physical = devices
        var posture = DevicePosture.closed
        switch routing {
        case .fixed:
            guard devices.count == 1 else { throw .invalidParameter(name: "devices", value: "\(devices.count)", allowed: "one camera with fixed routing") }
        case .individual(let initial): posture = initial
        case .virtualFrontCamera(let initial):
            posture = initial
            guard physical.popLast()?.deviceType == .builtInVirtualFrontCamera else {
                throw .invalidParameter(
                    name: "devices", value: devices.map(\.deviceType.rawValue).joined(separator: ", "),
                    allowed: "the physical cameras, then the builtInVirtualFrontCamera")
            }
        }
        guard routing == .fixed || controls.switchGap >= .zero else {
            throw .invalidParameter(name: "switchGapSeconds", value: "\(controls.switchGap)", allowed: "≥ 0")
        }
        guard output.frameSources.count == physical.count else {
            throw .invalidParameter(name: "sources", value: "\(output.frameSources.count)", allowed: "one per camera (\(physical.count))")
        }
        let cameras = physical.enumerated().map { CaptureDeviceDescriptor($0.element, stampPosition: $0.offset) }
        let coordinator = routing == .fixed ? nil : DirectionCoordinator(monitoring: cameras, posture: posture)
        if let coordinator, coordinator.preferredCamera(in: .closed) == nil || coordinator.preferredCamera(in: .open) == nil {
            throw .invalidParameter(
                name: "cameras", value: cameras.map(\.deviceType.rawValue).joined(separator: ", "),
                allowed: "at least one builtInOuterUltraWideCamera and one builtInInnerUltraWideCamera")
        }
        var previous = self.sessionStart
        for (i, event) in events.enumerated() {
            guard event.hostTime >= previous, event.hostTime < sessionEnd else {
                throw .invalidParameter(
                    name: "events[\(i)] host time", value: "\(event.hostTime)", allowed: "non-decreasing, in [\(self.sessionStart), \(sessionEnd))")
            }
            previous = event.hostTime
            // A fact about the scene, on any format at any time: it drives active Center
            // Stage's zoom and running smart framing, and is only remembered otherwise.
            if case .peopleInFrame(let count) = event.action, count < 0 {
                throw .invalidParameter(name: "peopleInFrame", value: "\(count)", allowed: Self.peopleInFrameAllowed)
            }
        }
        self.routing = routing
        self.cameras = cameras
        self.devices = devices
        self.coordinator = coordinator
        self.controls = controls
        self.output = output
        self.events = events
        self.mirrorMode = mirrorMode
        self.microphone = microphone
        nextGrid = Array(repeating: 0, count: devices.count)
        requestsSeen = Array(repeating: 0, count: devices.count)
        formatGenerations = Array(repeating: 0, count: devices.count)
        preferredFrameRates = devices.map(\.frameRate)
        // The app's ratio at start: what the square cameras start with.
        appRatio = devices.first { $0.activeFormat.fixedDimensions == nil }?.ratioInEffect(beforeFrame: 0) ?? .ratio9x16
        switch routing {
        case .fixed: streaming = 0
        case .individual(let initial): streaming = coordinator?.preferredCamera(in: initial)?.stampPosition ?? 0
        case .virtualFrontCamera(let initial):
            streaming = physical.count
            constituents = [(0, coordinator?.virtualConstituent(in: initial)?.stampPosition ?? 0)]
        }
    }

    /// A one-camera session (``Routing/fixed``): see
    /// ``init(devices:routing:output:sessionStart:duration:events:controls:mirrorMode:microphone:)``.
    public convenience init(
        device: CaptureDevice, output: VideoDataOutput = VideoDataOutput(), sessionStart: MediaTime, duration: MediaTime, events: [Event] = [],
        controls: CameraControlState = CameraControlState()
    ) throws(CaptureError) {
        try self.init(devices: [device], output: output, sessionStart: sessionStart, duration: duration, events: events, controls: controls)
    }

    /// The device frames come from: the one camera, the streaming individual camera, or the
    /// Virtual Front Camera (a camera reconfigured to another format is replaced).
    public var device: CaptureDevice { devices[streaming] }

    private var isVirtual: Bool {
        if case .virtualFrontCamera = routing { return true }
        return false
    }

    /// Starts the devices (frame 0 at ``sessionStart``). Called by the first ``next()``.
    /// - Throws: ``CaptureError/time(_:)``.
    public func startRunning() throws(CaptureError) {
        guard !isRunning else { return }
        for device in devices { try device.startCapture(sessionStart: sessionStart) }
        try microphone?.startCapture(sessionStart: sessionStart, sessionEnd: sessionEnd)
        isRunning = true
    }

    /// The number of frames the streaming camera's grid has before ``sessionEnd``: the
    /// frames a session that never switches cameras or formats delivers.
    /// - Throws: ``CaptureError/time(_:)``.
    public func frameCount() throws(CaptureError) -> Int64 {
        do {
            let timing = try FrameTiming(deviceClock: device.clock, frameRate: device.frameRate, sessionStart: sessionStart)
            return try timing.firstFrame(capturedAtOrAfter: sessionEnd)
        } catch { throw .time(error) }
    }

    /// Stops the session: events already produced are still delivered by ``next()``, then
    /// nil (mirrors `AVCaptureSession.stopRunning()`).
    public func stopRunning() { finished = true }

    /// The next output event, or `nil` at the end of the stream.
    /// - Throws: ``CaptureError`` or the frame sources' errors.
    public func next() throws -> sending CaptureOutputEvent? {
        while outboxHead == (heldCompletions.first?.position ?? outbox.count) {
            if finished {
                // The stream ended before their frames: they stand as answered.
                heldCompletions.removeAll()
                guard outboxHead < outbox.count else { return nil }
                break
            }
            try produce()
        }
        let event = outbox[outboxHead].take()!
        outboxHead += 1
        if outboxHead == outbox.count, heldCompletions.isEmpty {
            outbox.removeAll(keepingCapacity: true)
            outboxHead = 0
        }
        return event.detached()
    }

    /// A pull-style iterator over this session's events (`while let e = try it.next()`).
    public func makeIterator() -> EventIterator { EventIterator(session: self) }

    /// Iterates a ``CaptureSession``'s output events; `next()` throws like the session's.
    public struct EventIterator {
        /// The session being iterated.
        public let session: CaptureSession
        /// The next event, or `nil` at the end. - Throws: as ``CaptureSession/next()``.
        public mutating func next() throws -> sending CaptureOutputEvent? { try session.next() }
    }

    // MARK: Producing

    /// The streaming device's next grid index and its session time.
    private func candidate() throws(CaptureError) -> (grid: Int64, time: MediaTime) {
        let grid = nextGrid[streaming]
        if let cached = nextFrameSessionTime, cached.device == streaming, cached.grid == grid { return (grid, cached.time) }
        guard let timing = device.frameTiming else { throw .notCapturing }
        do { return (grid, try timing.sessionTime(ofFrame: grid)) } catch { throw .time(error) }
    }

    /// Whether `event` happens before the frame `next`: its host time is at or before the
    /// frame's session time, or, compared in the streaming camera's device ticks (both sides
    /// rounded once by `convertTime`), at or before the frame's capture time: a request made
    /// at the very host time a frame is captured takes effect on that frame even where the
    /// frame's time converted back to the host clock rounds to just before it.
    private func isDue(_ event: Event, before next: (grid: Int64, time: MediaTime)) throws(CaptureError) -> Bool {
        if event.hostTime <= next.time { return true }
        guard let timing = device.frameTiming else { return false }
        do { return try convertTime(event.hostTime, from: .host, to: device.clock) <= (try timing.deviceTime(ofFrame: next.grid)) } catch { throw .time(error) }
    }

    /// Produces the events up to and including the next frame (or the end of the stream).
    private func produce() throws {
        try startRunning()
        var next = try candidate()
        while nextEvent < events.count, try isDue(events[nextEvent], before: next) {
            try apply(events[nextEvent])
            nextEvent += 1
            // A camera or format switch moves the next frame past its gap.
            next = try candidate()
        }
        collectRequests()
        guard next.time < sessionEnd else {
            // Completions due before a frame that is never captured do not arrive: the
            // recording ends first, and their segments say `announced: false`.
            try deliverAudio(before: nil)
            finished = true
            return
        }
        try deliverAudio(before: next.time)
        while let (completion, request) = completions.popDue(beforeFrame: deliveredFrameCount) {
            if case .dynamicAspectRatioChangeCompleted = completion, request.effectiveFrameIndex > deliveredFrameCount {
                heldCompletions.append((outbox.count, request))
            }
            outbox.append(completion)
        }
        try deliver(grid: next.grid, sessionTime: next.time)
        // Their frame was captured: the answers stand.
        while let held = heldCompletions.first, held.request.effectiveFrameIndex < deliveredFrameCount { heldCompletions.removeFirst() }
    }

    /// Turns the held completions that `isSuperseded` says never take effect into
    /// `superseded` ones, in their places (see ``heldCompletions``).
    private func supersedeHeld(where isSuperseded: (DynamicAspectRatioRequest) -> Bool) {
        guard !heldCompletions.isEmpty else { return }
        heldCompletions.removeAll { held in
            guard isSuperseded(held.request) else { return false }
            outbox[held.position] = .dynamicAspectRatioChangeSuperseded(DynamicAspectRatioSupersession(held.request))
            return true
        }
    }

    /// Queues the microphone's buffers whose timestamp is before `time` (nil: all that are left).
    private func deliverAudio(before time: MediaTime?) throws(CaptureError) {
        guard let microphone else { return }
        while let next = try microphone.nextBufferSessionTime(), time.map({ next < $0 }) ?? true {
            guard let buffer = try microphone.captureBuffer() else { return }
            outbox.append(.audioSampleBuffer(buffer))
        }
    }

    private func deliver(grid: Int64, sessionTime: MediaTime) throws {
        let device = self.device
        guard let timing = device.frameTiming else { throw CaptureError.notCapturing }
        let producer = isVirtual ? constituent(atFrame: grid) : streaming
        let deviceTime: MediaTime
        let nextSessionTime: MediaTime
        do {
            deviceTime = try timing.deviceTime(ofFrame: grid)
            nextSessionTime = try timing.sessionTime(ofFrame: grid + 1)
        } catch { throw CaptureError.time(error) }
        nextFrameSessionTime = (streaming, grid + 1, nextSessionTime)
        let index = deliveredFrameCount
        let stamp = CaptureSessionChange.Frame(index: index, sessionTime: sessionTime, deviceTime: deviceTime)
        if let last = lastDelivered {
            if last.device != streaming {
                outbox.append(.sessionEvent(.cameraSwitched(from: devices[last.device].uniqueID, to: device.uniqueID, frame: stamp)))
            } else if last.producer != producer {
                outbox.append(
                    .sessionEvent(
                        .constituentSwapped(camera: device.uniqueID, from: devices[last.producer].uniqueID, to: devices[producer].uniqueID, frame: stamp)))
            }
        }
        let facing = DirectionCoordinator.facing(of: device.deviceType, in: coordinator?.posture ?? .closed)
        let mirrored = mirrorMode.mirrors(facing)
        if let lastMirrored, lastMirrored != mirrored {
            outbox.append(.sessionEvent(.videoMirroredChanged(camera: device.uniqueID, from: lastMirrored, to: mirrored, frame: stamp)))
        }
        // One camera: the format names none and the stamp carries no camera code.
        let camera =
            routing == .fixed
            ? nil
            : VideoStreamFormat.Camera(
                id: device.uniqueID, facing: facing, constituent: devices[producer].uniqueID == device.uniqueID ? nil : devices[producer].uniqueID,
                isMirrored: mirrored)
        device.applyPendingZoom(beforeFrame: grid)
        if let zooming = output.frameSources[producer] as? ZoomingImageSource { zooming.videoZoomFactor = device.videoZoomFactor }
        let dimensions = device.dimensions(atFrame: grid)
        let frame = try output.frame(
            index: index, dimensions: dimensions, deviceTime: deviceTime, sessionTime: sessionTime, nextSessionTime: nextSessionTime, source: producer,
            producerPosition: camera == nil ? nil : producer, mirrored: mirrored)
        let angle = controls.rotationAngle(deviceType: device.deviceType, facing: facing)
        for change in controls.frameChanges(angle: angle, zoom: device.videoZoomFactor, device: device, frame: stamp) { outbox.append(.sessionEvent(change)) }
        let format = VideoStreamFormat(
            dimensions: dimensions, frameRate: device.frameRate, camera: camera, rotationAngle: angle, activeFormat: device.activeFormat.name,
            formatGeneration: formatGenerations[streaming])
        if format != announcedFormat {
            outbox.append(.formatChanged(format))
            announcedFormat = format
        }
        outbox.append(.frame(frame))
        lastDelivered = (streaming, producer)
        activationRatio = nil
        lastMirrored = mirrored
        deliveredFrameCount += 1
        nextGrid[streaming] = grid + 1
        device.didCapture(upTo: grid + 1, hostTime: sessionTime)
    }

    /// Applies every scheduled event at its time without producing pictures: the checks a
    /// recording meets at each event (a format the streaming camera lacks, a ratio the format
    /// in effect does not list, …) made before anything is recorded. Frames between events
    /// are counted as delivered, not drawn, so the cost grows with the events, not the
    /// frames. The session is used up: record with a new one.
    /// - Throws: ``CaptureEventError`` with the position in ``events`` of the event the
    ///   session rejects; ``device`` is then the camera streaming at that event, in its state then.
    func rehearse() throws(CaptureEventError) {
        do { try startRunning() } catch { throw CaptureEventError(eventIndex: nil, error: error) }
        for (i, event) in events.enumerated() {
            do {
                try skipFrames(before: event.hostTime)
                try apply(event)
            } catch { throw CaptureEventError(eventIndex: i, error: error) }
            outbox.removeAll(keepingCapacity: true)
        }
        finished = true
    }

    /// Counts as delivered the streaming device's frames whose session time is before `h`:
    /// those ``produce()`` delivers before it applies an event at host time `h` (< ``sessionEnd``).
    private func skipFrames(before h: MediaTime) throws(CaptureError) {
        let device = self.device
        guard let timing = device.frameTiming else { throw .notCapturing }
        let grid = nextGrid[streaming]
        do {
            let n = try timing.firstFrame(capturedAtOrAfter: h, minimumIndex: grid)
            guard n > grid else { return }
            let last = try timing.sessionTime(ofFrame: n - 1)
            deliveredFrameCount += n - grid
            nextGrid[streaming] = n
            nextFrameSessionTime = nil
            lastDelivered = (streaming, isVirtual ? constituent(atFrame: n - 1) : streaming)
            activationRatio = nil
            device.didCapture(upTo: n, hostTime: last)
        } catch { throw .time(error) }
    }

    /// The ratio in effect on the streaming camera now (what its buffers had; the grid's
    /// initial ratio before its first frame): pending requests do not count; a camera just
    /// switched to has the ratio it started with.
    var ratioInEffect: DynamicAspectRatio { activationRatio ?? device.ratioInEffect(beforeFrame: nextGrid[streaming]) }

    /// Virtual routing: the constituent whose picture frame `grid` shows.
    private func constituent(atFrame grid: Int64) -> Int { constituents.last { $0.frame <= grid }?.position ?? streaming }

    /// Moves requests the streaming device recorded into the completion queue, their frame
    /// indices translated to delivery sequence numbers (the device delivers its grid frames
    /// from `nextGrid` on as delivery numbers from `deliveredFrameCount` on).
    private func collectRequests() {
        let device = self.device
        let requests = device.requests
        let seen = requestsSeen[streaming]
        guard seen < requests.count else { return }
        let shift = deliveredFrameCount - nextGrid[streaming]
        for request in requests[seen...] {
            let queued =
                shift == 0
                ? request
                : DynamicAspectRatioRequest(
                    sequenceNumber: request.sequenceNumber, aspectRatio: request.aspectRatio, requestTime: request.requestTime,
                    requestFrameIndex: request.requestFrameIndex + shift, effectiveFrameIndex: request.effectiveFrameIndex + shift, change: request.change,
                    changesDimensions: request.changesDimensions)
            // A later request that takes a held completion's frame (or an earlier one) wins it.
            supersedeHeld { $0.effectiveFrameIndex >= queued.effectiveFrameIndex }
            completions.enqueue(queued, completionDelayFrames: device.completionDelayFrames)
        }
        requestsSeen[streaming] = requests.count
    }

    // MARK: Events

    /// Applies one scheduled event to the streaming device at its host time.
    private func apply(_ event: Event) throws(CaptureError) {
        let device = self.device
        let grid = nextGrid[streaming]
        switch event.action {
        case .setDynamicAspectRatio(let ratio): try setDynamicAspectRatio(ratio, at: event.hostTime)
        case .videoZoomFactor(let factor):
            device.didCapture(upTo: grid, hostTime: event.hostTime)
            controls.noteZoomCause("videoZoomFactor")
            try device.applyVideoZoomFactor(factor)
        case .peopleInFrame(let count):
            device.didCapture(upTo: grid, hostTime: event.hostTime)
            if try controls.observePeople(count, device: device) { return }
            // Neither active Center Stage nor a smart framing monitor: the count is only kept.
            guard let monitor = device.smartFramingMonitor else { return }
            try recommendFraming(monitor, peopleInFrame: count, at: event.hostTime)
        case .posture(let posture):
            guard routing != .fixed else {
                throw .invalidParameter(name: "posture", value: posture.rawValue, allowed: "posture events only with several cameras (scenario key cameras)")
            }
            try changePosture(to: posture, at: event.hostTime)
        case .deviceOrientation(let orientation):
            if let change = controls.setDeviceOrientation(orientation, at: event.hostTime) { outbox.append(.sessionEvent(change)) }
        case .centerStageEnabled(let enabled):
            device.didCapture(upTo: grid, hostTime: event.hostTime)
            for change in try controls.setCenterStageEnabled(enabled, at: event.hostTime, device: device) { outbox.append(.sessionEvent(change)) }
        case .depthDataDeliveryEnabled(let enabled):
            device.didCapture(upTo: grid, hostTime: event.hostTime)
            for change in try controls.setCaptureFeature(.depthDataDelivery, enabled: enabled, at: event.hostTime, device: device) {
                outbox.append(.sessionEvent(change))
            }
        case .geometricDistortionCorrectionEnabled(let enabled):
            device.didCapture(upTo: grid, hostTime: event.hostTime)
            for change in try controls.setCaptureFeature(.geometricDistortionCorrection, enabled: enabled, at: event.hostTime, device: device) {
                outbox.append(.sessionEvent(change))
            }
        case .userCenterStageEnabled(let enabled):
            device.didCapture(upTo: grid, hostTime: event.hostTime)
            for change in try controls.setCenterStageEnabledByUser(enabled, at: event.hostTime, device: device) { outbox.append(.sessionEvent(change)) }
        case .smartFraming(let action):
            if device.smartFramingMonitor == nil, action == .start { try makeSmartFramingFormatActive(at: event.hostTime) }
            // Stopping a monitor the format does not have stops nothing.
            let device = self.device  // the reconfigured camera after a switch to 4032
            guard let monitor = device.smartFramingMonitor else { return }
            if action == .start { monitor.enableSupportedFramingsUnlessChosen() }
            if monitor.perform(action) {
                outbox.append(.sessionEvent(.smartFramingMonitoringChanged(camera: device.uniqueID, action: action, at: event.hostTime)))
                // Started with people already in frame: the monitor recommends for them at once.
                if action == .start, let count = controls.peopleInFrame {
                    device.didCapture(upTo: grid, hostTime: event.hostTime)
                    try recommendFraming(monitor, peopleInFrame: count, at: event.hostTime)
                }
            }
        case .apply(let ratio): try applyRatio(ratio, at: event.hostTime)
        case .activeFormat(let name): try switchActiveFormat(to: name, at: event.hostTime)
        }
    }

    /// `setDynamicAspectRatio` on the streaming device at host time `s` (the back camera: see the type's documentation).
    private func setDynamicAspectRatio(_ ratio: DynamicAspectRatio, at s: MediaTime) throws(CaptureError) {
        do {
            try device.submitDynamicAspectRatio(ratio, atSessionTime: s)
            appRatio = ratio
            collectRequests()
        } catch .dynamicAspectRatioUnsupported(let camera, let type) {
            if device.deviceType == .builtInWideAngleCamera {
                // The seeds' fallback: an earlier front camera has no Center Stage format at all.
                requestFailed(
                    ratio, at: s,
                    "failed unsupportedDevice: camera \(camera) (\(type)) is an earlier front camera without dynamic aspect ratio or Center Stage; the app's fallback path records at its fixed size"
                )
            } else {
                requestFailed(
                    ratio, at: s, "failed unsupported: camera \(camera) (\(type)) has no dynamic aspect ratio; the recording goes on at its fixed size")
            }
        } catch .unsupportedRatio(_, let side, let supported) {
            // The app catches the throw (the seeds' `FramingError.unsupportedRatio`) and goes on.
            requestFailed(
                ratio, at: s,
                "failed unsupportedRatio: format \(side) of camera \(device.uniqueID) lists \(supported.map(\.rawValue).joined(separator: ", ")); the recording goes on with the ratio in effect"
            )
        } catch { throw error }
    }

    /// A request that threw at host time `s`: a warning and an `aspectRatioRequestFailed`
    /// event saying why; nothing else changes.
    private func requestFailed(_ ratio: DynamicAspectRatio, at s: MediaTime, _ why: String) {
        let message = "setDynamicAspectRatio(\(ratio.rawValue)) at session time \(s) " + why
        outbox.append(.warning(message))
        outbox.append(.sessionEvent(.dynamicAspectRatioRequestFailed(ratio, camera: device.uniqueID, at: s, message: message)))
    }

    /// Lets a running smart framing monitor see `count` people at host time `s`; each
    /// recommendation is logged (`smartFramingRecommended`, its message saying what the app
    /// did) and, where ``CameraControlState/smartFramingPolicy`` applies it and the camera
    /// does not show that framing already, applied as Apple advises: the aspect ratio first
    /// (a request with its latency), then the zoom.
    private func recommendFraming(_ monitor: SmartFramingMonitor, peopleInFrame count: Int, at s: MediaTime) throws(CaptureError) {
        let previous = monitor.recommendedFraming
        guard let framing = try monitor.observe(peopleInFrame: count) else { return }
        let shown = device.dynamicAspectRatio == framing.aspectRatio && device.latestVideoZoomFactor == framing.zoomFactor
        let outcome: CaptureSessionChange.SmartFramingOutcome =
            !controls.smartFramingPolicy.applies(framing) ? .ignored(controls.smartFramingPolicy) : shown ? .alreadyInEffect : .applied
        outbox.append(
            .sessionEvent(.smartFramingRecommended(camera: device.uniqueID, from: previous, to: framing, peopleInFrame: count, outcome: outcome, at: s)))
        guard outcome == .applied else { return }
        let request = try device.submitDynamicAspectRatio(framing.aspectRatio, atSessionTime: s)
        controls.noteZoomCause("smart framing \(framing.name), on the first frame of \(framing.aspectRatio.rawValue)")
        // The seeds' code awaits `setDynamicAspectRatio` before it sets `videoZoomFactor`:
        // the zoom lands on the request's first frame, never on the old ratio.
        try device.setVideoZoomFactor(framing.zoomFactor, fromFrame: request.effectiveFrameIndex)
    }

    /// What a `peopleInFrame` count may be, and what it drives.
    public static let peopleInFrameAllowed =
        "a number of people ≥ 0 (any format, any time: it drives Center Stage's zoom "
        + "where Center Stage is active and smart framing's recommendations where smart framing runs)"

    /// ``Action/apply(_:)`` on the streaming camera; on the back camera it fails like a request.
    private func applyRatio(_ ratio: DynamicAspectRatio, at s: MediaTime) throws(CaptureError) {
        let device = self.device
        if device.activeFormat.supportedDynamicAspectRatios.contains(ratio) || device.activeFormat.fixedDimensions != nil {
            return try setDynamicAspectRatio(ratio, at: s)
        }
        guard !isVirtual else {
            throw .invalidParameter(
                name: "apply", value: ratio.rawValue, allowed: "a ratio the Virtual Front Camera's format lists (use individual cameras to switch formats)")
        }
        let selection: ActiveFormatSelection<CaptureDevice.Format>
        do {
            selection = try ActiveFormatSelection.apply(
                ratio, formats: device.formats, activeFormat: device.activeFormat, currentAspectRatio: ratioInEffect, currentFrameRate: device.frameRate,
                preferredFrameRate: preferredFrameRates[streaming])
        } catch { throw .invalidParameter(name: "apply", value: ratio.rawValue, allowed: "\(error)") }
        appRatio = ratio
        try switchFormat(to: selection, at: s, because: "apply(\(ratio.rawValue))")
    }

    /// The seeds' `start()` on a format without smart framing: it makes the camera's smart
    /// framing format (4032) active first, a reconfiguration like `activeFormat`, keeping
    /// the ratio in effect where that format lists it, else the ratio of the same
    /// orientation it has (3x4 for portrait and square, 4x3 for landscape).
    /// - Throws: ``CaptureError/smartFramingUnsupported(formatSide:)`` when no format of the
    ///   camera has smart framing (the iPhone Duo cameras, the back camera).
    private func makeSmartFramingFormatActive(at s: MediaTime) throws(CaptureError) {
        let device = self.device
        guard !isVirtual, let target = device.formats.first(where: \.isSmartFramingSupported) else {
            throw .smartFramingUnsupported(formatSide: device.activeFormat.squareSide)
        }
        let current = ratioInEffect
        let ratios = target.supportedDynamicAspectRatios
        let start =
            ratios.contains(current)
            ? current
            : current == .ratio16x9 || current == .ratio4x3 ? (ratios.first { $0 == .ratio4x3 } ?? ratios[0]) : (ratios.first { $0 == .ratio3x4 } ?? ratios[0])
        let selection: ActiveFormatSelection<CaptureDevice.Format>
        do {
            selection = try ActiveFormatSelection.switchFormat(
                to: target.name, formats: device.formats, activeFormat: device.activeFormat, currentAspectRatio: current, currentFrameRate: device.frameRate,
                preferredFrameRate: preferredFrameRates[streaming], startRatio: start)
        } catch { throw .invalidParameter(name: "smartFraming", value: "start", allowed: "\(error)") }
        try switchFormat(
            to: selection, at: s,
            because: "smartFraming start (the smart framing format first, as the seeds' start()"
                + (start == current ? ")" : "; it lists no \(current.rawValue))"))
        appRatio = start
    }

    /// `{"activeFormat": name}` on the streaming camera.
    private func switchActiveFormat(to name: String, at s: MediaTime) throws(CaptureError) {
        let device = self.device
        guard !isVirtual else {
            throw .invalidParameter(name: "activeFormat", value: name, allowed: "no format switch on the Virtual Front Camera (use individual cameras)")
        }
        let selection: ActiveFormatSelection<CaptureDevice.Format>
        if device.activeFormat.fixedDimensions != nil {
            // The back camera's fixed-size formats: no ratio to keep, only size and rate.
            guard let index = device.formats.firstIndex(where: { $0.name == name }), let size = device.formats[index].fixedDimensions else {
                throw .invalidParameter(
                    name: "activeFormat", value: name, allowed: "camera \(device.uniqueID): " + device.formats.map(\.name).joined(separator: ", "))
            }
            let format = device.formats[index]
            let rate = ActiveFormatSelection<CaptureDevice.Format>.clamped(preferredFrameRates[streaming], to: format.maxFrameRate)
            selection = ActiveFormatSelection(
                format: format, formatIndex: index, aspectRatio: ratioInEffect, dimensions: size, frameRate: rate, formatChanged: format != device.activeFormat,
                aspectRatioChanged: false, dimensionsChanged: size != device.activeFormat.fixedDimensions, frameRateChanged: rate != device.frameRate)
        } else {
            do {
                selection = try ActiveFormatSelection.switchFormat(
                    to: name, formats: device.formats, activeFormat: device.activeFormat, currentAspectRatio: ratioInEffect, currentFrameRate: device.frameRate,
                    preferredFrameRate: preferredFrameRates[streaming])
            } catch {
                throw .invalidParameter(name: "activeFormat", value: name, allowed: (routing == .fixed ? "" : "camera \(device.uniqueID): ") + "\(error)")
            }
        }
        guard selection.formatChanged else { return }
        try switchFormat(to: selection, at: s, because: "activeFormat \(name)")
        // Requests pending at the switch were superseded: the app's ratio is the one kept.
        if selection.format.fixedDimensions == nil { appRatio = selection.aspectRatio }
    }

    /// Reconfigures the streaming camera to `selection` at host time `s` as the type's documentation
    /// says; Center Stage's zoom follows its active state there; `activeFormatChanged` names its first frame.
    private func switchFormat(to selection: ActiveFormatSelection<CaptureDevice.Format>, at s: MediaTime, because cause: String) throws(CaptureError) {
        collectRequests()
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: deliveredFrameCount).map(Optional.some))
        supersedeHeld { $0.effectiveFrameIndex >= self.deliveredFrameCount }
        let start: MediaTime
        do { start = try s.adding(controls.switchGap) } catch { throw .time(error) }
        let old = device
        let new = try old.reconfigured(
            format: selection.format, frameRate: selection.frameRate, aspectRatio: selection.aspectRatio, capturingFrom: start, switchedAt: s)
        try controls.formatDidChange(from: old, to: new)
        if old.activeVideoStabilizationMode != new.activeVideoStabilizationMode, let preferred = new.preferredVideoStabilizationMode {
            let why =
                new.activeVideoStabilizationMode == preferred
                ? "format \(new.activeFormat.name) supports the preferred \(preferred.rawValue) again"
                : "format \(new.activeFormat.name) does not support the preferred \(preferred.rawValue): the connection stabilizes with off"
            outbox.append(
                .sessionEvent(
                    .activeVideoStabilizationModeChanged(
                        camera: new.uniqueID, from: old.activeVideoStabilizationMode, to: new.activeVideoStabilizationMode, at: start,
                        reason: why + (new.changeLatencyFollowsStabilization ? "; change latency \(new.changeLatencyFrames) frames" : ""))))
        }
        devices[streaming] = new
        activationRatio = nil
        nextGrid[streaming] = 0
        requestsSeen[streaming] = 0
        formatGenerations[streaming] += 1
        nextFrameSessionTime = nil
        guard let timing = new.frameTiming else { throw .notCapturing }
        let first: CaptureSessionChange.Frame
        do { first = .init(index: deliveredFrameCount, sessionTime: try timing.sessionTime(ofFrame: 0), deviceTime: try timing.deviceTime(ofFrame: 0)) } catch {
            throw .time(error)
        }
        outbox.append(
            .sessionEvent(
                .activeFormatChanged(
                    camera: new.uniqueID, from: .init(name: old.activeFormat.name, frameRate: old.frameRate),
                    to: .init(name: new.activeFormat.name, frameRate: new.frameRate), frame: first,
                    reason:
                        "\(cause) at session time \(s): \(selection.dimensions) \(selection.aspectRatio.rawValue) after a \(controls.switchGap) reconfiguration gap"
                        + (selection.startsSegment ? "; new segment (formatChanged)" : "; same dimensions and rate: no new segment"))))
    }

    /// A posture event at host time `s`: `postureChanged` and `facingChanged` records, then
    /// the Virtual Front Camera's constituent swap or the switch to the camera the posture
    /// selects (see the type's documentation).
    private func changePosture(to posture: DevicePosture, at s: MediaTime) throws(CaptureError) {
        guard let coordinator else { return }
        let before = Dictionary(uniqueKeysWithValues: cameras.map { ($0.uniqueID, coordinator.facing(of: $0)) })
        let old = coordinator.posture
        guard let change = coordinator.update(posture: posture) else { return }
        outbox.append(.sessionEvent(.postureChanged(from: old, to: posture, at: s)))
        for (descriptor, facing) in change.facings where before[descriptor.uniqueID] != facing {
            outbox.append(.sessionEvent(.facingChanged(camera: descriptor.uniqueID, from: before[descriptor.uniqueID], to: facing, at: s)))
        }
        if isVirtual {
            let virtual = device
            guard let target = coordinator.virtualConstituent(in: posture)?.stampPosition, target != constituents.last?.position,
                let timing = virtual.frameTiming
            else { return }
            do {
                let threshold = try convertTime(s, from: .host, to: virtual.clock)
                let k = try timing.firstFrame(atOrAfter: threshold, plusFramePeriods: virtual.changeLatencyFrames, minimumIndex: deliveredFrameCount)
                constituents.removeAll { $0.frame >= k }
                if constituents.last?.position != target { constituents.append((k, target)) }
            } catch { throw .time(error) }
            return
        }
        guard let b = change.preferredCamera?.stampPosition, b != streaming else { return }
        // Requests not in effect on the old camera never will be.
        collectRequests()
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: deliveredFrameCount).map(Optional.some))
        supersedeHeld { $0.effectiveFrameIndex >= self.deliveredFrameCount }
        devices[streaming].didCapture(upTo: nextGrid[streaming], hostTime: s)
        let device = devices[b]
        guard let timing = device.frameTiming else { throw .notCapturing }
        let first: Int64
        do {
            let threshold = try convertTime(try s.adding(controls.switchGap), from: .host, to: device.clock)
            first = try timing.firstFrame(atOrAfter: threshold, minimumIndex: max(device.nextFrameIndex, nextGrid[b]))
        } catch { throw .time(error) }
        device.carryOver(appRatio, fromFrame: first)
        try controls.cameraDidSwitch(from: devices[streaming], to: device)
        activationRatio = device.aspectRatio(atFrame: first)
        device.didCapture(upTo: first, hostTime: s)
        // Requests the new camera took earlier are already queued; count them as seen.
        requestsSeen[b] = device.requests.count
        nextGrid[b] = first
        streaming = b
        nextFrameSessionTime = nil
    }
}
