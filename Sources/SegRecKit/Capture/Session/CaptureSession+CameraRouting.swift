/// Routing among several cameras: a posture change swaps the Virtual Front Camera's
/// constituent or switches to the individual camera the posture selects, and the first
/// frame after it says which camera (or constituent) delivers (see ``CaptureSession``,
/// "Individual cameras" and "Virtual Front Camera").
extension CaptureSession {
    /// A posture event at host time `s`: `postureChanged` and `facingChanged` records, then
    /// the Virtual Front Camera's constituent swap or the switch to the camera the posture
    /// selects (see the type's documentation).
    func changePosture(to posture: DevicePosture, at s: MediaTime) throws(CaptureError) {
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
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: deliveredFrameCount))
        outbox.supersedeHeld { $0.effectiveFrameIndex >= self.deliveredFrameCount }
        devices[streaming].didCapture(upTo: nextGrid[streaming], hostTime: s)
        let device = devices[b]
        guard let timing = device.frameTiming else { throw .notCapturing }
        let first: Int64
        do {
            let threshold = try convertTime(try s.adding(controls.switchGap), from: .host, to: device.clock)
            first = try timing.firstFrame(atOrAfter: threshold, minimumIndex: max(device.nextFrameIndex, nextGrid[b]))
        } catch { throw .time(error) }
        device.carryOver(appRatio, fromFrame: first)
        pendingCarry = (b, first, device.requests.count)
        try controls.cameraDidSwitch(from: devices[streaming], to: device)
        activationRatio = device.aspectRatio(atFrame: first)
        device.didCapture(upTo: first, hostTime: s)
        // Requests the new camera took earlier are already queued; count them as seen.
        requestsSeen[b] = device.requests.count
        nextGrid[b] = first
        streaming = b
        nextFrameSessionTime = nil
    }
    /// Queues, before frame `frame`, what changed since the last frame in who delivers it:
    /// another camera (`cameraSwitched`), another constituent of the Virtual Front Camera,
    /// or mirroring (`producer`: the picture source; `mirrored`: this frame's).
    func announceRouting(producer: Int, mirrored: Bool, frame: CaptureSessionChange.Frame) {
        let device = self.device
        if let last = lastDelivered {
            if last.device != streaming {
                outbox.append(.sessionEvent(.cameraSwitched(from: devices[last.device].uniqueID, to: device.uniqueID, frame: frame)))
            } else if last.producer != producer {
                outbox.append(
                    .sessionEvent(
                        .constituentSwapped(camera: device.uniqueID, from: devices[last.producer].uniqueID, to: devices[producer].uniqueID, frame: frame)))
            }
        }
        if let lastMirrored, lastMirrored != mirrored {
            outbox.append(.sessionEvent(.videoMirroredChanged(camera: device.uniqueID, from: lastMirrored, to: mirrored, frame: frame)))
        }
    }

    /// Virtual routing: the constituent whose picture frame `grid` shows.
    func constituent(atFrame grid: Int64) -> Int { constituents.last { $0.frame <= grid }?.position ?? streaming }
}
