/// A ``RecordingConfiguration`` and input whose fields do not go together; thrown by
/// ``Recorder/init(_:input:stopRequest:)`` before anything is written. `segrec record`
/// reports each as a usage error (exit 64) in its options' words.
public enum RecordingInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// ``PullInput/cameraClips`` without a `cameras` scenario.
    case cameraClipsNeedCameras
    /// ``RecordingConfiguration/mirror`` other than off for footage passed through (no camera model).
    case mirrorNeedsCameraModel(MirrorMode)
    /// ``RecordingConfiguration/splitOnRotation`` in stop-on-change mode.
    case splitOnRotationNeedsSegmentMode
    /// ``RecordingConfiguration/splitOnRotation`` for footage passed through (no camera model).
    case splitOnRotationNeedsCameraModel
    /// A clip for a camera id the scenario (named `scenario`) does not have; `allowed` lists its ids.
    case unknownCamera(id: String, scenario: String, allowed: [String])
    /// Two clips for camera `id`.
    case cameraGivenTwice(id: String)
    /// Standard input would feed every camera listed (it can feed one).
    case standardInputFeedsSeveralCameras([String])
    /// The folder of ``RecordingConfiguration/statisticsURL`` (`path`) does not exist.
    case statisticsFolderMissing(path: String, folder: String)
    /// Pushed sound the recorder cannot take (the reason names the field and what is allowed).
    case unsupportedAudio(String)
    /// A setting a stream copied as sent (`copiesStream`, `--copy`) cannot honour (the reason says why).
    case unsupportedCopy(String)
    /// The stop request was set before the output folder was claimed: nothing was written.
    case stoppedBeforeStart

    /// One line saying what is wrong and what is allowed.
    public var description: String {
        switch self {
        case .cameraClipsNeedCameras: return "cameraClips: a clip per camera applies to a scenario with cameras"
        case .mirrorNeedsCameraModel(let mirror):
            return "mirror \(mirror.rawValue): applies to the camera model (synthetic, or footage with a scenario), not to footage passed through"
        case .splitOnRotationNeedsSegmentMode: return "splitOnRotation: applies to segment mode; a stop-on-change movie file keeps the angle of its first frame"
        case .splitOnRotationNeedsCameraModel:
            return "splitOnRotation: applies to the camera model (synthetic, or footage with a scenario), not to footage passed through"
        case .unknownCamera(let id, let scenario, let allowed):
            return "cameraClips: \(scenario) has no camera '\(Excerpt.of(id))'; allowed: \(allowed.joined(separator: ", "))"
        case .cameraGivenTwice(let id): return "cameraClips: camera '\(Excerpt.of(id))' is given twice; give each camera id once"
        case .standardInputFeedsSeveralCameras(let ids):
            return "standard input can feed one camera only, but cameras \(ids.joined(separator: ", ")) would read it"
        case .statisticsFolderMissing(let path, let folder): return "\(path): statisticsURL: folder \(folder) does not exist"
        case .unsupportedAudio(let reason): return "PushInput.audio: \(reason)"
        case .unsupportedCopy(let reason): return "copying the stream as sent: \(reason)"
        case .stoppedBeforeStart: return "a stop was requested before the recording started; nothing was written"
        }
    }
}
