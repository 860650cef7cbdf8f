/// Producing the stream: the pull loop applies the scheduled events due before the
/// streaming camera's next frame, queues the completions and the microphone's buffers due
/// before it, then the frame with what changed in it (see ``CaptureSession``).
extension CaptureSession {
    /// The streaming device's next grid index and its session time.
    private func candidate() throws(CaptureError) -> (grid: Int64, time: MediaTime) {
        let grid = nextGrid[streaming]
        if let cached = nextFrameSessionTime, cached.device == streaming, cached.grid == grid { return (grid, cached.time) }
        guard let timing = device.frameTiming else { throw .notCapturing }
        do { return (grid, try timing.sessionTime(ofFrame: grid)) } catch { throw .time(error) }
    }

    /// Whether `event` happens before the frame `next`: its host time is at or before the
    /// frame's session time. A request (``usesDeviceTickTie(_:)``) is also due when,
    /// compared in the streaming camera's device ticks (both sides rounded once by
    /// `convertTime`), it is at or before the frame's capture time: a request made at the very
    /// host time a frame is captured takes effect on that frame even where the frame's time
    /// converted back to the host clock rounds to just before it (Docs/DESIGN.md, "Dynamic
    /// aspect ratio"). Every other event (a camera or format switch, a turn, a zoom) keeps the
    /// host-clock rule: the frames before it are those whose session time is before it.
    private func isDue(_ event: Event, before next: (grid: Int64, time: MediaTime)) throws(CaptureError) -> Bool {
        if event.hostTime <= next.time { return true }
        guard usesDeviceTickTie(event), let timing = device.frameTiming else { return false }
        do { return try convertTime(event.hostTime, from: .host, to: device.clock) <= (try timing.deviceTime(ofFrame: next.grid)) } catch { throw .time(error) }
    }

    /// Whether `event` takes effect by the device-tick rule of a request (a frame period count
    /// after its host time converted to the device clock): `setDynamicAspectRatio`, an `apply`
    /// that keeps the active format (a plain request), and a posture change on the Virtual
    /// Front Camera (its constituent swap follows the same rule, Docs/DESIGN.md "Cameras").
    private func usesDeviceTickTie(_ event: Event) -> Bool {
        switch event.action {
        case .setDynamicAspectRatio: true
        case .apply(let ratio): device.activeFormat.supportedDynamicAspectRatios.contains(ratio) || device.activeFormat.fixedDimensions != nil
        case .posture, .moveView, .drivingView: isVirtual
        default: false
        }
    }

    /// Produces the events up to and including the next frame (or the end of the stream).
    func produce() throws {
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
                outbox.appendHeld(completion, for: request)
            } else {
                outbox.append(completion)
            }
        }
        try deliver(grid: next.grid, sessionTime: next.time)
        // Their frame was captured: the answers stand.
        outbox.releaseHeld(capturedBefore: deliveredFrameCount)
    }

    /// Queues frame `grid` of the streaming camera, delivered at `sessionTime`, after what
    /// changed with it (camera, constituent, mirroring, angle, zoom, format).
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
        let facing = DirectionCoordinator.facing(of: device.deviceType, in: coordinator?.posture ?? .closed)
        let mirrored = mirrorMode.mirrors(facing)
        announceRouting(producer: producer, mirrored: mirrored, frame: stamp)
        let camera = streamCamera(producer: producer, facing: facing, mirrored: mirrored)
        device.applyPendingZoom(beforeFrame: grid)
        if let zooming = output.frameSources[producer] as? ZoomingImageSource { zooming.videoZoomFactor = device.videoZoomFactor }
        let dimensions = device.dimensions(atFrame: grid)
        settleFormatAnnouncement(grid: grid, dimensions: dimensions)
        if let carry = pendingCarry, carry.device == streaming {
            // The first frame after a switch: a new size there is the carried-over app ratio's
            // (or a superseded request's), announced by no completion, unless a request made
            // since takes that frame.
            pendingCarry = nil
            if carry.frame == grid, dimensions != announcedFormat?.dimensions,
                !device.requests[carry.requests...].contains(where: { $0.effectiveFrameIndex == grid })
            {
                carriedRatioChanges += 1
            }
        }
        let frame = try output.frame(
            index: index, dimensions: dimensions, deviceTime: deviceTime, sessionTime: sessionTime, nextSessionTime: nextSessionTime, source: producer,
            producerPosition: camera == nil ? nil : producer, mirrored: mirrored)
        announceFormat(dimensions: dimensions, camera: camera, facing: facing, frame: stamp)
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
            outbox.discardAll()
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

    /// Moves requests the streaming device recorded into the completion queue, their frame
    /// indices translated to delivery sequence numbers (the device delivers its grid frames
    /// from `nextGrid` on as delivery numbers from `deliveredFrameCount` on).
    func collectRequests() {
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
            outbox.supersedeHeld { $0.effectiveFrameIndex >= queued.effectiveFrameIndex }
            completions.enqueue(queued, completionDelayFrames: device.completionDelayFrames)
        }
        requestsSeen[streaming] = requests.count
    }

}
