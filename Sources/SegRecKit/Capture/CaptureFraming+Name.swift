extension CaptureFraming {
    /// The scenario spelling of the four framings the model knows: `wide3x4`, `narrow3x4`,
    /// `wide4x3`, `narrow4x3` (the names of the static members); other framings are
    /// spelled `"<ratio>@<zoom>"`, e.g. `"1x1@1.0"`.
    package var name: String { Self.named.first { $0.framing == self }?.name ?? "\(aspectRatio.rawValue)@\(zoomFactor)" }

    /// The framings with a name, in the order of ``SmartFramingMonitor/supportedFramings``.
    package static let named: [(name: String, framing: CaptureFraming)] = [
        ("wide3x4", .wide3x4), ("narrow3x4", .narrow3x4), ("wide4x3", .wide4x3), ("narrow4x3", .narrow4x3)
    ]

    /// The framing spelled `name`.
    /// - Parameters:
    ///   - name: `wide3x4`, `narrow3x4`, `wide4x3` or `narrow4x3`.
    ///   - allowed: the names to list when `name` is unknown (default all four).
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` naming `allowed`.
    package init(named name: String, allowed: [String] = CaptureFraming.named.map(\.name)) throws(CameraControlError) {
        guard let framing = Self.named.first(where: { $0.name == name })?.framing else {
            throw .unknownValue(name: "framing", value: name, allowed: allowed.joined(separator: ", "))
        }
        self = framing
    }
}

extension CaptureFraming {
    /// Every framing name: `wide3x4`, `narrow3x4`, `wide4x3`, `narrow4x3`.
    package static var allNames: [String] { named.map(\.name) }
    /// The names joined for messages.
    package static var allowedNames: String { allNames.joined(separator: ", ") }
}
