/// The analog of `AVCaptureSession` with one ``CaptureDevice`` input and one
/// ``VideoDataOutput``, run deterministically as a pull-style stream of
/// ``CaptureOutputEvent``s.
///
/// ## What it delivers
/// Frames `0, 1, 2, …` while the frame's session timestamp is before
/// `sessionStart + duration` (DESIGN.md, "Time and clocks"). Before frame `i` it applies,
/// in time order, every scheduled event whose host time is ≤ frame `i`'s session time;
/// events after the last frame are applied at the end. Completions of
/// `setDynamicAspectRatio` requests are placed just before frame
/// `k + completionDelayFrames`, never before the first frame at/after the request and in
/// FIFO order; completions due after the last frame come at the end of the stream. A
/// request that a later one overrides on its own frame completes `superseded`
/// (``CaptureOutputEvent/dynamicAspectRatioChangeSuperseded(_:)``).
///
/// ## Use
/// ```swift
/// let session = try CaptureSession(scenario: scenario)
/// var events = session.makeIterator()
/// while let event = try events.next() { … }
/// ```
/// A session runs once: after its last event, ``next()`` returns `nil`.
///
/// ## Orientation, formats and stabilization (DESIGN.md)
/// Every frame carries the capture angle in effect (``CameraControlState/rotationAngle(deviceType:facing:)``:
/// the front camera is portrait-mounted and faces the user) and its active format; a
/// `deviceOrientation` event applies from the first frame at or after it. An `apply` that
/// needs another format, or an `activeFormat` event, reconfigures the camera: frames stop at
/// the event time `s`, requests not yet in effect complete `superseded` (the new format starts
/// with the ratio in effect at `s`, what the last frame had, or an `apply`'s own), and the new format's
/// grid is anchored at `D0' = ⌈convertTime(s + switchGap, host → device)⌉` (its first frame is
/// the first device tick at or after the gap end; frame *j* of it at `D0' + round(j · ts / fps')`).
/// Frame indices (the stamp) keep counting across the switch. The device's
/// `videoZoomFactor` is drawn into the picture when the source is a ``ZoomingImageSource``.
///
/// Concurrency: a non-`Sendable` class driven by one task (the consumer pulling events);
/// the device, monitor, output and source are owned by it and never shared.
public final class CaptureSession {
    /// The clock sample times are expressed on: the host clock (nanoseconds).
    public let synchronizationClock: MediaClock = .host
    /// The camera (replaced by a reconfigured one at an active-format switch).
    public private(set) var device: CaptureDevice
    /// Orientation, Center Stage and the last frame's angle and zoom.
    public private(set) var controls: CameraControlState
    /// The video data output.
    public let output: VideoDataOutput
    /// Host time the session starts at (frame 0's capture instant), nanoseconds.
    public let sessionStart: MediaTime
    /// How long the source runs, nanoseconds.
    public let duration: MediaTime
    /// `sessionStart + duration`: frames at or after it are not delivered.
    public let sessionEnd: MediaTime
    /// Scheduled events, in time order.
    public let events: [Event]

    /// Whether the session has started (the first ``next()`` starts it).
    public private(set) var isRunning = false
    /// Frames delivered so far.
    public private(set) var deliveredFrameCount: Int64 = 0

    private var timing: FrameTiming?
    private var nextFrame: Int64 = 0
    /// Delivery index of the current device's grid frame 0 (non-zero after a format switch).
    private var gridBase: Int64 = 0
    /// Format switches so far (the frames' ``CaptureFormatTag/generation``).
    private var formatGeneration = 0
    private var nextEvent = 0
    /// Session time of frame `nextFrame`, already computed as the previous frame's end.
    private var nextFrameSessionTime: (frame: Int64, time: MediaTime)?
    private var requestsSeen = 0
    private var completions = CompletionQueue()
    private var outbox: [CaptureOutputEvent] = []
    private var outboxHead = 0
    private var finished = false

