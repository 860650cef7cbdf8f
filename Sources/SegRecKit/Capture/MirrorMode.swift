/// `--mirror off|on|auto`: whether delivered buffers are flipped left-right, like
/// `AVCaptureConnection.isVideoMirrored` on a video data output (Docs/cameras.md, `--mirror`).
public enum MirrorMode: String, Sendable, Hashable, CaseIterable {
    /// Never mirror (default).
    case off
    /// Always mirror.
    case on
    /// Mirror while the streaming camera faces the user (a natural selfie).
    case auto

    /// Whether a buffer from a camera facing `facing` is mirrored.
    public func mirrors(_ facing: CameraFacing) -> Bool {
        switch self {
        case .off: false
        case .on: true
        case .auto: facing == .user
        }
    }
}
