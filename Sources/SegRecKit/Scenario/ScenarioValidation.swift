/// Ranges a scenario's values must lie in, and their wording in error messages.
public enum ScenarioLimits {
    /// Formats a scenario may name (square sides).
    public static let formats = CaptureDevice.Format.frontCenterStageFormats.map(\.squareSide)
    /// Largest `sessionStartSeconds` (about 31.7 years of host uptime).
    public static let maximumSessionStartSeconds = 1_000_000_000.0
    /// Largest `durationSeconds` (7 days).
    public static let maximumDurationSeconds = 604_800.0
    /// `changeLatencyFrames` range.
    public static let latencyRange: ClosedRange<Int64> = 0...1000
    /// `completionDelayFrames` range.
    public static let completionDelayRange: ClosedRange<Int64> = -1000...1000
    /// `peopleInFrame` range.
    public static let peopleRange: ClosedRange<Int> = 0...100
    /// Largest |offsetSeconds| (100 years, as ``MediaClock`` accepts).
    public static let maximumOffsetSeconds = Double(MediaClock.maximumOffsetNanoseconds) / 1e9
    /// Largest |driftPPM| (1000 ppm).
    public static let maximumDriftPPM = Double(MediaClock.maximumDriftPartsPerBillion) / 1000

    static let formatAllowed = formats.map(String.init).joined(separator: ", ")
    static let sessionStartAllowed = "a number of seconds, 0 ≤ sessionStartSeconds ≤ 1000000000"
    static let durationAllowed = "a number of seconds, 0 < durationSeconds ≤ 604800"
    static let latencyAllowed = "an integer number of frames, 0...1000"
    static let completionDelayAllowed = "an integer number of frames, -1000...1000"
    static let timescaleAllowed = "an integer number of ticks per second, 1...\(Int32.max)"
    static let offsetAllowed = "a number of seconds, |offsetSeconds| ≤ 3162240000 (100 years)"
    static let driftAllowed = "a number of parts per million, -1000...1000"
    static let zoomAllowed = "a number, \(CaptureDevice.videoZoomFactorRange.lowerBound)...\(CaptureDevice.videoZoomFactorRange.upperBound)"
    static let peopleAllowed = "an integer, 0...100, on any format at any time: the people in the scene drive Center Stage's zoom "
        + "where Center Stage is active and smart framing's recommendations where smart framing runs (4032)"
}