    /// Creates a session.
    /// - Parameters:
    ///   - sessionStart: host time of frame 0 (any timescale; kept at nanoseconds).
    ///   - duration: > 0.
    ///   - events: in non-decreasing time order, each in `sessionStart ..< sessionStart + duration`.
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` for a bad duration or
    ///   event time; ``CaptureError/unsupportedRatio(_:formatSide:supported:)`` for a ratio
    ///   the format lacks; ``CaptureError/smartFramingUnsupported(formatSide:)`` for people
    ///   counts without a monitor; ``CaptureError/zoomFactorOutOfRange(_:minimum:maximum:)``;
    ///   ``CaptureError/time(_:)``.
    ///   - controls: initial orientation, Center Stage state and the format-switch gap
    ///     (default: portrait, iOS's Center Stage defaults, 0.25 s).
    public init(device: CaptureDevice, output: VideoDataOutput = VideoDataOutput(),
                sessionStart: MediaTime, duration: MediaTime, events: [Event] = [],
                controls: CameraControlState = CameraControlState()) throws(CaptureError) {
        let ns = MediaClock.host.timescale
        do {
            self.sessionStart = try sessionStart.converted(toTimescale: ns)
            self.duration = try duration.converted(toTimescale: ns)
            self.sessionEnd = try self.sessionStart.adding(self.duration)
        } catch { throw .time(error) }
        guard duration > .zero else {
            throw .invalidParameter(name: "duration", value: "\(duration)", allowed: "> 0")
        }
        var previous = sessionStart
        var format = device.activeFormat  // follows apply / activeFormat switches
        for (i, event) in events.enumerated() {
            guard event.hostTime >= previous, event.hostTime < sessionEnd else {
                throw .invalidParameter(name: "events[\(i)] host time", value: "\(event.hostTime)",
                                        allowed: "non-decreasing, in [\(sessionStart), \(sessionEnd))")
            }
            previous = event.hostTime
            switch event.action {
            case .setDynamicAspectRatio(let ratio): try format.validate(ratio)
            case .videoZoomFactor(let factor):
                try CaptureDevice.validateVideoZoomFactor(factor)
            case .peopleInFrame(let count):
                // A fact about the scene, on any format at any time: it drives active Center
                // Stage's zoom and running smart framing, and is only remembered otherwise.
                guard count >= 0 else {
                    throw .invalidParameter(name: "peopleInFrame", value: "\(count)", allowed: Self.peopleInFrameAllowed)
                }
            case .posture(let posture):
                throw .invalidParameter(name: "events[\(i)].posture", value: posture.rawValue,
                                        allowed: "posture events only with several cameras (scenario key cameras)")
            case .deviceOrientation, .centerStageEnabled:
                break
            case .apply(let ratio):
                if !format.supportedDynamicAspectRatios.contains(ratio),
                   let first = device.formats.first(where: { $0.supportedDynamicAspectRatios.contains(ratio) }) {
                    format = first
                }
                guard device.formats.contains(where: { $0.supportedDynamicAspectRatios.contains(ratio) }) else {
                    throw .invalidParameter(name: "events[\(i)].apply", value: ratio.rawValue,
                                            allowed: Set(device.formats.flatMap(\.supportedDynamicAspectRatios)).map(\.rawValue).sorted().joined(separator: ", "))
                }
            case .activeFormat(let name):
                format = device.formats.first { $0.name == name } ?? format
                guard device.formats.contains(where: { $0.name == name }) else {
                    throw .invalidParameter(name: "events[\(i)].activeFormat", value: name,
                                            allowed: device.formats.map(\.name).joined(separator: ", "))
                }
            case .smartFraming:
                guard device.smartFramingMonitor != nil else {
                    throw .smartFramingUnsupported(formatSide: device.activeFormat.squareSide)
                }
            }
        }
        self.device = device
        self.controls = controls
        self.preferredFrameRate = device.frameRate
        self.output = output
        self.events = events
    }

    /// Starts the device (frame 0 at ``sessionStart``). Called by the first ``next()``.
    /// - Throws: ``CaptureError/time(_:)``.
    public func startRunning() throws(CaptureError) {
        guard !isRunning else { return }
        try device.startCapture(sessionStart: sessionStart)
        timing = device.frameTiming
        isRunning = true
    }

    /// The number of frames the session delivers: the frames whose session timestamp is
    /// before ``sessionEnd``. - Throws: ``CaptureError/time(_:)``.
    public func frameCount() throws(CaptureError) -> Int64 {
        do {
            let timing = try FrameTiming(deviceClock: device.clock, frameRate: device.frameRate,
                                         sessionStart: sessionStart)
            return try timing.firstFrame(capturedAtOrAfter: sessionEnd)
        } catch { throw .time(error) }
    }

    /// Stops the session: events already produced are still delivered by ``next()``, then
    /// nil (mirrors `AVCaptureSession.stopRunning()`).
    public func stopRunning() {
        finished = true
    }

    /// The next output event, or `nil` at the end of the stream.
    /// - Throws: ``CaptureError`` or the frame source's errors.
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

    /// A pull-style iterator over this session's events (`while let e = try it.next()`).
    public func makeIterator() -> EventIterator { EventIterator(session: self) }

    /// Iterates a ``CaptureSession``'s output events; `next()` throws like the session's.
    public struct EventIterator {
        /// The session being iterated.
        public let session: CaptureSession
        /// The next event, or `nil` at the end. - Throws: as ``CaptureSession/next()``.
        public mutating func next() throws -> CaptureOutputEvent? { try session.next() }
    }

    /// Produces the events up to and including the next frame (or the end of the stream).
    private func produce() throws {
        try startRunning()
        guard timing != nil else { throw CaptureError.notCapturing }
        var sessionTime = try candidateSessionTime()
        guard sessionTime < sessionEnd else {
            while nextEvent < events.count { try apply(events[nextEvent]); nextEvent += 1 }
            collectRequests()
            while let completion = completions.pop() { outbox.append(completion) }
            finished = true
            return
        }
        while nextEvent < events.count, events[nextEvent].hostTime <= sessionTime {
            try apply(events[nextEvent])
            nextEvent += 1
            // A format switch moves the next frame past the reconfiguration gap.
            sessionTime = try candidateSessionTime()
        }
        guard sessionTime < sessionEnd, let timing else {
            // The switch's gap ran past the end: the session ends with the frames before it.
            while nextEvent < events.count { try apply(events[nextEvent]); nextEvent += 1 }
            collectRequests()
            while let completion = completions.pop() { outbox.append(completion) }
            finished = true
            return
        }
        collectRequests()
        while let completion = completions.popDue(beforeFrame: nextFrame) { outbox.append(completion) }
        let grid = nextFrame - gridBase
        var frame: VideoFrame
        do {
            let deviceTime = try timing.deviceTime(ofFrame: grid)
            let nextSessionTime = try timing.sessionTime(ofFrame: grid + 1)
            nextFrameSessionTime = (nextFrame + 1, nextSessionTime)
            if let zooming = output.frameSource as? ZoomingImageSource { zooming.videoZoomFactor = device.videoZoomFactor }
            frame = try output.frame(index: nextFrame, dimensions: device.dimensions(atFrame: grid),
                                     deviceTime: deviceTime, sessionTime: sessionTime,
                                     nextSessionTime: nextSessionTime)
        } catch let error as MediaTimeError { throw CaptureError.time(error) }
        let angle = controls.rotationAngle(deviceType: device.deviceType)
        frame.rotationAngle = angle
        frame.captureFormat = CaptureFormatTag(camera: device.uniqueID, format: device.activeFormat.name,
                                               frameRate: device.frameRate, generation: formatGeneration)
        for record in controls.frameRecords(angle: angle, zoom: device.videoZoomFactor, device: device, frameIndex: nextFrame,
                                            sessionTime: sessionTime, deviceTime: frame.deviceTime) {
            outbox.append(.sessionEvent(record))
        }
        outbox.append(.frame(frame))
        nextFrame += 1
        deliveredFrameCount += 1
        device.didCapture(upTo: grid + 1, hostTime: sessionTime)
    }

    /// Applies every scheduled event at its time without producing pictures: the checks a
    /// recording meets at each event (a format the camera lacks, a ratio the format in
    /// effect does not list, …) made before anything is recorded. Frames between events are
    /// counted as delivered, not drawn, so the cost grows with the events, not the frames.
    /// The session is used up: record with a new one.
    /// - Throws: ``CaptureEventError`` with the position in ``events`` of the event the
    ///   session rejects; the session's state (``device``) is then the one at that event.
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

    /// Counts as delivered the frames of the current grid whose session time is before `h`:
    /// those ``produce()`` delivers before it applies an event at host time `h` (< ``sessionEnd``).
    private func skipFrames(before h: MediaTime) throws(CaptureError) {
        guard let timing else { throw .notCapturing }
        let grid = nextFrame - gridBase
        do {
            let n = try timing.firstFrame(capturedAtOrAfter: h, minimumIndex: grid)
            guard n > grid else { return }
            let last = try timing.sessionTime(ofFrame: n - 1)
            nextFrame += n - grid
            deliveredFrameCount += n - grid
            nextFrameSessionTime = nil
            device.didCapture(upTo: n, hostTime: last)
        } catch { throw .time(error) }
    }

    /// Session time of the next frame (delivery index `nextFrame`) on the current device's grid.
    private func candidateSessionTime() throws -> MediaTime {
        guard let timing else { throw CaptureError.notCapturing }
        if let cached = nextFrameSessionTime, cached.frame == nextFrame { return cached.time }
        do { return try timing.sessionTime(ofFrame: nextFrame - gridBase) } catch { throw CaptureError.time(error) }
    }

    /// Moves requests the device recorded since the last call into the completion queue.
    private func collectRequests() {
        let requests = device.requests
        while requestsSeen < requests.count {
            // Device frame indices count from the current grid's frame 0; the queue counts deliveries.
            let request = requests[requestsSeen]
            completions.enqueue(gridBase == 0 ? request : DynamicAspectRatioRequest(
                sequenceNumber: request.sequenceNumber, aspectRatio: request.aspectRatio,
                requestTime: request.requestTime, requestFrameIndex: request.requestFrameIndex + gridBase,
                effectiveFrameIndex: request.effectiveFrameIndex + gridBase, change: request.change,
                changesDimensions: request.changesDimensions), completionDelayFrames: device.completionDelayFrames)
            requestsSeen += 1
        }
    }

    /// Applies one scheduled event to the device at its host time.
    private func apply(_ event: Event) throws(CaptureError) {
        switch event.action {
        case .setDynamicAspectRatio(let ratio):
            try device.submitDynamicAspectRatio(ratio, atSessionTime: event.hostTime)
        case .videoZoomFactor(let factor):
            device.didCapture(upTo: nextFrame - gridBase, hostTime: event.hostTime)
            controls.noteZoomCause("videoZoomFactor")
            try device.setVideoZoomFactor(factor)
        case .peopleInFrame(let count):
            device.didCapture(upTo: nextFrame - gridBase, hostTime: event.hostTime)
            if try controls.observePeople(count, device: device) { return }
            // Neither active Center Stage nor a smart framing monitor: the count is only kept.
            guard let monitor = device.smartFramingMonitor else { return }
            try recommendFraming(monitor, peopleInFrame: count, at: event.hostTime)
        case .posture(let posture):
            throw .invalidParameter(name: "posture", value: posture.rawValue,
                                    allowed: "posture events only with several cameras (scenario key cameras)")
        case .deviceOrientation(let orientation):
            if let record = controls.setDeviceOrientation(orientation, at: event.hostTime) { outbox.append(.sessionEvent(record)) }
        case .centerStageEnabled(let enabled):
            device.didCapture(upTo: nextFrame - gridBase, hostTime: event.hostTime)
            for record in try controls.setCenterStageEnabled(enabled, at: event.hostTime, device: device) {
                outbox.append(.sessionEvent(record))
            }
        case .smartFraming(let action):
            guard let monitor = device.smartFramingMonitor else {
                throw .smartFramingUnsupported(formatSide: device.activeFormat.squareSide)
            }
            if monitor.perform(action) {
                outbox.append(.sessionEvent(SessionEventRecord(kind: .smartFramingChanged, sessionTime: event.hostTime,
                                                               camera: device.uniqueID, to: action.rawValue)))
                // Started with people already in frame: the monitor recommends for them at once.
                if action == .start, let count = controls.peopleInFrame {
                    device.didCapture(upTo: nextFrame - gridBase, hostTime: event.hostTime)
                    try recommendFraming(monitor, peopleInFrame: count, at: event.hostTime)
                }
            }
        case .apply(let ratio):
            let selection: ActiveFormatSelection<CaptureDevice.Format>
            do {
                selection = try ActiveFormatSelection.apply(ratio, formats: device.formats, activeFormat: device.activeFormat,
                                                            currentAspectRatio: ratioInEffect,
                                                            currentFrameRate: device.frameRate, preferredFrameRate: preferredFrameRate)
            } catch { throw .invalidParameter(name: "apply", value: ratio.rawValue, allowed: "\(error)") }
            if selection.formatChanged {
                try switchFormat(to: selection, at: event.hostTime, because: "apply(\(ratio.rawValue))")
            } else {
                try device.submitDynamicAspectRatio(ratio, atSessionTime: event.hostTime)
            }
        case .activeFormat(let name):
            let selection: ActiveFormatSelection<CaptureDevice.Format>
            do {
                selection = try ActiveFormatSelection.switchFormat(to: name, formats: device.formats, activeFormat: device.activeFormat,
                                                                   currentAspectRatio: ratioInEffect,
                                                                   currentFrameRate: device.frameRate, preferredFrameRate: preferredFrameRate)
            } catch { throw .invalidParameter(name: "activeFormat", value: name, allowed: "\(error)") }
            if selection.formatChanged { try switchFormat(to: selection, at: event.hostTime, because: "activeFormat \(name)") }
        }
    }

    /// The rate the app asked for (the scenario's `fps`): kept across format switches where
    /// the format allows it.
    private let preferredFrameRate: FrameRate

    /// Lets a running smart framing monitor see `count` people at host time `s`; a new
    /// recommendation is logged (`smartFramingRecommended`) and applied as Apple advises:
    /// the aspect ratio first (a request with its latency), then the zoom.
    private func recommendFraming(_ monitor: SmartFramingMonitor, peopleInFrame count: Int, at s: MediaTime) throws(CaptureError) {
        guard let framing = try monitor.observe(peopleInFrame: count) else { return }
        outbox.append(.sessionEvent(SessionEventRecord(
            kind: .smartFramingRecommended, sessionTime: s, camera: device.uniqueID,
            to: framing.name, message: "\(count) \(count == 1 ? "person" : "people") in frame: ratio \(framing.aspectRatio.rawValue), zoom \(framing.zoomFactor)")))
        try device.submitDynamicAspectRatio(framing.aspectRatio, atSessionTime: s)
        controls.noteZoomCause("smart framing \(framing.name)")
        try device.setVideoZoomFactor(framing.zoomFactor)
    }

    /// What a `peopleInFrame` count may be, and what it drives.
    public static let peopleInFrameAllowed = "a number of people ≥ 0 (any format, any time: it drives Center Stage's zoom "
        + "where Center Stage is active and smart framing's recommendations where smart framing runs)"

    /// The ratio in effect now (what the last delivered frame of the current grid had; the
    /// grid's initial ratio before its first frame): pending requests do not count.
    var ratioInEffect: DynamicAspectRatio { device.ratioInEffect(beforeFrame: nextFrame - gridBase) }

    /// Reconfigures the camera to `selection` at host time `s` (DESIGN.md "Active format"):
    /// pending requests not in effect complete `superseded` (they never take effect: the new
    /// format starts with `selection.aspectRatio`, the ratio in effect at `s`, or an
    /// `apply`'s own ratio); the new device captures from `s + switchGap`; Center Stage's
    /// zoom follows its active state on the new format; an `activeFormatChanged` event names
    /// the new format's first frame.
    private func switchFormat(to selection: ActiveFormatSelection<CaptureDevice.Format>, at s: MediaTime,
                              because cause: String) throws(CaptureError) {
        collectRequests()
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: nextFrame))
        let start: MediaTime
        do { start = try s.adding(controls.switchGap) } catch { throw .time(error) }
        let old = device
        let new = try old.reconfigured(format: selection.format, frameRate: selection.frameRate,
                                       aspectRatio: selection.aspectRatio, capturingFrom: start, switchedAt: s)
        try controls.formatDidChange(from: old, to: new)
        device = new
        timing = new.frameTiming
        gridBase = nextFrame
        requestsSeen = 0
        formatGeneration += 1
        nextFrameSessionTime = nil
        guard let timing else { throw .notCapturing }
        do {
            let first = try timing.deviceTime(ofFrame: 0)
            outbox.append(.sessionEvent(SessionEventRecord(
                kind: .activeFormatChanged, sessionTime: try timing.sessionTime(ofFrame: 0), deviceTime: first,
                deviceClock: new.uniqueID, camera: new.uniqueID, from: "\(old.activeFormat.name)@\(old.frameRate)",
                to: "\(new.activeFormat.name)@\(new.frameRate)", frameIndex: nextFrame,
                message: "\(cause) at session time \(s): \(selection.dimensions) \(selection.aspectRatio.rawValue) after a \(controls.switchGap) reconfiguration gap"
                    + (selection.startsSegment ? "; new segment (formatChanged)" : "; same dimensions and rate: no new segment"))))
        } catch { throw .time(error) }
    }
}
