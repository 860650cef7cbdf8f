/// Ranges a scenario's values must lie in, and their wording in error messages.
package enum ScenarioLimits {
    /// Formats a scenario may name (square sides).
    package static let formats = CaptureDevice.Format.frontCenterStageFormats.map(\.squareSide)
    /// Largest `sessionStartSeconds` (about 31.7 years of host uptime).
    package static let maximumSessionStartSeconds = 1_000_000_000.0
    /// Largest `durationSeconds` (7 days).
    package static let maximumDurationSeconds = 604_800.0
    /// `changeLatencyFrames` range.
    package static let latencyRange: ClosedRange<Int64> = 0...1000
    /// `completionDelayFrames` range.
    package static let completionDelayRange: ClosedRange<Int64> = -1000...1000
    /// `peopleInFrame` range.
    package static let peopleRange: ClosedRange<Int> = 0...100
    /// Largest |offsetSeconds| (100 years, as ``MediaClock`` accepts).
    package static let maximumOffsetSeconds = Double(MediaClock.maximumOffsetNanoseconds) / 1e9
    /// Largest |driftPPM| (1000 ppm).
    package static let maximumDriftPPM = Double(MediaClock.maximumDriftPartsPerBillion) / 1000
    /// Largest `switchGapSeconds`.
    package static let maximumSwitchGapSeconds = 10.0

    static let formatAllowed = formats.map(String.init).joined(separator: ", ")
    static let sessionStartAllowed = "a number of seconds, 0 ≤ sessionStartSeconds ≤ 1000000000"
    static let durationAllowed = "a number of seconds, 0 < durationSeconds ≤ 604800"
    static let latencyAllowed = "an integer number of frames, 0...1000"
    static let completionDelayAllowed = "an integer number of frames, -1000...1000"
    static let timescaleAllowed = "an integer number of ticks per second, 1...\(Int32.max)"
    static let offsetAllowed = "a number of seconds, |offsetSeconds| ≤ 3162240000 (100 years)"
    static let driftAllowed = "a number of parts per million, -1000...1000"
    static let zoomAllowed = "a number, \(CaptureDevice.videoZoomFactorRange.lowerBound)...\(CaptureDevice.videoZoomFactorRange.upperBound)"
    static let switchGapAllowed = "a number of seconds, 0...10"
    static let virtualAllowed =
        "format 1280 or 1920 at up to 60 fps (what the outer and inner cameras share); for 3840 or more than 60 fps use \"frontCamera\": \"individual\""
    static let peopleAllowed =
        "an integer, 0...100, on any format at any time: the people in the scene drive Center Stage's zoom "
        + "where Center Stage is active and smart framing's recommendations where smart framing runs (4032)"
}

