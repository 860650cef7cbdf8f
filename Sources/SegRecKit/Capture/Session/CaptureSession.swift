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
/// event whose host time is ≤ the frame's session time (a ratio request, or a Virtual Front
/// Camera posture, also when its host time converts to the frame's very device tick: the
/// request tie rule of Docs/DESIGN.md); events after the last frame are applied at the end. Completions of `setDynamicAspectRatio` requests are placed just before
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
package final class CaptureSession {
    /// Which camera the session streams from (Docs/cameras.md).
    package enum Routing: Sendable, Hashable {
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
    package var synchronizationClock: MediaClock? { isRunning ? .host : nil }
    /// How the streaming camera is chosen.
    package let routing: Routing
    /// The physical cameras as descriptors, in order (their position is the stamp's camera code).
    package let cameras: [CaptureDeviceDescriptor]
    /// The devices: the physical cameras in ``cameras`` order, then the Virtual Front Camera
    /// with ``Routing/virtualFrontCamera(initialPosture:)`` (a camera reconfigured to another
    /// format is replaced).
    package internal(set) var devices: [CaptureDevice]
    /// Orientation, Center Stage and the last frame's angle and zoom.
    package internal(set) var controls: CameraControlState
    /// The video data output (one picture source per physical camera).
    package let output: VideoDataOutput
    /// Posture → facing and preferred camera; `nil` with ``Routing/fixed``.
    package let coordinator: DirectionCoordinator?
    /// Host time the session starts at (frame 0's capture instant), nanoseconds.
    package let sessionStart: MediaTime
    /// How long the source runs, nanoseconds.
    package let duration: MediaTime
    /// `sessionStart + duration`: frames at or after it are not delivered.
    package let sessionEnd: MediaTime
    /// Scheduled events, in time order.
    package let events: [Event]
    /// Whether buffers are mirrored (`isVideoMirrored`): `auto` while the streaming camera faces the user.
    package let mirrorMode: MirrorMode
    /// The microphone (an audio data output beside the video one), or nil for a silent
    /// session. Its buffers ride the same stream, before each frame those captured before
    /// it (by session time), and after the last frame the rest up to ``sessionEnd``.
    package let microphone: AudioCaptureDevice?

    /// Every rate a frame of this session can be captured at: each camera's rate as asked,
    /// clamped to each of its formats' `maxFrameRate` (what an `activeFormat` switch or a
    /// camera switch can bring), without repeats.
    package var captureFrameRates: [FrameRate] {
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

    /// The app's views on the two displays, each with its own direction coordinator
    /// (``viewCoordinators``), or nil: one implicit view whose display the posture says.
    /// Set before the session runs (``setViews(_:)``).
    package internal(set) var views: AppViews?
    /// One direction coordinator per view of ``views``, each reporting facing relative to
    /// its own view; the driving view's posture is also ``coordinator``'s.
    package internal(set) var viewCoordinators: [DirectionCoordinator] = []

    /// Whether the session has started (the first ``next()`` starts it).
    package private(set) var isRunning = false
    /// Frames delivered so far.
    package internal(set) var deliveredFrameCount: Int64 = 0

    // The routing state the extensions (producing, actions, format and camera switching) share.

    /// Position in ``devices`` of the device frames come from.
    var streaming: Int
    /// Next grid index of each device.
    var nextGrid: [Int64]
    /// Requests of each device already moved to the completion queue.
    var requestsSeen: [Int]
    /// Format switches per device (``VideoStreamFormat/formatGeneration``).
    var formatGenerations: [Int]
    /// The format last announced in the event stream (``CaptureOutputEvent/formatChanged(_:)``).
    var announcedFormat: VideoStreamFormat?
    /// Each device's rate as asked at start (kept across format switches where the format allows it).
    let preferredFrameRates: [FrameRate]
    /// Virtual routing: constituent position from each grid index on (ascending).
    var constituents: [(frame: Int64, position: Int)] = []
    /// The ratio last set on a square camera (the app's choice), carried to a camera switched to.
    var appRatio: DynamicAspectRatio
    /// The ratio a camera switched to starts with (the carried-over app ratio), until it
    /// delivers a frame: its ratio in effect before then.
    var activationRatio: DynamicAspectRatio?
    /// The device and picture source of the last frame delivered (or skipped by a rehearsal).
    var lastDelivered: (device: Int, producer: Int)?
    /// Whether the last frame was mirrored.
    var lastMirrored: Bool?
    /// Session time of the streaming device's grid frame `grid`, already computed as the
    /// previous frame's end.
    var nextFrameSessionTime: (device: Int, grid: Int64, time: MediaTime)?
    /// Position in ``events`` of the next scheduled event to apply.
    var nextEvent = 0
    /// `setDynamicAspectRatio` completions waiting for their place in the stream.
    var completions = CompletionQueue()
    /// Events produced and not yet delivered, with the completions held back.
    var outbox = CaptureEventOutbox()
    /// Whether the stream has ended (the last frame produced, or ``stopRunning()``).
    var finished = false
    /// ``VideoStreamFormat/carriedRatioChanges`` announced so far.
    var carriedRatioChanges = 0
    /// A camera switched to, until its first frame: its device, the grid frame the app's ratio
    /// was carried over to, and the device's request count then (a request made later that
    /// takes the frame makes a size change there its own).
    var pendingCarry: (device: Int, frame: Int64, requests: Int)?
    /// The `activeFormatChanged` event queued at the last format switch, until its first
    /// frame: its outbox position, device, format generation, cause, host time, the ratio the
    /// format started with (nil: fixed size) and whether the rate changed.
    var pendingFormatAnnouncement: (position: Int, device: Int, generation: Int, cause: String, at: MediaTime, ratio: DynamicAspectRatio?, rateChanged: Bool)?

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
    package init(
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
    package convenience init(
        device: CaptureDevice, output: VideoDataOutput = VideoDataOutput(), sessionStart: MediaTime, duration: MediaTime, events: [Event] = [],
        controls: CameraControlState = CameraControlState()
    ) throws(CaptureError) {
        try self.init(devices: [device], output: output, sessionStart: sessionStart, duration: duration, events: events, controls: controls)
    }

    /// The device frames come from: the one camera, the streaming individual camera, or the
    /// Virtual Front Camera (a camera reconfigured to another format is replaced).
    package var device: CaptureDevice { devices[streaming] }

    /// Whether the Virtual Front Camera streams.
    var isVirtual: Bool {
        if case .virtualFrontCamera = routing { return true }
        return false
    }

    /// Starts the devices (frame 0 at ``sessionStart``). Called by the first ``next()``.
    /// - Throws: ``CaptureError/time(_:)``.
    package func startRunning() throws(CaptureError) {
        guard !isRunning else { return }
        for device in devices { try device.startCapture(sessionStart: sessionStart) }
        try microphone?.startCapture(sessionStart: sessionStart, sessionEnd: sessionEnd)
        isRunning = true
    }

    /// The number of frames the streaming camera's grid has before ``sessionEnd``: the
    /// frames a session that never switches cameras or formats delivers.
    /// - Throws: ``CaptureError/time(_:)``.
    package func frameCount() throws(CaptureError) -> Int64 {
        do {
            let timing = try FrameTiming(deviceClock: device.clock, frameRate: device.frameRate, sessionStart: sessionStart)
            return try timing.firstFrame(capturedAtOrAfter: sessionEnd)
        } catch { throw .time(error) }
    }

    /// Stops the session: events already produced are still delivered by ``next()``, then
    /// nil (mirrors `AVCaptureSession.stopRunning()`).
    package func stopRunning() { finished = true }

    /// The next output event, or `nil` at the end of the stream.
    /// - Throws: ``CaptureError`` or the frame sources' errors.
    package func next() throws -> sending CaptureOutputEvent? {
        while !outbox.hasDeliverable {
            if finished {
                // The stream ended before their frames: they stand as answered.
                outbox.releaseAllHeld()
                guard outbox.hasDeliverable else { return nil }
                break
            }
            try produce()
        }
        return outbox.takeNext().detached()
    }

    /// A pull-style iterator over this session's events (`while let e = try it.next()`).
    package func makeIterator() -> EventIterator { EventIterator(session: self) }

    /// Iterates a ``CaptureSession``'s output events; `next()` throws like the session's.
    package struct EventIterator {
        /// The session being iterated.
        package let session: CaptureSession
        /// The next event, or `nil` at the end. - Throws: as ``CaptureSession/next()``.
        package mutating func next() throws -> sending CaptureOutputEvent? { try session.next() }
    }

}
