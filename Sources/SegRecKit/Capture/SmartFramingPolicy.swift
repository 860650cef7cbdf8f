/// What the app does with the smart framing monitor's recommendations, which the seeds say
/// it "can apply or ignore" (scenario `device.smartFramingPolicy`).
///
/// A recommendation the policy applies is applied as the seeds' code does (the aspect ratio
/// first, then the zoom on its first frame) unless the camera already shows that framing;
/// an ignored one is only logged (`smartFramingRecommended`, with the reason).
package enum SmartFramingPolicy: Sendable, Hashable {
    /// Apply every recommendation (the default; the seeds' sample app).
    case apply
    /// Apply none: the app only shows them (or lets the person choose).
    case ignore
    /// Apply only these framings, ignore the others.
    case applyOnly([CaptureFraming])

    /// Whether the app applies `framing`.
    package func applies(_ framing: CaptureFraming) -> Bool {
        switch self {
        case .apply: true
        case .ignore: false
        case .applyOnly(let framings): framings.contains(framing)
        }
    }

    /// The spelling in a scenario and in messages: `apply`, `ignore`, or the framings'
    /// names (`wide4x3, narrow3x4`).
    package var name: String {
        switch self {
        case .apply: "apply"
        case .ignore: "ignore"
        case .applyOnly(let framings): framings.map(\.name).joined(separator: ", ")
        }
    }

    /// The allowed values, for error messages.
    package static let allowedValues = "\"apply\", \"ignore\", or an array of framings among " + CaptureFraming.allowedNames
}