extension Scenario {
    /// Checks every value against the camera model and ``ScenarioLimits``, the same way for
    /// one camera (`device`) and several (`cameras`); then every event the session rejects
    /// when it applies it (`rehearseEvents(file:)`).
    /// - Parameter file: the file name (or built-in name) used in messages.
    /// - Throws: ``ScenarioError`` naming `file`, the key path (`device.fps`,
    ///   `cameras[1].format`, `virtual.fps`, `events[2].posture`, …) and what is allowed: a
    ///   format the camera lacks, an fps above the format's maximum, an initial ratio the
    ///   format does not support, smart framing on a format without it; unknown or duplicate
    ///   camera ids, a type used twice, cameras without an outer and an inner camera, a
    ///   virtual format above the shared limits; out-of-range clock parameters, latencies,
    ///   gap or times, events before 0, at or past the end, zoom factors or people counts out
    ///   of range, posture events with one camera; then the rehearsal's: a ratio the format
    ///   in effect at its time does not list, an `activeFormat` the streaming camera lacks
    ///   or that lacks the ratio in effect.
    package func validate(file: String) throws(ScenarioError) {
        func fail(_ key: String, _ problem: String, _ allowed: String) -> ScenarioError {
            ScenarioError(file: file, key: key, problem: problem, allowed: allowed)
        }
        let format = cameras == nil ? try validateFrontCamera(file: file) : nil
        if cameras != nil { try validateCameraList(file: file) }
        let prefix = cameras == nil ? "device." : ""
        guard ScenarioLimits.latencyRange.contains(device.changeLatencyFrames) else {
            throw fail("\(prefix)changeLatencyFrames", "\(device.changeLatencyFrames) is out of range", ScenarioLimits.latencyAllowed)
        }
        guard ScenarioLimits.completionDelayRange.contains(device.completionDelayFrames) else {
            throw fail("\(prefix)completionDelayFrames", "\(device.completionDelayFrames) is out of range", ScenarioLimits.completionDelayAllowed)
        }
        if let format { try validateDeviceControls(format: format, file: file) }
        try validateMicrophone(file: file)
        guard switchGapSeconds.isFinite, (0...ScenarioLimits.maximumSwitchGapSeconds).contains(switchGapSeconds) else {
            throw fail("switchGapSeconds", "\(switchGapSeconds) is out of range", ScenarioLimits.switchGapAllowed)
        }
        if let format, device.smartFraming && !format.isSmartFramingSupported {
            throw fail("device.smartFraming", "format \(format.squareSide) has no smart framing", "true only with format 4032; false otherwise")
        }
        guard sessionStartSeconds.isFinite, sessionStartSeconds >= 0, sessionStartSeconds <= ScenarioLimits.maximumSessionStartSeconds else {
            throw fail("sessionStartSeconds", "\(sessionStartSeconds) is out of range", ScenarioLimits.sessionStartAllowed)
        }
        guard durationSeconds.isFinite, durationSeconds > 0, durationSeconds <= ScenarioLimits.maximumDurationSeconds, duration > .zero else {
            throw fail("durationSeconds", "\(durationSeconds) is out of range", ScenarioLimits.durationAllowed)
        }
        for (i, event) in events.enumerated() {
            let path = "events[\(i)]"
            let timeAllowed = "seconds from session start, 0 ≤ atSeconds < durationSeconds (\(durationSeconds))"
            guard event.atSeconds.isFinite, event.atSeconds >= 0 else { throw fail("\(path).atSeconds", "\(event.atSeconds) is negative", timeAllowed) }
            guard Self.nanoseconds(event.atSeconds) < duration else {
                throw fail("\(path).atSeconds", "\(event.atSeconds) is at or past the end of the recording", timeAllowed)
            }
            let key = "\(path).\(event.action.key)"
            switch event.action {
            case .setDynamicAspectRatio: break  // decoded from the allowed spellings; the format in effect then is the rehearsal's to check
            case .videoZoomFactor(let factor):
                do { try CaptureDevice.validateVideoZoomFactor(factor) } catch { throw fail(key, "\(factor) is out of range", ScenarioLimits.zoomAllowed) }
            case .peopleInFrame(let count):
                // A fact about the scene: accepted whatever the camera does with it.
                guard ScenarioLimits.peopleRange.contains(count) else { throw fail(key, "\(count) is out of range", ScenarioLimits.peopleAllowed) }
            case .moveView, .drivingView: break  // validateViews
            case .posture:
                guard cameras != nil else {
                    throw fail(
                        key, "needs several cameras, but this scenario describes one (\"device\")",
                        "posture events only in a scenario with \"cameras\" (DESIGN.md, \"Cameras\")")
                }
            case .deviceOrientation, .apply, .activeFormat, .smartFraming, .centerStageEnabled, .userCenterStageEnabled, .depthDataDeliveryEnabled,
                .geometricDistortionCorrectionEnabled:
                try validateControlEvent(event, at: path, format: format, file: file)
            }
        }
        try validateViews(file: file)
        try rehearseEvents(file: file)
    }

    /// `device`: its format, fps, initial ratio and clock. - Returns: the format.
    private func validateFrontCamera(file: String) throws(ScenarioError) -> CaptureDevice.Format {
        if let name = device.fixedFormat {
            // The earlier front camera: a fixed 4:3 format; its ratio is its own.
            guard let format = device.type.formats.first(where: { $0.name == name }) else {
                throw ScenarioError(
                    file: file, key: "device.format", problem: "\(Excerpt.of(name)) is not a format of \(device.type.rawValue)",
                    allowed: device.type.formats.map(\.name).joined(separator: ", "))
            }
            try Self.checkRate(device.fps, format: format, at: "device.fps", file: file, device: true)
            try Self.checkClock(device.clock, at: "device.clock", file: file)
            return format
        }
        guard let format = CaptureDevice.Format.frontCenterStage(squareSide: device.format) else {
            throw ScenarioError(
                file: file, key: "device.format", problem: "\(device.format) is not a front camera format", allowed: ScenarioLimits.formatAllowed)
        }
        try Self.checkRate(device.fps, format: format, at: "device.fps", file: file, device: true)
        guard format.supportedDynamicAspectRatios.contains(device.initialAspectRatio) else {
            let ratios = format.supportedDynamicAspectRatios.map(\.rawValue).joined(separator: ", ")
            throw ScenarioError(
                file: file, key: "device.initialAspectRatio", problem: "\(device.initialAspectRatio.rawValue) is not supported by format \(format.squareSide)",
                allowed: "\(ratios) for format \(format.squareSide)")
        }
        try Self.checkClock(device.clock, at: "device.clock", file: file)
        return format
    }

