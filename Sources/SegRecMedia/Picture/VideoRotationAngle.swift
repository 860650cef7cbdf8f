/// A clockwise quarter-turn angle: the values `AVCaptureDevice.RotationCoordinator`'s
/// `videoRotationAngleForHorizonLevelCapture` and `AVCaptureConnection.videoRotationAngle`
/// take on a phone (0, 90, 180, 270 degrees), i.e. how far a player must turn a captured
/// picture clockwise to show it level.
///
/// Media side: an MP4 stores the turn as the track's display matrix. FFmpeg 5.1 reports
/// that matrix as *counter-clockwise* degrees (`av_display_rotation_get`, ffprobe's
/// `rotation`, `StreamInfo/rotationDegrees`), so a file carrying angle `a` reads back as
/// `−a`, normalized by FFmpeg into `[-180, 180)`: 0 → 0, 90 → −90, 180 → −180, 270 → 90
/// (`displayMatrixRotationDegrees`).
public enum VideoRotationAngle: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// No turn.
    case degrees0 = 0
    /// A quarter turn clockwise.
    case degrees90 = 90
    /// A half turn.
    case degrees180 = 180
    /// Three quarter turns clockwise (a quarter turn counter-clockwise).
    case degrees270 = 270

    /// The clockwise angle in degrees: 0, 90, 180 or 270.
    public var degrees: Int { rawValue }

    /// The angle of `degrees` clockwise, any multiple of 90 (negative or above 360 are
    /// taken modulo 360); nil for other values (e.g. 45).
    public init?(clockwiseDegrees degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    /// The angle a player turns a picture whose display matrix FFmpeg reports as
    /// `counterClockwiseDegrees` (`VideoFileDecoder/rotationDegrees`, ffprobe's
    /// `rotation`): `−rotation` modulo 360. The phone sample's −90 is 90 clockwise.
    /// nil for a rotation that is not a multiple of 90.
    package init?(displayMatrixRotation counterClockwiseDegrees: Int) { self.init(clockwiseDegrees: -counterClockwiseDegrees) }

    /// The counter-clockwise degrees to hand `SegmentWriter` as `displayRotationDegrees`
    /// (and the manifest as `rotationDegrees`): exactly what ffprobe prints as `rotation`
    /// for a file written with them: 0, −90, −180, 90 for 0, 90, 180, 270.
    package var displayMatrixRotationDegrees: Int {
        switch self {
        case .degrees0: 0
        case .degrees90: -90
        case .degrees180: -180
        case .degrees270: 90
        }
    }

    /// The turn that follows this one by `other` (angles add modulo 360).
    public func adding(_ other: VideoRotationAngle) -> VideoRotationAngle { VideoRotationAngle(rawValue: (rawValue + other.rawValue) % 360)! }

    /// The turn that undoes this one.
    public var inverse: VideoRotationAngle { VideoRotationAngle(rawValue: (360 - rawValue) % 360)! }

    /// Whether the turn swaps width and height (90 and 270).
    public var swapsDimensions: Bool { self == .degrees90 || self == .degrees270 }

    /// The size of a `width`x`height` picture after this turn (swapped for 90 and 270).
    public func rotated(_ dimensions: VideoDimensions) -> VideoDimensions {
        swapsDimensions ? VideoDimensions(width: dimensions.height, height: dimensions.width) : dimensions
    }

    /// `"90°"`.
    public var description: String { "\(rawValue)°" }
}
