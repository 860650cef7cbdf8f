import Foundation
import SegRecKit

/// `record`'s camera options: `--mirror` flips buffers; with a `cameras` scenario (iPhone
/// Duo) `--source PATH` feeds every camera, `--camera-source ID=PATH` one camera.
extension RecordCommand {
    static let cameraOptions: [OptionSpec] = [
        .option(
            "mirror", "MODE", help: "Flip buffers left-right (isVideoMirrored): off (default), on, or auto (while the streaming camera faces the user).",
            allowed: MirrorMode.allCases.map(\.rawValue)),
        .option(
            "camera-source", "ID=PATH",
            help: "With a cameras scenario: footage as camera ID's sensor image (repeatable, one per camera); other cameras use --source."),
        .flag(
            "split-on-rotation",
            help:
                "Start a segment (startReason rotationChanged) at the first frame captured with a new capture angle; default: the angle applies from the next segment. Segment mode only."
        )
    ]

    /// `--mirror`, default off.
    static func mirrorMode(_ parsed: ParsedArguments) -> MirrorMode { parsed.value("mirror").flatMap(MirrorMode.init(rawValue:)) ?? .off }

    /// `--camera-source ID=PATH`, each checked for its shape; whether the ids are the
    /// scenario's cameras is the ``Recorder``'s to say.
    /// - Throws: a usage error (64) for an item without `=`, an id or a path.
    static func cameraClips(_ parsed: ParsedArguments) throws -> [PullInput.CameraClip] {
        try parsed.values("camera-source").map { item in
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex, item.index(after: equals) != item.endIndex else {
                throw CommandLineError("record: --camera-source: '\(Excerpt.of(item))' is not ID=PATH, e.g. inner=clip.mp4", exitCode: .usage)
            }
            return PullInput.CameraClip(camera: String(item[..<equals]), path: String(item[item.index(after: equals)...]))
        }
    }
}
