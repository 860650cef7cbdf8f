/// Reconfiguring the streaming camera to another `activeFormat`: `apply(ratio)`, an
/// `activeFormat` event, or smart framing's start on a format without it. Frames stop at
/// the event, pending requests are superseded, and the new format's grid starts after the
/// reconfiguration gap (see ``CaptureSession``, "Orientation, formats and stabilization").
extension CaptureSession {
    /// ``Action/apply(_:)`` on the streaming camera; on the back camera it fails like a request.
    func applyRatio(_ ratio: DynamicAspectRatio, at s: MediaTime) throws(CaptureError) {
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
    /// - Returns: false, changing nothing, when no format of the camera has smart framing
    ///   (the iPhone Duo cameras, the back camera, the Virtual Front Camera, an earlier front
    ///   camera): the seeds' `start()` throws to the app then.
    func makeSmartFramingFormatActive(at s: MediaTime) throws(CaptureError) -> Bool {
        let device = self.device
        guard !isVirtual, let target = device.formats.first(where: \.isSmartFramingSupported) else { return false }
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
        return true
    }

    /// `{"activeFormat": name}` on the streaming camera.
    func switchActiveFormat(to name: String, at s: MediaTime) throws(CaptureError) {
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
        guard selection.formatChanged else {
            // No reconfiguration, and so no activeFormatChanged: the note says the event was seen.
            return outbox.append(
                .note("activeFormat \(name) at session time \(s): camera \(device.uniqueID)'s active format already; nothing changes (no reconfiguration)"))
        }
        try switchFormat(to: selection, at: s, because: "activeFormat \(name)")
        // Requests pending at the switch were superseded: the app's ratio is the one kept.
        if selection.format.fixedDimensions == nil { appRatio = selection.aspectRatio }
    }

    /// Reconfigures the streaming camera to `selection` at host time `s` as the type's documentation
    /// says; Center Stage's zoom follows its active state there; `activeFormatChanged` names its first frame.
    private func switchFormat(to selection: ActiveFormatSelection<CaptureDevice.Format>, at s: MediaTime, because cause: String) throws(CaptureError) {
        collectRequests()
        outbox.append(contentsOf: completions.supersede(effectiveAtOrAfter: deliveredFrameCount))
        outbox.supersedeHeld { $0.effectiveFrameIndex >= self.deliveredFrameCount }
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
        let ratio = selection.format.fixedDimensions == nil ? selection.aspectRatio : nil
        pendingFormatAnnouncement = (outbox.endPosition, streaming, formatGenerations[streaming], cause, s, ratio, selection.frameRateChanged)
        outbox.append(
            .sessionEvent(
                .activeFormatChanged(
                    camera: new.uniqueID, from: .init(name: old.activeFormat.name, frameRate: old.frameRate),
                    to: .init(name: new.activeFormat.name, frameRate: new.frameRate), frame: first,
                    reason: formatChangeReason(
                        cause, at: s, dimensions: selection.dimensions, ratio: ratio, frameRate: new.frameRate, rateChanged: selection.frameRateChanged,
                        startsSegment: selection.startsSegment))))
    }

    /// The `activeFormatChanged` message: what asked for the switch at `s`, the new format's
    /// first frame (its dimensions, its ratio, nil for a fixed-size format that has none, and
    /// its rate, said to be new when `rateChanged`) and what that does to the segments.
    private func formatChangeReason(
        _ cause: String, at s: MediaTime, dimensions: VideoDimensions, ratio: DynamicAspectRatio?, frameRate: FrameRate, rateChanged: Bool, startsSegment: Bool
    ) -> String {
        "\(cause) at session time \(s): \(dimensions) \(ratio.map(\.rawValue) ?? "(a fixed-size format)") at \(frameRate) fps"
            + (rateChanged ? " (a new rate)" : "") + " after a \(controls.switchGap) reconfiguration gap"
            + (startsSegment ? "; new segment (formatChanged)" : "; same dimensions and rate: no new segment")
    }

    /// Before the first frame of a switched format (grid frame `grid` of the streaming
    /// camera, `dimensions`): the `activeFormatChanged` message queued at the switch names
    /// the ratio the format started with; a request made in the gap may have changed what
    /// that frame has, so the message is rewritten to name the frame's own dimensions and
    /// ratio (and whether they start a segment against the last frame's).
    func settleFormatAnnouncement(grid: Int64, dimensions: VideoDimensions) {
        guard let pending = pendingFormatAnnouncement else { return }
        guard pending.device == streaming, pending.generation == formatGenerations[streaming], grid == 0 else { return }
        pendingFormatAnnouncement = nil
        guard let started = pending.ratio else { return }
        let ratio = device.aspectRatio(atFrame: 0)
        guard ratio != started else { return }
        let starts = announcedFormat.map { $0.dimensions != dimensions } ?? true || pending.rateChanged
        let cause = pending.cause + " (it started at \(started.rawValue); \(ratio.rawValue) was asked in the gap)"
        let reason = formatChangeReason(
            cause, at: pending.at, dimensions: dimensions, ratio: ratio, frameRate: device.frameRate, rateChanged: pending.rateChanged, startsSegment: starts)
        outbox.rewrite(at: pending.position) { event in
            guard case .sessionEvent(.activeFormatChanged(let camera, let from, let to, let frame, _)) = event else { return nil }
            return .sessionEvent(.activeFormatChanged(camera: camera, from: from, to: to, frame: frame, reason: reason))
        }
    }
}
