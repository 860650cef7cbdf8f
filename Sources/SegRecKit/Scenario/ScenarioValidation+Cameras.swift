extension ScenarioLimits {
    /// Largest `switchGapSeconds`.
    public static let maximumSwitchGapSeconds = 10.0
    static let switchGapAllowed = "a number of seconds, 0...10"
    static let virtualAllowed = "format 1280 or 1920 at up to 60 fps (what the outer and inner cameras share); for 3840 or more than 60 fps use \"frontCamera\": \"individual\""
}

extension Scenario {
    /// ``validate(file:)`` for a scenario with `cameras`.
    /// - Throws: ``ScenarioError`` naming `file`, the key path (`cameras[1].format`,
    ///   `virtual.fps`, `events[2].posture`, …) and what is allowed: unknown or duplicate ids, a type used twice,
    ///   a type or format a camera lacks, an fps above the format's maximum, cameras without
    ///   an outer and an inner camera, a virtual format above the shared limits, a ratio the
    ///   square cameras lack, out-of-range clocks, latencies, gap or times, people counts.
    func validateCameras(file: String) throws(ScenarioError) {
        func fail(_ key: String, _ problem: String, _ allowed: String) -> ScenarioError {
            ScenarioError(file: file, key: key, problem: problem, allowed: allowed)
        }
        guard let cameras, !cameras.isEmpty else {
            throw fail("cameras", "is empty", "an array of camera objects with an outer and an inner camera")
        }
        var ids: Set<String> = []
        var seenTypes: Set<CaptureDevice.DeviceType> = []
        for (i, camera) in cameras.enumerated() {
            let path = "cameras[\(i)]"
            guard !camera.id.isEmpty, camera.id != Self.virtualFrontID, ids.insert(camera.id).inserted else {
                throw fail("\(path).id", "\"\(Excerpt.of(camera.id))\" is empty, reserved or used twice",
                           "a unique non-empty id other than \(Self.virtualFrontID)")
            }
            guard Self.cameraTypes.contains(camera.type) else {
                throw fail("\(path).type", "\(camera.type.rawValue) is not an iPhone Duo camera",
                           Self.cameraTypes.map(\.rawValue).joined(separator: ", "))
            }
            guard seenTypes.insert(camera.type).inserted else {
                throw fail("\(path).type", "\(camera.type.rawValue) is used twice",
                           "each camera type once (one device per type on iPhone Duo)")
            }
            let names = camera.type.formats.map(\.name).joined(separator: ", ")
            guard let format = camera.activeFormat else {
                throw fail("\(path).format", "\(Excerpt.of(camera.format)) is not a format of \(camera.id) (\(camera.type.rawValue))",
                           "\(names) for \(camera.type.rawValue)")
            }
            try Self.checkRate(camera.fps, format: format, at: "\(path).fps", file: file)
            try Self.checkClock(camera.clock, at: "\(path).clock", file: file)
            if let mode = camera.preferredVideoStabilizationMode {
                try Self.checkStabilization(mode, type: camera.type, at: "\(path).preferredVideoStabilizationMode", file: file)
            }
        }
        let types = Set(cameras.map(\.type))
        guard types.contains(.builtInOuterUltraWideCamera), types.contains(.builtInInnerUltraWideCamera) else {
            throw fail("cameras", "has no \(types.contains(.builtInOuterUltraWideCamera) ? "builtInInnerUltraWideCamera" : "builtInOuterUltraWideCamera")",
                       "at least one builtInOuterUltraWideCamera and one builtInInnerUltraWideCamera (posture selects between them), optionally a builtInDualWideCamera")
        }
        switch (frontCamera, virtual) {
        case (.individual, .some):
            throw fail("virtual", "is given but \"frontCamera\" is \"individual\"", "\"virtual\" only with \"frontCamera\": \"virtual\"")
        case (.virtual, .none):
            throw fail("virtual", "is missing", "\"virtual\": {\"format\": 1920, \"fps\": 30, \"clock\": {…}} with \"frontCamera\": \"virtual\"")
        case (.virtual, .some(let virtual)):
            guard let format = CaptureDevice.Format.virtualFrontFormats.first(where: { $0.squareSide == virtual.format }) else {
                throw fail("virtual.format", "\(virtual.format) is above what the Virtual Front Camera offers", ScenarioLimits.virtualAllowed)
            }
            guard format.supports(frameRate: virtual.fps) else {
                throw fail("virtual.fps", "\(virtual.fps) fps is above what the Virtual Front Camera offers", ScenarioLimits.virtualAllowed)
            }
            try Self.checkRate(virtual.fps, format: format, at: "virtual.fps", file: file)
            try Self.checkClock(virtual.clock, at: "virtual.clock", file: file)
        case (.individual, .none):
            break
        }
        guard ScenarioLimits.latencyRange.contains(device.changeLatencyFrames) else {
            throw fail("changeLatencyFrames", "\(device.changeLatencyFrames) is out of range", ScenarioLimits.latencyAllowed)
        }
        guard ScenarioLimits.completionDelayRange.contains(device.completionDelayFrames) else {
            throw fail("completionDelayFrames", "\(device.completionDelayFrames) is out of range", ScenarioLimits.completionDelayAllowed)
        }
        guard switchGapSeconds.isFinite, (0...ScenarioLimits.maximumSwitchGapSeconds).contains(switchGapSeconds) else {
            throw fail("switchGapSeconds", "\(switchGapSeconds) is out of range", ScenarioLimits.switchGapAllowed)
        }
        guard sessionStartSeconds.isFinite, sessionStartSeconds >= 0,
              sessionStartSeconds <= ScenarioLimits.maximumSessionStartSeconds else {
            throw fail("sessionStartSeconds", "\(sessionStartSeconds) is out of range", ScenarioLimits.sessionStartAllowed)
        }
        guard durationSeconds.isFinite, durationSeconds > 0, durationSeconds <= ScenarioLimits.maximumDurationSeconds,
              duration > .zero else {
            throw fail("durationSeconds", "\(durationSeconds) is out of range", ScenarioLimits.durationAllowed)
        }
        for (i, event) in events.enumerated() {
            let path = "events[\(i)]"
            let timeAllowed = "seconds from session start, 0 ≤ atSeconds < durationSeconds (\(durationSeconds))"
            guard event.atSeconds.isFinite, event.atSeconds >= 0 else {
                throw fail("\(path).atSeconds", "\(event.atSeconds) is negative", timeAllowed)
            }
            guard Self.nanoseconds(event.atSeconds) < duration else {
                throw fail("\(path).atSeconds", "\(event.atSeconds) is at or past the end of the recording", timeAllowed)
            }
            let key = "\(path).\(event.action.key)"
            switch event.action {
            case .setDynamicAspectRatio, .posture:
                break  // decoded from the allowed spellings; the back camera fails at run time
            case .videoZoomFactor(let factor):
                do { try CaptureDevice.validateVideoZoomFactor(factor) } catch {
                    throw fail(key, "\(factor) is out of range", ScenarioLimits.zoomAllowed)
                }
            case .peopleInFrame(let count):
                // A fact about the scene: accepted on any camera at any time.
                guard ScenarioLimits.peopleRange.contains(count) else {
                    throw fail(key, "\(count) is out of range", ScenarioLimits.peopleAllowed)
                }
            case .deviceOrientation, .apply, .activeFormat, .smartFraming, .centerStageEnabled:
                try validateCamerasControlEvent(event, at: path, file: file)
            }
        }
        try rehearseEvents(file: file)
    }

