extension SessionEventRecord {
    /// The manifest's record of what the capture session reported: the one place a
    /// ``CaptureSessionChange`` becomes a ``Kind`` with its fields spelled as the manifest
    /// spells them (Docs/manifest.md, `events`).
    package init(_ change: CaptureSessionChange) {
        switch change {
        case .postureChanged(let from, let to, let s): self.init(kind: .postureChanged, sessionTime: s, from: from.rawValue, to: to.rawValue)
        case .facingChanged(let camera, let from, let to, let s):
            self.init(kind: .facingChanged, sessionTime: s, camera: camera, from: from?.rawValue, to: to.rawValue)
        case .viewMoved(let view, let from, let to, let s):
            self.init(kind: .viewMoved, sessionTime: s, from: from.rawValue, to: to.rawValue, message: "view \(view) moved to the \(to.rawValue) display")
        case .drivingViewChanged(let from, let to, let s):
            self.init(
                kind: .drivingViewChanged, sessionTime: s, from: from, to: to,
                message: "view \(to)'s direction coordinator drives the recording (camera, facing, mirroring)")
        case .viewFacingChanged(let view, let display, let camera, let from, let to, let s):
            self.init(
                kind: .viewFacingChanged, sessionTime: s, camera: camera, from: from?.rawValue, to: to.rawValue,
                message: "relative to view \(view) on the \(display.rawValue) display (its own direction coordinator; it does not drive the recording)")
        case .deviceOrientationChanged(let from, let to, let s):
            self.init(kind: .deviceOrientationChanged, sessionTime: s, from: from.rawValue, to: to.rawValue)
        case .cameraSwitched(let from, let to, let frame): self.init(.cameraSwitched, at: frame, camera: to, from: from, to: to)
        case .constituentSwapped(let camera, let from, let to, let frame): self.init(.constituentSwapped, at: frame, camera: camera, from: from, to: to)
        case .videoMirroredChanged(let camera, let from, let to, let frame):
            self.init(
                kind: .mirroringChanged, sessionTime: frame.sessionTime, camera: camera, from: from ? "on" : "off", to: to ? "on" : "off",
                frameIndex: frame.index)
        case .dynamicAspectRatioRequestFailed(let ratio, let camera, let s, let message):
            self.init(kind: .aspectRatioRequestFailed, sessionTime: s, camera: camera, to: ratio.rawValue, message: message)
        case .smartFramingMonitoringChanged(let camera, let action, let s, let message):
            self.init(kind: .smartFramingChanged, sessionTime: s, camera: camera, to: action.rawValue, message: message)
        case .smartFramingStartFailed(let camera, let s, let message):
            self.init(kind: .smartFramingStartFailed, sessionTime: s, camera: camera, to: SmartFramingMonitor.Action.start.rawValue, message: message)
        case .smartFramingRecommended(let camera, let from, let to, let count, let outcome, let s):
            self.init(
                kind: .smartFramingRecommended, sessionTime: s, camera: camera, from: from?.name, to: to.name,
                message: Self.recommendation(to, peopleInFrame: count, again: from == to, outcome: outcome))
        case .activeVideoStabilizationModeChanged(let camera, let from, let to, let s, let reason):
            self.init(kind: .videoStabilizationModeChanged, sessionTime: s, camera: camera, from: from.rawValue, to: to.rawValue, message: reason)
        case .activeFormatChanged(let camera, let from, let to, let frame, let reason):
            self.init(.activeFormatChanged, at: frame, camera: camera, from: "\(from)", to: "\(to)", message: reason)
        case .captureFeatureChanged(let feature, let camera, let from, let to, let s, let effect):
            self.init(
                kind: feature == .depthDataDelivery ? .depthDataDeliveryChanged : .geometricDistortionCorrectionChanged, sessionTime: s, camera: camera,
                from: "\(from)", to: "\(to)", message: effect)
        case .centerStageEnabledChanged(let camera, let from, let to, let requester, let s):
            self.init(
                kind: .centerStageEnabledChanged, sessionTime: s, camera: camera, from: "\(from)", to: "\(to)",
                message: requester == .user ? "by the user (Control Center)" : nil)
        case .centerStageToggleIgnored(let camera, let isEnabled, let requested, let mode, let s):
            self.init(
                kind: .centerStageToggleIgnored, sessionTime: s, camera: camera, from: "\(isEnabled)", to: "\(requested)",
                message: "the user's Control Center toggle is ignored: centerStageControlMode is \(mode.rawValue)")
        case .videoRotationAngleChanged(let camera, let from, let to, let frame):
            self.init(
                .rotationChanged, at: frame, camera: camera, from: "\(from.degrees)", to: "\(to.degrees)",
                message:
                    "videoRotationAngleForHorizonLevelCapture \(from.degrees)° → \(to.degrees)° (clockwise); ffprobe rotation \(to.displayMatrixRotationDegrees)"
            )
        case .videoZoomFactorChanged(let camera, let from, let to, let frame, let cause):
            self.init(.zoomChanged, at: frame, camera: camera, from: "\(from)", to: "\(to)", message: cause)
        case .centerStageActiveChanged(let camera, let from, let to, let frame):
            self.init(kind: .centerStageActiveChanged, sessionTime: frame.sessionTime, camera: camera, from: "\(from)", to: "\(to)", frameIndex: frame.index)
        case .liveSourceReconnected(let source, let frame, let outage, let message):
            self.init(
                kind: .liveSourceReconnected, sessionTime: frame.sessionTime, deviceTime: frame.deviceTime, deviceClock: "input", camera: source,
                frameIndex: frame.index, message: message)
            let (seconds, attoseconds) = outage.components
            durationSeconds = Double(seconds * 1000 + attoseconds / 1_000_000_000_000_000) / 1000
        }
    }

    /// A record that starts at `frame` of `camera`, its device time on that camera's clock.
    private init(_ kind: Kind, at frame: CaptureSessionChange.Frame, camera: String, from: String, to: String, message: String? = nil) {
        self.init(
            kind: kind, sessionTime: frame.sessionTime, deviceTime: frame.deviceTime, deviceClock: camera, camera: camera, from: from, to: to,
            frameIndex: frame.index, message: message)
    }

    /// `"2 people in frame: ratio 3x4, zoom 1.3; applied"`: a recommendation and what the app did.
    private static func recommendation(_ framing: CaptureFraming, peopleInFrame count: Int, again: Bool, outcome: CaptureSessionChange.SmartFramingOutcome)
        -> String
    {
        let did =
            switch outcome {
            case .applied: "applied"
            case .alreadyInEffect: "already in effect"
            case .ignored(let policy): "ignored (smartFramingPolicy \(policy.name))"
            }
        return "\(count) \(count == 1 ? "person" : "people") in frame: ratio \(framing.aspectRatio.rawValue), zoom \(framing.zoomFactor)"
            + "\(again ? " (again)" : ""); \(did)"
    }
}
