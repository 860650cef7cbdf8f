/// How the phone is held: the analog of `UIDeviceOrientation`'s four flat-free cases, which
/// `AVCaptureDevice.RotationCoordinator` observes. The raw value is the scenario spelling
/// (`"landscapeLeft"`).
///
/// The order of the cases is a quarter turn of the phone each, counter-clockwise as seen by
/// the user facing the screen: `portrait` (home edge down), `landscapeLeft` (turned so the
/// home edge is on the right), `portraitUpsideDown`, `landscapeRight`.
package enum DeviceOrientation: String, Sendable, Hashable, Codable, CaseIterable {
    /// Upright, home edge down.
    case portrait
    /// Turned a quarter counter-clockwise: home edge on the right.
    case landscapeLeft
    /// Upside down.
    case portraitUpsideDown
    /// Turned a quarter clockwise: home edge on the left.
    case landscapeRight

    /// Quarter turns from `portrait` in the order above: 0, 1, 2, 3.
    package var quarterTurns: Int {
        switch self {
        case .portrait: 0
        case .landscapeLeft: 1
        case .portraitUpsideDown: 2
        case .landscapeRight: 3
        }
    }

    /// The allowed spellings, for error messages: `portrait, landscapeLeft, portraitUpsideDown, landscapeRight`.
    package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The orientation spelled `name`.
    /// - Throws: ``CameraControlError/unknownValue(name:value:allowed:)`` naming the four
    ///   allowed spellings.
    package init(named name: String) throws(CameraControlError) { self = try CameraControlError.spelled(name, name: "deviceOrientation") }
}