    private static func checkRate(_ fps: FrameRate, format: CaptureDevice.Format, at key: String, file: String) throws(ScenarioError) {
        let allowed = "1 to \(format.maxFrameRate) fps for format \(format.name)"
        guard Int32(exactly: fps.numerator) != nil, Int32(exactly: fps.denominator) != nil else {
            throw ScenarioError(file: file, key: key, problem: "\(Excerpt.of(fps.description)) does not reduce to a fraction whose terms fit in 32 bits", allowed: allowed)
        }
        guard fps.numerator >= fps.denominator else {
            throw ScenarioError(file: file, key: key, problem: "\(fps) fps is below 1 fps", allowed: allowed)
        }
        guard format.supports(frameRate: fps) else {
            throw ScenarioError(file: file, key: key, problem: "\(fps) fps exceeds the \(format.name) format's maximum", allowed: allowed)
        }
    }

    private static func checkClock(_ clock: Clock, at path: String, file: String) throws(ScenarioError) {
        guard clock.timescale > 0 else {
            throw ScenarioError(file: file, key: "\(path).timescale", problem: "\(clock.timescale) is out of range", allowed: ScenarioLimits.timescaleAllowed)
        }
        guard clock.offsetSeconds.isFinite, abs(clock.offsetSeconds) <= ScenarioLimits.maximumOffsetSeconds else {
            throw ScenarioError(file: file, key: "\(path).offsetSeconds", problem: "\(clock.offsetSeconds) is out of range", allowed: ScenarioLimits.offsetAllowed)
        }
        guard clock.driftPPM.isFinite, abs(clock.driftPPM) <= ScenarioLimits.maximumDriftPPM else {
            throw ScenarioError(file: file, key: "\(path).driftPPM", problem: "\(clock.driftPPM) is out of range", allowed: ScenarioLimits.driftAllowed)
        }
    }
}
