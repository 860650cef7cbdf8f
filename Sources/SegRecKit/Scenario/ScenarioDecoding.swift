import Foundation

extension Scenario {
    /// Keys allowed at the top level of a scenario file.
    package static let topLevelKeys =
        ["description", "device", "sessionStartSeconds", "durationSeconds", "events"] + controlTopLevelKeys + ["switchGapSeconds", "microphone"]
    /// Keys allowed in `device`.
    package static let deviceKeys = [
        "type", "format", "fps", "initialAspectRatio", "clock", "changeLatencyFrames", "completionDelayFrames", "smartFraming",
        "preferredVideoStabilizationMode", "enabledFramings", "smartFramingPolicy", "depthDataDeliveryEnabled", "geometricDistortionCorrectionEnabled"
    ]
    /// Keys allowed in `device.clock`.
    package static let clockKeys = ["timescale", "offsetSeconds", "driftPPM"]
    /// The action keys of an event; each event has exactly one.
    package static let actionKeys = ["setDynamicAspectRatio", "videoZoomFactor", "peopleInFrame"] + controlActionKeys
    /// Keys allowed at the top level of a scenario with `cameras` (Docs/cameras.md, "Scenario files").
    package static let camerasTopLevelKeys =
        [
            "description", "cameras", "frontCamera", "discovery", "views", "drivingView", "virtual", "initialPosture", "initialAspectRatio",
            "changeLatencyFrames", "completionDelayFrames", "switchGapSeconds", "sessionStartSeconds", "durationSeconds", "events", "microphone"
        ] + controlTopLevelKeys
    /// Keys allowed in each `cameras[i]`.
    package static let cameraKeys = [
        "id", "type", "format", "fps", "clock", "preferredVideoStabilizationMode", "depthDataDeliveryEnabled", "geometricDistortionCorrectionEnabled"
    ]
    /// Keys allowed in `discovery`.
    package static let discoveryKeys = ["deviceTypes", "position"]
    /// Keys allowed in `virtual`.
    package static let virtualKeys = ["format", "fps", "clock", "preferredVideoStabilizationMode"]
    /// The action keys of an event in a cameras scenario.
    package static let cameraActionKeys = actionKeys + ["posture", "moveView", "drivingView"]

    /// Decodes and validates a scenario file's JSON (strict: unknown keys and wrong types are
    /// errors; missing optional keys take the documented defaults).
    /// - Parameters: `data`: the JSON; `file`: the name used in messages and, without its
    ///   extension and directories, as ``name``.
    /// - Throws: ``ScenarioError`` naming `file`, the key path and what is allowed.
    public static func decode(_ data: Data, file: String) throws(ScenarioError) -> Scenario {
        let root: JSONValue
        do { root = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
            throw ScenarioError(
                file: file, key: "", problem: "not valid JSON (\(error.localizedDescription))",
                allowed: "a JSON object as described in DESIGN.md, \"Scenario files\"")
        }
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            throw ScenarioError(
                file: file, key: duplicate.path, problem: "duplicate key (second occurrence on line \(duplicate.line))", allowed: "each key once per object")
        }
        var scenario = try ScenarioReader(file: file).scenario(from: root)
        scenario.name = Self.baseName(of: file)
        if case .object(let members) = root { try scenario.resolveDiscovery(file: file, initialPostureGiven: members.contains { $0.key == "initialPosture" }) }
        try scenario.validate(file: file)
        return scenario
    }

    /// Reads, decodes and validates the scenario file at `url`.
    /// - Throws: ``ScenarioError`` (also when the file cannot be read).
    public static func load(contentsOf url: URL) throws(ScenarioError) -> Scenario {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ScenarioError(file: url.path, key: "", problem: "cannot be read (\(error.localizedDescription))", allowed: "a readable JSON scenario file")
        }
        return try decode(data, file: url.path)
    }

    private static func baseName(of file: String) -> String {
        let last = file.split(separator: "/").last.map(String.init) ?? file
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { return String(last[..<dot]) }
        return last
    }
}

/// Walks the decoded JSON, checking keys and types (ranges are checked by `validate`).
struct ScenarioReader {
    let file: String

    func error(_ key: String, _ problem: String, _ allowed: String) -> ScenarioError { ScenarioError(file: file, key: key, problem: problem, allowed: allowed) }

