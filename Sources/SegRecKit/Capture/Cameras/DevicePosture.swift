/// How an iPhone Duo is held (scenario `initialPosture`, events `{"posture": …}`).
package enum DevicePosture: String, Sendable, Hashable, CaseIterable, Codable {
    /// Closed: the app's view is on the outer display; the outer front camera faces the user.
    case closed
    /// Open: the view is on the inner display; the inner camera faces the user, outer and back face away.
    case open
    /// Open with the view moved to the outer display: the back and outer cameras face the user.
    case openOuterDisplay

    /// The allowed spellings, for messages.
    package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Where a camera faces relative to the view the app shows (what the direction coordinator
/// reports; `AVCaptureDevice.position` no longer says it on iPhone Duo).
public enum CameraFacing: String, Sendable, Hashable, Codable {
    /// Towards the person looking at the app's view (forward-facing): a selfie camera now.
    case user
    /// Away from that person.
    case away
}

/// How the session uses the front cameras (scenario `frontCamera`).
package enum FrontCameraStrategy: String, Sendable, Hashable, CaseIterable {
    /// The app streams from the individual cameras and switches itself on posture changes
    /// (full formats, a reconfiguration gap, a new segment per switch).
    case individual
    /// The Virtual Front Camera swaps its constituent itself: no gap, no new segment, but
    /// only the formats inner and outer share.
    case virtual

    /// The allowed spellings, for messages.
    package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