    /// `cameras` (ids, types, formats, rates, clocks, stabilization modes) and `virtual`.
    private func validateCameraList(file: String) throws(ScenarioError) {
        func fail(_ key: String, _ problem: String, _ allowed: String) -> ScenarioError {
            ScenarioError(file: file, key: key, problem: problem, allowed: allowed)
        }
        guard let cameras, !cameras.isEmpty else { throw fail("cameras", "is empty", "an array of camera objects with an outer and an inner camera") }
        var ids: Set<String> = []
        var seenTypes: Set<CaptureDevice.DeviceType> = []
        for (i, camera) in cameras.enumerated() {
            let path = "cameras[\(i)]"
            guard !camera.id.isEmpty, camera.id != Self.virtualFrontID, ids.insert(camera.id).inserted else {
                throw fail(
                    "\(path).id", "\"\(Excerpt.of(camera.id))\" is empty, reserved or used twice", "a unique non-empty id other than \(Self.virtualFrontID)")
            }
            guard Self.cameraTypes.contains(camera.type) else {
                throw fail("\(path).type", "\(camera.type.rawValue) is not an iPhone Duo camera", Self.cameraTypes.map(\.rawValue).joined(separator: ", "))
            }
            guard seenTypes.insert(camera.type).inserted else {
                throw fail("\(path).type", "\(camera.type.rawValue) is used twice", "each camera type once (one device per type on iPhone Duo)")
            }
            let names = camera.type.formats.map(\.name).joined(separator: ", ")
            guard let format = camera.activeFormat else {
                throw fail(
                    "\(path).format", "\(Excerpt.of(camera.format)) is not a format of \(camera.id) (\(camera.type.rawValue))",
                    "\(names) for \(camera.type.rawValue)")
            }
            try Self.checkRate(camera.fps, format: format, at: "\(path).fps", file: file)
            try Self.checkClock(camera.clock, at: "\(path).clock", file: file)
            if let mode = camera.preferredVideoStabilizationMode {
                try Self.checkStabilization(mode, type: camera.type, format: format, at: "\(path).preferredVideoStabilizationMode", file: file)
            }
        }
        let types = Set(cameras.map(\.type))
        guard types.contains(.builtInOuterUltraWideCamera), types.contains(.builtInInnerUltraWideCamera) else {
            throw fail(
                "cameras", "has no \(types.contains(.builtInOuterUltraWideCamera) ? "builtInInnerUltraWideCamera" : "builtInOuterUltraWideCamera")",
                "at least one builtInOuterUltraWideCamera and one builtInInnerUltraWideCamera (posture selects between them), optionally a builtInDualWideCamera"
            )
        }
        switch (frontCamera, virtual) {
        case (.individual, .some): throw fail("virtual", "is given but \"frontCamera\" is \"individual\"", "\"virtual\" only with \"frontCamera\": \"virtual\"")
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
            if let mode = virtual.preferredVideoStabilizationMode {
                try Self.checkStabilization(mode, type: .builtInVirtualFrontCamera, format: format, at: "virtual.preferredVideoStabilizationMode", file: file)
            }
        case (.individual, .none): break
        }
        if frontCamera == .virtual { for (i, camera) in cameras.enumerated() { try checkConstituentSettings(camera, at: "cameras[\(i)]", file: file) } }
    }

    /// A camera's `fps` on `format`: terms that fit the encoder's 32-bit time base, at least
    /// 1 fps (a frame must not last longer than a segment file can store, see
    /// SegmentMuxer.maximumFrameDuration), at most the format's maximum. `device` words
    /// the allowed range as its messages always have.
    private static func checkRate(_ fps: FrameRate, format: CaptureDevice.Format, at key: String, file: String, device: Bool = false) throws(ScenarioError) {
        let allowed = "1 to \(format.maxFrameRate) fps for format \(format.name)"
        guard Int32(exactly: fps.numerator) != nil, Int32(exactly: fps.denominator) != nil else {
            throw ScenarioError(
                file: file, key: key, problem: "\(Excerpt.of(fps.description)) does not reduce to a fraction whose terms fit in 32 bits",
                allowed: device ? "a rate n/d with n and d ≤ \(Int32.max) once reduced, " + allowed : allowed)
        }
        guard fps.numerator >= fps.denominator else { throw ScenarioError(file: file, key: key, problem: "\(fps) fps is below 1 fps", allowed: allowed) }
        guard format.supports(frameRate: fps) else {
            throw ScenarioError(
                file: file, key: key, problem: "\(fps) fps exceeds the \(format.name) format's maximum",
                allowed: device ? "up to \(format.maxFrameRate) fps for format \(format.name)" : allowed)
        }
    }

    static func checkClock(_ clock: Clock, at path: String, file: String) throws(ScenarioError) {
        guard clock.timescale > 0 else {
            throw ScenarioError(file: file, key: "\(path).timescale", problem: "\(clock.timescale) is out of range", allowed: ScenarioLimits.timescaleAllowed)
        }
        guard clock.offsetSeconds.isFinite, abs(clock.offsetSeconds) <= ScenarioLimits.maximumOffsetSeconds else {
            throw ScenarioError(
                file: file, key: "\(path).offsetSeconds", problem: "\(clock.offsetSeconds) is out of range", allowed: ScenarioLimits.offsetAllowed)
        }
        guard clock.driftPPM.isFinite, abs(clock.driftPPM) <= ScenarioLimits.maximumDriftPPM else {
            throw ScenarioError(file: file, key: "\(path).driftPPM", problem: "\(clock.driftPPM) is out of range", allowed: ScenarioLimits.driftAllowed)
        }
    }
}