    /// A scenario with one camera (`device`) or several (`cameras`, never with `device`):
    /// the same reader, the keys each schema allows.
    func scenario(from root: JSONValue) throws(ScenarioError) -> Scenario {
        var hasCameras = false
        if case .object(let fields) = root, fields["cameras"] != nil {
            if fields["device"] != nil {
                throw error("device", "is given together with \"cameras\"", "either \"device\" (one camera) or \"cameras\" (several), never both")
            }
            hasCameras = true
        }
        let top = try object(root, at: "", allowed: hasCameras ? Scenario.camerasTopLevelKeys : Scenario.topLevelKeys)
        var scenario = Scenario(name: file, durationSeconds: 0)
        if let value = top["description"] { scenario.summary = try string(value, at: "description", allowed: "a string") }
        if let value = top["device"] { scenario.device = try device(value, at: "device") }
        if hasCameras {
            guard case .array(let items)? = top["cameras"] else {
                throw error(
                    "cameras", "expected an array, got \(top["cameras"]?.rendered ?? "nothing")",
                    "an array of camera objects with keys " + Scenario.cameraKeys.joined(separator: ", "))
            }
            var cameras: [Scenario.Camera] = []
            for (i, item) in items.enumerated() { cameras.append(try camera(item, at: "cameras[\(i)]")) }
            scenario.cameras = cameras
        }
        if let v = top["frontCamera"] { scenario.frontCamera = try named(v, at: "frontCamera", "a switching strategy") }
        if let v = top["discovery"] {
            guard top["frontCamera"] == nil else {
                throw error("discovery", "is given with frontCamera", "either \"discovery\" (the camera it finds decides) or \"frontCamera\"")
            }
            scenario.discovery = try discovery(v, at: "discovery")
        }
        if let v = top["virtual"] { scenario.virtual = try virtualCamera(v, at: "virtual") }
        if let v = top["views"] { scenario.views = try views(v, at: "views") }
        if let v = top["drivingView"] { scenario.drivingView = try string(v, at: "drivingView", allowed: "a view id of views") }
        if let v = top["microphone"] { scenario.microphone = try microphone(v, at: "microphone") }
        try readControls(top, into: &scenario)
        if let v = top["initialPosture"] { scenario.initialPosture = try named(v, at: "initialPosture", "a posture") }
        // With cameras, the device-wide settings sit at the top level.
        if let v = top["initialAspectRatio"] { scenario.device.initialAspectRatio = try ratio(v, at: "initialAspectRatio") }
        if let v = top["changeLatencyFrames"] {
            scenario.device.changeLatencyFrames = try integer(v, at: "changeLatencyFrames", allowed: ScenarioLimits.latencyAllowed)
        } else if hasCameras {
            scenario.device.isChangeLatencyExplicit = false
        }
        if let v = top["completionDelayFrames"] {
            scenario.device.completionDelayFrames = try integer(v, at: "completionDelayFrames", allowed: ScenarioLimits.completionDelayAllowed)
        }
        if let v = top["switchGapSeconds"] { scenario.switchGapSeconds = try number(v, at: "switchGapSeconds", allowed: ScenarioLimits.switchGapAllowed) }
        if let value = top["sessionStartSeconds"] {
            scenario.sessionStartSeconds = try number(value, at: "sessionStartSeconds", allowed: ScenarioLimits.sessionStartAllowed)
        }
        guard let duration = top["durationSeconds"] else { throw error("durationSeconds", "is missing", ScenarioLimits.durationAllowed) }
        scenario.durationSeconds = try number(duration, at: "durationSeconds", allowed: ScenarioLimits.durationAllowed)
        if let value = top["events"] {
            guard case .array(let items) = value else { throw error("events", "expected an array, got \(value.rendered)", "an array of event objects") }
            for (i, item) in items.enumerated() {
                scenario.events.append(try event(item, at: "events[\(i)]", actionKeys: hasCameras ? Scenario.cameraActionKeys : Scenario.actionKeys))
            }
        }
        return scenario
    }

