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
/// Concurrency: a non-`Sendable` class driven by one task (the consumer pulling events);
/// the device, monitor, output and source are owned by it and never shared.
public final class CaptureSession {
    /// The clock sample times are expressed on: the host clock (nanoseconds).
    public let synchronizationClock: MediaClock = .host
    /// The camera.
    public let device: CaptureDevice
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
    public init(device: CaptureDevice, output: VideoDataOutput = VideoDataOutput(),
                sessionStart: MediaTime, duration: MediaTime, events: [Event] = []) throws(CaptureError) {
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
        for (i, event) in events.enumerated() {
            guard event.hostTime >= previous, event.hostTime < sessionEnd else {
                throw .invalidParameter(name: "events[\(i)] host time", value: "\(event.hostTime)",
                                        allowed: "non-decreasing, in [\(sessionStart), \(sessionEnd))")
            }
            previous = event.hostTime
            switch event.action {
            case .setDynamicAspectRatio(let ratio): try device.activeFormat.validate(ratio)
            case .videoZoomFactor(let factor):
                try CaptureDevice.validateVideoZoomFactor(factor)
            case .peopleInFrame(let count):
                guard device.smartFramingMonitor != nil else {
                    throw .smartFramingUnsupported(formatSide: device.activeFormat.squareSide)
                }
                guard count >= 0 else {
                    throw .invalidParameter(name: "peopleInFrame", value: "\(count)", allowed: "≥ 0")
                }
            case .posture(let posture):
                throw .invalidParameter(name: "events[\(i)].posture", value: posture.rawValue,
                                        allowed: "posture events only with several cameras (scenario key cameras)")
            }
        }
        self.device = device
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
            let endOnDevice = try convertTime(sessionEnd, from: .host, to: device.clock)
            var n = try timing.firstFrame(atOrAfter: endOnDevice)
            // Settle on session timestamps exactly (two roundings separate the clocks).
            while n > 0, try timing.sessionTime(ofFrame: n - 1) >= sessionEnd { n -= 1 }
            while try timing.sessionTime(ofFrame: n) < sessionEnd { n += 1 }
            return n
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
        guard let timing else { throw CaptureError.notCapturing }
        let sessionTime: MediaTime
        if let cached = nextFrameSessionTime, cached.frame == nextFrame {
            sessionTime = cached.time  // computed as the previous frame's end
        } else {
            do { sessionTime = try timing.sessionTime(ofFrame: nextFrame) } catch { throw CaptureError.time(error) }
        }
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
        }
        collectRequests()
        while let completion = completions.popDue(beforeFrame: nextFrame) { outbox.append(completion) }
        let frame: VideoFrame
        do {
            let deviceTime = try timing.deviceTime(ofFrame: nextFrame)
            let nextSessionTime = try timing.sessionTime(ofFrame: nextFrame + 1)
            nextFrameSessionTime = (nextFrame + 1, nextSessionTime)
            frame = try output.frame(index: nextFrame, dimensions: device.dimensions(atFrame: nextFrame),
                                     deviceTime: deviceTime, sessionTime: sessionTime,
                                     nextSessionTime: nextSessionTime)
        } catch let error as MediaTimeError { throw CaptureError.time(error) }
        outbox.append(.frame(frame))
        nextFrame += 1
        deliveredFrameCount += 1
        device.didCapture(upTo: nextFrame, hostTime: sessionTime)
    }

    /// Moves requests the device recorded since the last call into the completion queue.
    private func collectRequests() {
        let requests = device.requests
        while requestsSeen < requests.count {
            completions.enqueue(requests[requestsSeen], completionDelayFrames: device.completionDelayFrames)
            requestsSeen += 1
        }
    }

    /// Applies one scheduled event to the device at its host time.
    private func apply(_ event: Event) throws(CaptureError) {
        switch event.action {
        case .setDynamicAspectRatio(let ratio):
            try device.submitDynamicAspectRatio(ratio, atSessionTime: event.hostTime)
        case .videoZoomFactor(let factor):
            device.didCapture(upTo: nextFrame, hostTime: event.hostTime)
            try device.setVideoZoomFactor(factor)
        case .peopleInFrame(let count):
            guard let monitor = device.smartFramingMonitor else {
                throw .smartFramingUnsupported(formatSide: device.activeFormat.squareSide)
            }
            device.didCapture(upTo: nextFrame, hostTime: event.hostTime)
            if let framing = try monitor.observe(peopleInFrame: count) {
                // Apple's guidance: aspect ratio first, then zoom.
                try device.submitDynamicAspectRatio(framing.aspectRatio, atSessionTime: event.hostTime)
                try device.setVideoZoomFactor(framing.zoomFactor)
            }
        case .posture(let posture):
            throw .invalidParameter(name: "posture", value: posture.rawValue,
                                    allowed: "posture events only with several cameras (scenario key cameras)")
        }
    }
}
