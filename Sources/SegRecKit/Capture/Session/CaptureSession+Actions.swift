/// Applying the scheduled ``CaptureSession/Action``s to the streaming camera at their host
/// times: requests, zoom, people counts and smart framing, Center Stage and the features it
/// excludes, orientation; format and camera switches are in their own extensions.
extension CaptureSession {
    /// Applies one scheduled event to the streaming device at its host time, as the seeds'
    /// code makes each change: inside the device's configuration lock
    /// (`lockForConfiguration()` … `unlockForConfiguration()`). A scenario has no lock key:
    /// every event is one locked change. A lock the app already holds through the library
    /// is left as it was.
    func apply(_ event: Event) throws(CaptureError) {
        let device = self.device
        guard !device.isLockedForConfiguration else { return try applyLocked(event) }
        device.lockForConfiguration()
        defer {
            device.unlockForConfiguration()
            // A format switch replaced the camera (it keeps the lock), a posture may have
            // switched to another: the streaming one ends unlocked too.
            self.device.unlockForConfiguration()
        }
        try applyLocked(event)
    }

    /// `activeFormat` through the library: switches the streaming camera's format now (at
    /// its current host time), a reconfiguration like an `activeFormat` event. Only inside
    /// the configuration lock, as on iOS; the reconfigured camera (``device`` from now on)
    /// keeps the lock, so a ratio request may follow before `unlockForConfiguration()`, as
    /// the seeds' `apply()` does.
    /// - Parameter name: a format of the streaming camera as `segrec formats` names it
    ///   (`"1920"`, `"1920x1440"`).
    /// - Throws: ``CaptureError/notLockedForConfiguration(camera:operation:)`` when the
    ///   streaming camera is not locked (nothing changes);
    ///   ``CaptureError/invalidParameter(name:value:allowed:)`` for a format the camera lacks.
    package func setActiveFormat(_ name: String) throws(CaptureError) {
        let device = self.device
        guard device.isLockedForConfiguration else { throw .notLockedForConfiguration(camera: device.uniqueID, operation: "activeFormat") }
        try switchActiveFormat(to: name, at: device.currentHostTime)
    }

    /// ``apply(_:)`` with the lock held.
    private func applyLocked(_ event: Event) throws(CaptureError) {
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
            guard views != nil else { return try changePosture(to: posture, at: event.hostTime) }
            try changeViews(at: event.hostTime) { $0.isOpen = posture != .closed }
        case .moveView(let id, let display):
            if let index = views?.index(of: id), views?.views[index].display == display {
                return outbox.append(
                    .note("moveView \(id) at session time \(event.hostTime): the view is on the \(display.rawValue) display already; nothing changes"))
            }
            try changeViews(at: event.hostTime) { views throws(CaptureError) in
                guard let index = views.index(of: id) else { throw .invalidParameter(name: "moveView", value: id, allowed: "a view id of views") }
                views.views[index].display = display
            }
        case .drivingView(let id):
            if let views, views.index(of: id) == views.driving {
                return outbox.append(.note("drivingView \(id) at session time \(event.hostTime): the view drives the recording already; nothing changes"))
            }
            try changeViews(at: event.hostTime) { views throws(CaptureError) in
                guard let index = views.index(of: id) else { throw .invalidParameter(name: "drivingView", value: id, allowed: "a view id of views") }
                views.driving = index
            }
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
        case .smartFraming(let action): try applySmartFraming(action, at: event.hostTime)
        case .apply(let ratio): try applyRatio(ratio, at: event.hostTime)
        case .activeFormat(let name): try switchActiveFormat(to: name, at: event.hostTime)
        }
    }

    /// `{"smartFraming": "start" | "stop"}` at host time `s`, as the seeds' `start()` and
    /// `stop()` do. Start on a format without smart framing makes the camera's smart framing
    /// format active first; on a camera that has none (the iPhone Duo cameras, the back
    /// camera, the Virtual Front Camera, an earlier front camera) `start()` throws to the
    /// app, which logs it (a warning and a `smartFramingStartFailed` event) and goes on.
    /// Stop cancels the app's recommendation task: a recommendation whose ratio request is
    /// still pending never sets its zoom (the request itself was made and stands).
    private func applySmartFraming(_ action: SmartFramingMonitor.Action, at s: MediaTime) throws(CaptureError) {
        if device.smartFramingMonitor == nil, action == .start, try !makeSmartFramingFormatActive(at: s) { return smartFramingStartFailed(at: s) }
        // Stopping a monitor the format does not have stops nothing.
        let device = self.device  // the reconfigured camera after a switch to 4032
        guard let monitor = device.smartFramingMonitor else { return }
        if action == .start { monitor.enableSupportedFramingsUnlessChosen() }
        guard monitor.perform(action) else { return }
        var note: String?
        if action == .stop, let cancelled = device.cancelPendingZoom() {
            note =
                "the pending recommendation's task is cancelled: its zoom \(cancelled) is never set "
                + "(its setDynamicAspectRatio was already made and still takes effect)"
        }
        outbox.append(.sessionEvent(.smartFramingMonitoringChanged(camera: device.uniqueID, action: action, at: s, message: note)))
        // Started with people already in frame: the monitor recommends for them at once. The
        // grid is read after the switch: a switch to the smart framing format restarted it at
        // 0, so the first recommendation can land on the new format's first frame.
        if action == .start, let count = controls.peopleInFrame {
            device.didCapture(upTo: nextGrid[streaming], hostTime: s)
            try recommendFraming(monitor, peopleInFrame: count, at: s)
        }
    }

    /// `setDynamicAspectRatio` on the streaming device at host time `s` (the back camera: see the type's documentation).
    func setDynamicAspectRatio(_ ratio: DynamicAspectRatio, at s: MediaTime) throws(CaptureError) {
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

    /// `start()` threw at host time `s`: the streaming camera has no smart framing format. A
    /// warning and a `smartFramingStartFailed` event say so; nothing else changes.
    private func smartFramingStartFailed(at s: MediaTime) {
        let device = self.device
        let message =
            "smartFraming start at session time \(s) failed: camera \(device.uniqueID) (\(device.deviceType.rawValue)) has no format with smart framing "
            + "(only the 4032 format of the builtInUltraWideCamera has one); the app's start() throws, Auto framing stays off and the recording goes on"
        outbox.append(.warning(message))
        outbox.append(.sessionEvent(.smartFramingStartFailed(camera: device.uniqueID, at: s, message: message)))
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
    package static let peopleInFrameAllowed =
        "a number of people ≥ 0 (any format, any time: it drives Center Stage's zoom "
        + "where Center Stage is active and smart framing's recommendations where smart framing runs)"
}