    func device(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.Device {
        let fields = try object(value, at: path, allowed: Scenario.deviceKeys)
        var device = Scenario.Device()
        if let v = fields["type"] {
            let allowed = [CaptureDevice.DeviceType.builtInUltraWideCamera, .builtInWideAngleCamera].map(\.rawValue).joined(separator: ", ")
            let text = try string(v, at: "\(path).type", allowed: allowed)
            guard let type = CaptureDevice.DeviceType(rawValue: text), type == .builtInUltraWideCamera || type == .builtInWideAngleCamera else {
                throw error("\(path).type", "\"\(Excerpt.of(text))\" is not a one-camera type (iPhone Duo cameras go in \"cameras\")", allowed)
            }
            device.type = type
        }
        if device.type == .builtInWideAngleCamera {
            let formats = device.type.formats
            let names = formats.map(\.name).joined(separator: ", ")
            let name =
                try fields["format"].map { v throws(ScenarioError) in try string(v, at: "\(path).format", allowed: names) } ?? formats[formats.count - 1].name
            guard let format = formats.first(where: { $0.name == name }) else {
                throw error("\(path).format", "\(Excerpt.of(name)) is not a format of builtInWideAngleCamera", names)
            }
            device.fixedFormat = format.name
            device.format = format.squareSide
            try refuseFixedFormatKeys(fields, at: path)
        } else if let v = fields["format"] {
            device.format = Int(try integer(v, at: "\(path).format", allowed: ScenarioLimits.formatAllowed))
        }
        if let v = fields["fps"] { device.fps = try frameRate(v, at: "\(path).fps") }
        if let v = fields["initialAspectRatio"] {
            device.initialAspectRatio = try ratio(v, at: "\(path).initialAspectRatio")
        } else if device.fixedFormat == nil, let format = CaptureDevice.Format.frontCenterStage(squareSide: device.format),
            !format.supportedDynamicAspectRatios.contains(device.initialAspectRatio), let first = format.supportedDynamicAspectRatios.first
        {
            // The default 9x16 where the format has it, else the format's first ratio
            // (3x4 on the 4032 photo format).
            device.initialAspectRatio = first
        }
        if let v = fields["clock"] { device.clock = try clock(v, at: "\(path).clock") }
        if let v = fields["changeLatencyFrames"] {
            device.changeLatencyFrames = try integer(v, at: "\(path).changeLatencyFrames", allowed: ScenarioLimits.latencyAllowed)
        } else {
            device.isChangeLatencyExplicit = false
        }
        if let v = fields["preferredVideoStabilizationMode"] {
            device.preferredVideoStabilizationMode = try stabilizationMode(v, at: "\(path).preferredVideoStabilizationMode")
        }
        if let v = fields["enabledFramings"] { device.enabledFramings = try framings(v, at: "\(path).enabledFramings") }
        if let v = fields["completionDelayFrames"] {
            device.completionDelayFrames = try integer(v, at: "\(path).completionDelayFrames", allowed: ScenarioLimits.completionDelayAllowed)
        }
        if let v = fields["smartFraming"] { device.smartFraming = try bool(v, at: "\(path).smartFraming", allowed: "true (4032 format only) or false") }
        if let v = fields["smartFramingPolicy"] { device.smartFramingPolicy = try smartFramingPolicy(v, at: "\(path).smartFramingPolicy") }
        if let v = fields["depthDataDeliveryEnabled"] {
            device.depthDataDeliveryEnabled = try bool(v, at: "\(path).depthDataDeliveryEnabled", allowed: "true or false")
        }
        if let v = fields["geometricDistortionCorrectionEnabled"] {
            device.geometricDistortionCorrectionEnabled = try bool(v, at: "\(path).geometricDistortionCorrectionEnabled", allowed: "true or false")
        }
        return device
    }

    /// The earlier front camera's keys that would change nothing: it has no dynamic aspect
    /// ratio (its fixed format decides the frame size) and no smart framing format, so an
    /// initial ratio, enabled framings or a smart framing policy are refused, not ignored.
    private func refuseFixedFormatKeys(_ fields: [String: JSONValue], at path: String) throws(ScenarioError) {
        let type = CaptureDevice.DeviceType.builtInWideAngleCamera.rawValue
        if fields["initialAspectRatio"] != nil {
            throw error(
                "\(path).initialAspectRatio", "\(type) has no dynamic aspect ratio: its fixed 4:3 format decides the frame size",
                "no initialAspectRatio with \(type); choose the size with \(path).format (1280x960, 1920x1440)")
        }
        for key in ["enabledFramings", "smartFramingPolicy"] where fields[key] != nil {
            throw error(
                "\(path).\(key)", "\(type) has no smart framing format (smart framing runs only on the 4032 format of builtInUltraWideCamera)",
                "no \(key) with \(type)")
        }
    }

    func clock(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.Clock {
        let fields = try object(value, at: path, allowed: Scenario.clockKeys)
        var clock = Scenario.Clock()
        if let v = fields["timescale"] {
            let n = try integer(v, at: "\(path).timescale", allowed: ScenarioLimits.timescaleAllowed)
            guard let timescale = Int32(exactly: n), timescale > 0 else {
                throw error("\(path).timescale", "\(n) is out of range", ScenarioLimits.timescaleAllowed)
            }
            clock.timescale = timescale
        }
        if let v = fields["offsetSeconds"] { clock.offsetSeconds = try number(v, at: "\(path).offsetSeconds", allowed: ScenarioLimits.offsetAllowed) }
        if let v = fields["driftPPM"] { clock.driftPPM = try number(v, at: "\(path).driftPPM", allowed: ScenarioLimits.driftAllowed) }
        return clock
    }

    func event(_ value: JSONValue, at path: String, actionKeys: [String] = Scenario.actionKeys) throws(ScenarioError) -> Scenario.Event {
        let fields = try object(value, at: path, allowed: ["atSeconds"] + actionKeys)
        guard let at = fields["atSeconds"] else {
            throw error("\(path).atSeconds", "is missing", "seconds from session start, 0 ≤ atSeconds < durationSeconds")
        }
        let atSeconds = try number(at, at: "\(path).atSeconds", allowed: "seconds from session start, 0 ≤ atSeconds < durationSeconds")
        let present = actionKeys.filter { fields[$0] != nil }
        let allowedActions = "exactly one of " + actionKeys.joined(separator: ", ")
        guard present.count == 1, let key = present.first, let actionValue = fields[key] else {
            let problem = present.isEmpty ? "has no action" : "has \(present.count) actions (\(present.joined(separator: ", ")))"
            throw error(path, problem, allowedActions)
        }
        let action: Scenario.Action
        switch key {
        case "setDynamicAspectRatio": action = .setDynamicAspectRatio(try ratio(actionValue, at: "\(path).\(key)"))
        case "posture": action = .posture(try named(actionValue, at: "\(path).\(key)", "a posture"))
        case "moveView":
            let view = try view(actionValue, at: "\(path).\(key)", keys: Scenario.moveViewKeys)
            action = .moveView(id: view.id, display: view.display)
        case "drivingView": action = .drivingView(try string(actionValue, at: "\(path).\(key)", allowed: "a view id of views"))
        case "videoZoomFactor": action = .videoZoomFactor(try number(actionValue, at: "\(path).\(key)", allowed: ScenarioLimits.zoomAllowed))
        case let key where Scenario.controlActionKeys.contains(key): action = try controlAction(key, actionValue, at: "\(path).\(key)")
        default:
            let n = try integer(actionValue, at: "\(path).\(key)", allowed: ScenarioLimits.peopleAllowed)
            guard let count = Int(exactly: n) else { throw error("\(path).\(key)", "\(n) is out of range", ScenarioLimits.peopleAllowed) }
            action = .peopleInFrame(count)
        }
        return Scenario.Event(atSeconds: atSeconds, action: action)
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
        if let v = fields["fps"] {
            camera.fps = try frameRate(v, at: "\(path).fps")
            camera.isFrameRateGiven = true
        }
        if let v = fields["clock"] { camera.clock = try clock(v, at: "\(path).clock") }
        if let v = fields["preferredVideoStabilizationMode"] {
            camera.preferredVideoStabilizationMode = try stabilizationMode(v, at: "\(path).preferredVideoStabilizationMode")
        }
        if let v = fields["depthDataDeliveryEnabled"] {
            camera.depthDataDeliveryEnabled = try bool(v, at: "\(path).depthDataDeliveryEnabled", allowed: "true or false")
        }
        if let v = fields["geometricDistortionCorrectionEnabled"] {
            camera.geometricDistortionCorrectionEnabled = try bool(v, at: "\(path).geometricDistortionCorrectionEnabled", allowed: "true or false")
        }
        return camera
    }

    /// `discovery`: `{"deviceTypes": [...], "position": "front"}` (position optional: any).
    func discovery(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.DiscoveryRequest {
        let fields = try object(value, at: path, allowed: Scenario.discoveryKeys)
        let types = CaptureDevice.DeviceType.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .array(let items)? = fields["deviceTypes"], !items.isEmpty else {
            throw error("\(path).deviceTypes", "is missing or not a non-empty array", "an array of device types: \(types)")
        }
        var request = Scenario.DiscoveryRequest(deviceTypes: [], position: nil)
        for (i, item) in items.enumerated() { request.deviceTypes.append(try named(item, at: "\(path).deviceTypes[\(i)]", "a device type")) }
        if let v = fields["position"] { request.position = try named(v, at: "\(path).position", "a position") }
        return request
    }

    func virtualCamera(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.VirtualCamera {
        if case .object(let members) = value, members.contains(where: { $0.key == "depthDataDeliveryEnabled" }) {
            throw error(
                "\(path).depthDataDeliveryEnabled", "the Virtual Front Camera has no depth (it offers only what the outer and inner cameras share)",
                "depth data delivery only on the individual cameras: \"frontCamera\": \"individual\"")
        }
        let fields = try object(value, at: path, allowed: Scenario.virtualKeys)
        var virtual = Scenario.VirtualCamera()
        if let v = fields["format"] { virtual.format = Int(truncatingIfNeeded: try integer(v, at: "\(path).format", allowed: ScenarioLimits.virtualAllowed)) }
        if let v = fields["fps"] { virtual.fps = try frameRate(v, at: "\(path).fps") }
        if let v = fields["clock"] { virtual.clock = try clock(v, at: "\(path).clock") }
        if let v = fields["preferredVideoStabilizationMode"] {
            virtual.preferredVideoStabilizationMode = try stabilizationMode(v, at: "\(path).preferredVideoStabilizationMode")
        }
        return virtual
    }

    // MARK: typed accessors

    func frameRate(_ v: JSONValue, at path: String) throws(ScenarioError) -> FrameRate {
        let allowed = "a number or an exact rational string such as \"30000/1001\", > 0 and at most the format's maximum"
        let text: String
        switch v {
        case .integer(let n): text = "\(n)"
        case .number(let x): text = "\(x)"
        case .string(let s): text = s
        default: throw error(path, "expected a number or a string, got \(v.rendered)", allowed)
        }
        do { return try FrameRate(parsing: text) } catch {
            // FrameRateError's own words, with the value cut to an excerpt.
            let shown: FrameRateError =
                switch error {
                case .notPositive(let value): .notPositive(Excerpt.of(value))
                case .malformed(let value): .malformed(Excerpt.of(value))
                }
            throw self.error(path, shown.description, allowed)
        }
    }

    func object(_ value: JSONValue, at path: String, allowed keys: [String]) throws(ScenarioError) -> [String: JSONValue] {
        guard case .object(let fields) = value else {
            throw error(path, "expected an object, got \(value.rendered)", "an object with keys " + keys.joined(separator: ", "))
        }
        if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
            let name = Excerpt.of(unknown)
            throw error(path.isEmpty ? name : "\(path).\(name)", "unknown key", "keys " + keys.joined(separator: ", "))
        }
        return fields
    }

    func number(_ value: JSONValue, at path: String, allowed: String) throws(ScenarioError) -> Double {
        guard let number = value.number else { throw error(path, "expected a number, got \(value.rendered)", allowed) }
        return number
    }

    func integer(_ value: JSONValue, at path: String, allowed: String) throws(ScenarioError) -> Int64 {
        guard case .integer(let n) = value else { throw error(path, "expected an integer, got \(value.rendered)", allowed) }
        return n
    }

    func string(_ value: JSONValue, at path: String, allowed: String) throws(ScenarioError) -> String {
        guard case .string(let s) = value else { throw error(path, "expected a string, got \(value.rendered)", allowed) }
        return s
    }

    func ratio(_ value: JSONValue, at path: String) throws(ScenarioError) -> DynamicAspectRatio { try named(value, at: path, "a dynamic aspect ratio") }

    /// A string naming one of `T`'s cases; `kind` ("a posture") names what it is not otherwise.
    func named<T: CaseIterable & RawRepresentable<String>>(_ value: JSONValue, at path: String, _ kind: String) throws(ScenarioError) -> T {
        let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
        let text = try string(value, at: path, allowed: allowed)
        guard let named = T(rawValue: text) else { throw error(path, "\"\(Excerpt.of(text))\" is not \(kind)", allowed) }
        return named
    }

    func bool(_ value: JSONValue, at path: String, allowed: String) throws(ScenarioError) -> Bool {
        guard case .bool(let flag) = value else { throw error(path, "expected true or false, got \(value.rendered)", allowed) }
        return flag
    }
}