extension Scenario {
    /// Checks every value against the camera model and ``ScenarioLimits``.
    /// - Parameter file: the file name (or built-in name) used in messages.
    /// - Throws: ``ScenarioError`` naming `file`, the key path and what is allowed: a format
    ///   that is not one of the four, an fps above the format's maximum, a ratio the format
    ///   does not support (including `initialAspectRatio`), smart framing on a format without
    ///   it, out-of-range clock parameters, latencies or times, events before 0, at or past
    ///   the end, zoom factors out of range, people counts out of range; then every event
    ///   the session rejects when it applies it (``rehearseEvents(file:)``: an
    ///   `activeFormat` lacking the ratio in effect at its time).
    public func validate(file: String) throws(ScenarioError) {
        if cameras != nil { return try validateCameras(file: file) }
        func fail(_ key: String, _ problem: String, _ allowed: String) -> ScenarioError {
            ScenarioError(file: file, key: key, problem: problem, allowed: allowed)
        }
        guard let format = CaptureDevice.Format.frontCenterStage(squareSide: device.format) else {
            throw fail("device.format", "\(device.format) is not a front camera format", ScenarioLimits.formatAllowed)
        }
        let ratios = format.supportedDynamicAspectRatios.map(\.rawValue).joined(separator: ", ")
        // A frame must not last longer than a segment file can store (see
        // SegmentMuxer.maximumFrameDuration); no camera runs below 1 fps.
        // The encoder's time base is an AVRational of two 32-bit ints.
        guard Int32(exactly: device.fps.numerator) != nil, Int32(exactly: device.fps.denominator) != nil else {
            throw fail("device.fps", "\(Excerpt.of(device.fps.description)) does not reduce to a fraction whose terms fit in 32 bits",
                       "a rate n/d with n and d ≤ \(Int32.max) once reduced, 1 to \(format.maxFrameRate) fps for format \(format.squareSide)")
        }
        guard device.fps.numerator >= device.fps.denominator else {
            throw fail("device.fps", "\(device.fps) fps is below 1 fps",
                       "1 to \(format.maxFrameRate) fps for format \(format.squareSide)")
        }
        guard format.supports(frameRate: device.fps) else {
            throw fail("device.fps", "\(device.fps) fps exceeds the \(format.squareSide) format's maximum",
                       "up to \(format.maxFrameRate) fps for format \(format.squareSide)")
        }
        guard format.supportedDynamicAspectRatios.contains(device.initialAspectRatio) else {
            throw fail("device.initialAspectRatio",
                       "\(device.initialAspectRatio.rawValue) is not supported by format \(format.squareSide)",
                       "\(ratios) for format \(format.squareSide)")
        }
        guard device.clock.timescale > 0 else {
            throw fail("device.clock.timescale", "\(device.clock.timescale) is out of range", ScenarioLimits.timescaleAllowed)
        }
        guard device.clock.offsetSeconds.isFinite, abs(device.clock.offsetSeconds) <= ScenarioLimits.maximumOffsetSeconds else {
            throw fail("device.clock.offsetSeconds", "\(device.clock.offsetSeconds) is out of range", ScenarioLimits.offsetAllowed)
        }
        guard device.clock.driftPPM.isFinite, abs(device.clock.driftPPM) <= ScenarioLimits.maximumDriftPPM else {
            throw fail("device.clock.driftPPM", "\(device.clock.driftPPM) is out of range", ScenarioLimits.driftAllowed)
        }
        guard ScenarioLimits.latencyRange.contains(device.changeLatencyFrames) else {
            throw fail("device.changeLatencyFrames", "\(device.changeLatencyFrames) is out of range", ScenarioLimits.latencyAllowed)
        }
        guard ScenarioLimits.completionDelayRange.contains(device.completionDelayFrames) else {
            throw fail("device.completionDelayFrames", "\(device.completionDelayFrames) is out of range",
                       ScenarioLimits.completionDelayAllowed)
        }
        try validateDeviceControls(format: format, file: file)
        if device.smartFraming && !format.isSmartFramingSupported {
            throw fail("device.smartFraming", "format \(format.squareSide) has no smart framing",
                       "true only with format 4032; false otherwise")
        }
        guard sessionStartSeconds.isFinite, sessionStartSeconds >= 0,
              sessionStartSeconds <= ScenarioLimits.maximumSessionStartSeconds else {
            throw fail("sessionStartSeconds", "\(sessionStartSeconds) is out of range", ScenarioLimits.sessionStartAllowed)
        }
        guard durationSeconds.isFinite, durationSeconds > 0, durationSeconds <= ScenarioLimits.maximumDurationSeconds,
              duration > .zero else {
            throw fail("durationSeconds", "\(durationSeconds) is out of range", ScenarioLimits.durationAllowed)
        }
        let activeFormats = activeFormatsByEvent(initial: format)
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
            case .setDynamicAspectRatio(let ratio):
                // The format in effect then (an earlier apply or activeFormat may have switched it).
                let active = activeFormats[i] ?? format
                guard active.supportedDynamicAspectRatios.contains(ratio) else {
                    let listed = active.supportedDynamicAspectRatios.map(\.rawValue).joined(separator: ", ")
                    throw fail(key, "\(ratio.rawValue) is not supported by format \(active.squareSide)",
                               "\(listed) for format \(active.squareSide)")
                }
            case .videoZoomFactor(let factor):
                do { try CaptureDevice.validateVideoZoomFactor(factor) } catch {
                    throw fail(key, "\(factor) is out of range", ScenarioLimits.zoomAllowed)
                }
            case .peopleInFrame(let count):
                // A fact about the scene: accepted whatever the camera does with it.
                guard ScenarioLimits.peopleRange.contains(count) else {
                    throw fail(key, "\(count) is out of range", ScenarioLimits.peopleAllowed)
                }
            case .posture:
                throw fail(key, "needs several cameras, but this scenario describes one (\"device\")",
                           "posture events only in a scenario with \"cameras\" (DESIGN.md, \"Cameras\")")
            case .deviceOrientation, .apply, .activeFormat, .smartFraming, .centerStageEnabled:
                try validateControlEvent(event, at: path, format: format, file: file)
            }
        }
        try rehearseEvents(file: file)
    }
}
