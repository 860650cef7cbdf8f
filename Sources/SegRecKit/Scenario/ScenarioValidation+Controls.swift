extension Scenario {
    /// `device.preferredVideoStabilizationMode` and `device.enabledFramings` of a one-camera scenario.
    /// - Throws: ``ScenarioError`` naming the key and the supported values.
    func validateDeviceControls(format: CaptureDevice.Format, file: String) throws(ScenarioError) {
        if let mode = device.preferredVideoStabilizationMode {
            try Self.checkStabilization(mode, type: device.type, format: format, at: "device.preferredVideoStabilizationMode", file: file)
        }
        // The app's choice for the camera's smart framing format (4032), whichever format
        // is active at start: a `smartFraming` start makes that format active first.
        if let framings = device.enabledFramings, !framings.isEmpty,
            let smartFormat = CaptureDevice.Format.frontCenterStageFormats.first(where: \.isSmartFramingSupported)
        {
            let supported = SmartFramingMonitor(format: smartFormat).supportedFramings.map(\.name)
            for (i, name) in framings.enumerated() where !supported.contains(name) {
                throw ScenarioError(
                    file: file, key: "device.enabledFramings[\(i)]", problem: "\"\(Excerpt.of(name))\" is not a supported framing",
                    allowed: supported.joined(separator: ", "))
            }
            var firstIndex: [String: Int] = [:]
            for (i, name) in framings.enumerated() {
                if let first = firstIndex[name] {
                    throw ScenarioError(
                        file: file, key: "device.enabledFramings[\(i)]", problem: "\(name) is listed twice (also device.enabledFramings[\(first)])",
                        allowed: "each framing once: " + supported.joined(separator: ", "))
                }
                firstIndex[name] = i
            }
        }
    }

    /// A constituent camera's own settings in virtual mode (`"frontCamera": "virtual"`): the
    /// session streams from the Virtual Front Camera, so the video connection (and its
    /// stabilization mode) is the virtual camera's and depth exists only on individual
    /// cameras, as the seeds say. A constituent's rate, stabilization mode, depth or
    /// distortion correction would be reported or kept and never applied: each is refused,
    /// naming the key. (Its `format` and `clock` describe the camera: the manifest's
    /// `devices` entry reports its clock and whether its format supports Center Stage.)
    /// - Throws: ``ScenarioError`` naming `cameras[i].<key>` and where the setting belongs.
    func checkConstituentSettings(_ camera: Camera, at path: String, file: String) throws(ScenarioError) {
        // How the scenario chose the Virtual Front Camera: the file's own words.
        let chosen = discovery == nil ? "with \"frontCamera\": \"virtual\"" : "with the discovery finding the Virtual Front Camera"
        if camera.isFrameRateGiven {
            throw ScenarioError(
                file: file, key: "\(path).fps",
                problem: "\(camera.fps) fps on \(camera.id) would not be applied: \(chosen) every frame is the Virtual Front Camera's",
                allowed: "no fps on the cameras in virtual mode: the rate is \"virtual\": {\"fps\": …} (or \"frontCamera\": \"individual\")")
        }
        if let mode = camera.preferredVideoStabilizationMode {
            throw ScenarioError(
                file: file, key: "\(path).preferredVideoStabilizationMode",
                problem: "\(mode.rawValue) on \(camera.id) would not be applied: \(chosen) the video connection is the Virtual Front Camera's",
                allowed: "\"virtual\": {\"preferredVideoStabilizationMode\": …} (or \"frontCamera\": \"individual\" for the camera's own)")
        }
        if camera.depthDataDeliveryEnabled {
            throw ScenarioError(
                file: file, key: "\(path).depthDataDeliveryEnabled",
                problem: "depth on \(camera.id) would not be applied: the session streams from the Virtual Front Camera, which has no depth",
                allowed: "depth data delivery only on individual cameras: \"frontCamera\": \"individual\"")
        }
        if camera.geometricDistortionCorrectionEnabled {
            throw ScenarioError(
                file: file, key: "\(path).geometricDistortionCorrectionEnabled",
                problem: "distortion correction on \(camera.id) would not be applied: the session streams from the Virtual Front Camera",
                allowed:
                    "an event {\"atSeconds\": 0, \"geometricDistortionCorrectionEnabled\": true} (it applies to the streaming camera), or \"frontCamera\": \"individual\""
            )
        }
    }

    /// `preferredVideoStabilizationMode` on a camera of `type` whose active format at start
    /// is `format` (checked against that format, as the seeds' code checks
    /// `activeFormat.isVideoStabilizationModeSupported`).
    /// - Throws: ``ScenarioError`` naming the supported modes (`lowLatency` only on the
    ///   Center Stage front cameras, on their 1280 and 1920 formats).
    static func checkStabilization(_ mode: VideoStabilizationMode, type: CaptureDevice.DeviceType, format: CaptureDevice.Format, at key: String, file: String)
        throws(ScenarioError)
    {
        do {
            try mode.validate(deviceType: type.rawValue)
            let supported = try VideoStabilizationMode.supportedModes(
                deviceType: type.rawValue, squareSide: format.fixedDimensions == nil ? format.squareSide : nil)
            guard supported.contains(mode) else {
                throw ScenarioError(
                    file: file, key: key, problem: "\(mode.rawValue) is not supported by the \(format.name) format of \(type.rawValue)",
                    allowed: supported.map(\.rawValue).joined(separator: ", ") + " (lowLatency on the Center Stage formats, 1280 and 1920)")
            }
        } catch let error as ScenarioError { throw error } catch {
            let supported = (try? VideoStabilizationMode.supportedModes(deviceType: type.rawValue)) ?? []
            throw ScenarioError(
                file: file, key: key, problem: "\(mode.rawValue) is not supported by \(type.rawValue)",
                allowed: supported.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// An orientation, format or Center Stage event, with the one front
    /// camera's initial `format` or with cameras (`nil`). An `activeFormat` must name a format
    /// of the front camera or of some camera (whether the camera streaming then has it and
    /// whether it lists the ratio in effect at its time, which depends on the change latency,
    /// is checked by ``rehearseEvents(file:)``). A `smartFraming` start on a camera without
    /// a smart framing format is no error of the file: the app's `start()` throws at its
    /// time, the session logs it and goes on.
    func validateControlEvent(_ event: Event, at path: String, format: CaptureDevice.Format?, file: String) throws(ScenarioError) {
        let key = "\(path).\(event.action.key)"
        switch event.action {
        case .activeFormat(let name):
            guard let cameras else {
                // The one camera's own formats: the Center Stage camera's, or the earlier
                // front camera's fixed 4:3 ones.
                let formats = device.type.formats
                guard formats.contains(where: { $0.name == name }) else {
                    throw ScenarioError(
                        file: file, key: key,
                        problem: "\(Self.echoFormat(name)) is not a format of the front camera"
                            + (device.type == .builtInUltraWideCamera ? "" : " (\(device.type.rawValue))"), allowed: formats.map(\.name).joined(separator: ", ")
                    )
                }
                return
            }
            guard frontCamera == .individual else {
                throw ScenarioError(
                    file: file, key: key, problem: "the Virtual Front Camera cannot switch formats",
                    allowed: "activeFormat only with \"frontCamera\": \"individual\"")
            }
            guard cameras.contains(where: { $0.type.formats.contains { $0.name == name } }) else {
                throw ScenarioError(
                    file: file, key: key, problem: "\(Self.echoFormat(name)) is a format of no camera",
                    allowed: cameras.map { "\($0.id): " + $0.type.formats.map(\.name).joined(separator: ", ") }.joined(separator: "; "))
            }
        case .centerStageEnabled(let enabled): try checkCenterStageToggle(enabled, key: key, file: file)
        case .depthDataDeliveryEnabled(true) where cameras != nil && frontCamera == .virtual:
            throw ScenarioError(
                file: file, key: key, problem: "the Virtual Front Camera has no depth (it offers only what the outer and inner cameras share)",
                allowed: "depth data delivery only on the individual cameras: \"frontCamera\": \"individual\"")
        default: break
        }
    }

    /// A format name as messages echo it: a number or `WxH` as written (the file may give it
    /// as a JSON number), anything else quoted and shortened.
    static func echoFormat(_ name: String) -> String {
        let plain = !name.isEmpty && name.count <= 24 && name.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "x" || $0 == "-" || $0 == ".") }
        return plain ? name : "\"\(Excerpt.of(name))\""
    }

    private func checkCenterStageToggle(_ enabled: Bool, key: String, file: String) throws(ScenarioError) {
        guard centerStageControlMode.allows(.app) else {
            let allowed = CenterStageControl.ControlMode.allCases.filter { $0.allows(.app) }.map(\.rawValue)
            throw ScenarioError(
                file: file, key: key,
                problem: "the app cannot turn Center Stage \(enabled ? "on" : "off") while centerStageControlMode is \(centerStageControlMode.rawValue)",
                allowed: "\"centerStageControlMode\": " + allowed.joined(separator: " or "))
        }
    }
}
