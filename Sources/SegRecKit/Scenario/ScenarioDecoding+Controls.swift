extension Scenario {
    /// Top-level keys of both schemas for the phone and Center Stage (Docs/cameras.md,
    /// "Orientation, formats and stabilization").
    package static let controlTopLevelKeys = ["initialDeviceOrientation", "centerStageEnabled", "centerStageControlMode"]
    /// Event actions of both schemas for orientation, active format, smart framing and
    /// Center Stage: `{"deviceOrientation": "landscapeLeft"}`, `{"apply": "16x9"}`,
    /// `{"activeFormat": 1920}`, `{"smartFraming": "start"}`, `{"centerStageEnabled": false}`
    /// (the app), `{"userCenterStageEnabled": true}` (the person, in Control Center).
    package static let controlActionKeys = [
        "deviceOrientation", "apply", "activeFormat", "smartFraming", "centerStageEnabled", "userCenterStageEnabled", "depthDataDeliveryEnabled",
        "geometricDistortionCorrectionEnabled"
    ]
}

extension ScenarioReader {
    /// A square format spelled as `segrec formats` prints it (`"1920x1920"`) becomes its
    /// square side (`"1920"`), the name the camera model uses; anything else is unchanged.
    static func squareFormatName(_ text: String) -> String {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == parts[1], !parts[0].isEmpty, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber) else { return text }
        return String(parts[0])
    }

    /// Reads `initialDeviceOrientation`, `centerStageEnabled` and `centerStageControlMode`.
    func readControls(_ top: [String: JSONValue], into scenario: inout Scenario) throws(ScenarioError) {
        if let v = top["initialDeviceOrientation"] { scenario.initialDeviceOrientation = try orientation(v, at: "initialDeviceOrientation") }
        if let v = top["centerStageEnabled"] { scenario.centerStageEnabled = try bool(v, at: "centerStageEnabled", allowed: "true or false") }
        if let v = top["centerStageControlMode"] { scenario.centerStageControlMode = try named(v, at: "centerStageControlMode", "a control mode") }
    }

    func orientation(_ v: JSONValue, at path: String) throws(ScenarioError) -> DeviceOrientation { try named(v, at: path, "a device orientation") }

    func stabilizationMode(_ v: JSONValue, at path: String) throws(ScenarioError) -> VideoStabilizationMode {
        try named(v, at: path, "a video stabilization mode")
    }

    /// `enabledFramings`: an array of framing names, each one of `wide3x4, narrow3x4,
    /// wide4x3, narrow4x3` (whether the format supports it is checked by `validate`).
    func framings(_ v: JSONValue, at path: String) throws(ScenarioError) -> [String] {
        let allowed = "an array of framings among " + CaptureFraming.allowedNames
        guard case .array(let items) = v else { throw error(path, "expected an array, got \(v.rendered)", allowed) }
        var names: [String] = []
        for (i, item) in items.enumerated() {
            let text = try string(item, at: "\(path)[\(i)]", allowed: CaptureFraming.allowedNames)
            guard CaptureFraming.allNames.contains(text) else {
                throw error("\(path)[\(i)]", "\"\(Excerpt.of(text))\" is not a framing", CaptureFraming.allowedNames)
            }
            names.append(text)
        }
        return names
    }

    /// `smartFramingPolicy`: `"apply"`, `"ignore"`, or an array of framing names to apply.
    func smartFramingPolicy(_ v: JSONValue, at path: String) throws(ScenarioError) -> SmartFramingPolicy {
        switch v {
        case .string("apply"): return .apply
        case .string("ignore"): return .ignore
        case .array:
            var chosen: [CaptureFraming] = []
            for (i, name) in try framings(v, at: path).enumerated() {
                do { chosen.append(try CaptureFraming(named: name)) } catch { throw self.error("\(path)[\(i)]", "\(error)", CaptureFraming.allowedNames) }
            }
            return .applyOnly(chosen)
        default: throw error(path, "expected \"apply\", \"ignore\" or an array of framings, got \(v.rendered)", SmartFramingPolicy.allowedValues)
        }
    }

    /// One of ``Scenario/controlActionKeys``' values.
    func controlAction(_ key: String, _ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.Action {
        switch key {
        case "deviceOrientation": return .deviceOrientation(try orientation(value, at: path))
        case "apply": return .apply(try ratio(value, at: path))
        case "activeFormat":
            switch value {
            case .integer(let n): return .activeFormat("\(n)")
            case .string(let text): return .activeFormat(Self.squareFormatName(text))
            default:
                throw error(
                    path, "expected a format (a square side such as 1920, or \"WxH\"), got \(value.rendered)",
                    "a format of the camera, e.g. 1280, 1920, 3840, 4032 for the front camera")
            }
        case "smartFraming": return .smartFraming(try named(value, at: path, "a smart framing action"))
        case "userCenterStageEnabled": return .userCenterStageEnabled(try bool(value, at: path, allowed: "true or false"))
        case "depthDataDeliveryEnabled": return .depthDataDeliveryEnabled(try bool(value, at: path, allowed: "true or false"))
        case "geometricDistortionCorrectionEnabled": return .geometricDistortionCorrectionEnabled(try bool(value, at: path, allowed: "true or false"))
        default: return .centerStageEnabled(try bool(value, at: path, allowed: "true or false"))
        }
    }
}
