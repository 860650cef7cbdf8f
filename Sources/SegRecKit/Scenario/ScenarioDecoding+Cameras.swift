extension Scenario {
    /// Keys allowed at the top level of a scenario with `cameras` (DESIGN.md, "Cameras", "Schema").
    public static let camerasTopLevelKeys = ["description", "cameras", "frontCamera", "virtual", "initialPosture",
                                             "initialAspectRatio", "changeLatencyFrames", "completionDelayFrames",
                                             "switchGapSeconds", "sessionStartSeconds", "durationSeconds", "events"]
        + controlTopLevelKeys
    /// Keys allowed in each `cameras[i]`.
    public static let cameraKeys = ["id", "type", "format", "fps", "clock", "preferredVideoStabilizationMode"]
    /// Keys allowed in `virtual`.
    public static let virtualKeys = ["format", "fps", "clock"]
    /// The action keys of an event in a cameras scenario.
    public static let cameraActionKeys = actionKeys + ["posture"]
}

extension ScenarioReader {
    /// A scenario with `cameras` (never with `device`).
    func camerasScenario(from root: JSONValue) throws(ScenarioError) -> Scenario {
        if case .object(let fields) = root, fields["device"] != nil {
            throw error("device", "is given together with \"cameras\"",
                        "either \"device\" (one camera) or \"cameras\" (several), never both")
        }
        let top = try object(root, at: "", allowed: Scenario.camerasTopLevelKeys)
        var scenario = Scenario(name: file, durationSeconds: 0)
        if let value = top["description"] { scenario.summary = try string(value, at: "description", allowed: "a string") }
        guard case .array(let items)? = top["cameras"] else {
            throw error("cameras", "expected an array, got \(top["cameras"]?.rendered ?? "nothing")",
                        "an array of camera objects with keys " + Scenario.cameraKeys.joined(separator: ", "))
        }
        var cameras: [Scenario.Camera] = []
        for (i, item) in items.enumerated() { cameras.append(try camera(item, at: "cameras[\(i)]")) }
        scenario.cameras = cameras
        if let v = top["frontCamera"] {
            let text = try string(v, at: "frontCamera", allowed: FrontCameraStrategy.allowedValues)
            guard let strategy = FrontCameraStrategy(rawValue: text) else {
                throw error("frontCamera", "\"\(Excerpt.of(text))\" is not a switching strategy", FrontCameraStrategy.allowedValues)
            }
            scenario.frontCamera = strategy
        }
        if let v = top["virtual"] { scenario.virtual = try virtualCamera(v, at: "virtual") }
        try readControls(top, into: &scenario)
        if let v = top["initialPosture"] {
            let text = try string(v, at: "initialPosture", allowed: DevicePosture.allowedValues)
            guard let posture = DevicePosture(rawValue: text) else {
                throw error("initialPosture", "\"\(Excerpt.of(text))\" is not a posture", DevicePosture.allowedValues)
            }
            scenario.initialPosture = posture
        }
        if let v = top["initialAspectRatio"] { scenario.device.initialAspectRatio = try ratio(v, at: "initialAspectRatio") }
        if let v = top["changeLatencyFrames"] {
            scenario.device.changeLatencyFrames = try integer(v, at: "changeLatencyFrames", allowed: ScenarioLimits.latencyAllowed)
        } else {
            scenario.device.isChangeLatencyExplicit = false
        }
        if let v = top["completionDelayFrames"] {
            scenario.device.completionDelayFrames = try integer(v, at: "completionDelayFrames",
                                                                allowed: ScenarioLimits.completionDelayAllowed)
        }
        if let v = top["switchGapSeconds"] {
            scenario.switchGapSeconds = try number(v, at: "switchGapSeconds", allowed: ScenarioLimits.switchGapAllowed)
        }
        if let v = top["sessionStartSeconds"] {
            scenario.sessionStartSeconds = try number(v, at: "sessionStartSeconds", allowed: ScenarioLimits.sessionStartAllowed)
        }
        guard let duration = top["durationSeconds"] else {
            throw error("durationSeconds", "is missing", ScenarioLimits.durationAllowed)
        }
        scenario.durationSeconds = try number(duration, at: "durationSeconds", allowed: ScenarioLimits.durationAllowed)
        if let value = top["events"] {
            guard case .array(let items) = value else {
                throw error("events", "expected an array, got \(value.rendered)", "an array of event objects")
            }
            for (i, item) in items.enumerated() {
                scenario.events.append(try event(item, at: "events[\(i)]", actionKeys: Scenario.cameraActionKeys))
            }
        }
        return scenario
    }

    func camera(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.Camera {
        let fields = try object(value, at: path, allowed: Scenario.cameraKeys)
        guard let idValue = fields["id"] else { throw error("\(path).id", "is missing", "a unique camera id string") }
        let id = try string(idValue, at: "\(path).id", allowed: "a unique camera id string")
        let types = Scenario.cameraTypes.map(\.rawValue).joined(separator: ", ")
        guard let typeValue = fields["type"] else { throw error("\(path).type", "is missing", types) }
        let typeText = try string(typeValue, at: "\(path).type", allowed: types)
        guard let type = CaptureDevice.DeviceType(rawValue: typeText), Scenario.cameraTypes.contains(type) else {
            throw error("\(path).type", "\"\(Excerpt.of(typeText))\" is not an iPhone Duo camera type", types)
        }
        let formats = type.formats.map(\.name).joined(separator: ", ")
        guard let formatValue = fields["format"] else { throw error("\(path).format", "is missing", "\(formats) for \(typeText)") }
        let format: String
        switch formatValue {
        case .integer(let n): format = "\(n)"
        case .string(let s): format = s
        default: throw error("\(path).format", "expected a number or \"WxH\", got \(formatValue.rendered)", "\(formats) for \(typeText)")
        }
        var camera = Scenario.Camera(id: id, type: type, format: format)
        if let v = fields["fps"] { camera.fps = try frameRate(v, at: "\(path).fps") }
        if let v = fields["clock"] { camera.clock = try clock(v, at: "\(path).clock") }
        if let v = fields["preferredVideoStabilizationMode"] {
            camera.preferredVideoStabilizationMode = try stabilizationMode(v, at: "\(path).preferredVideoStabilizationMode")
        }
        return camera
    }

    func virtualCamera(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.VirtualCamera {
        let fields = try object(value, at: path, allowed: Scenario.virtualKeys)
        var virtual = Scenario.VirtualCamera()
        if let v = fields["format"] {
            virtual.format = Int(truncatingIfNeeded: try integer(v, at: "\(path).format", allowed: ScenarioLimits.virtualAllowed))
        }
        if let v = fields["fps"] { virtual.fps = try frameRate(v, at: "\(path).fps") }
        if let v = fields["clock"] { virtual.clock = try clock(v, at: "\(path).clock") }
        return virtual
    }
}
