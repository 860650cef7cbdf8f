import Foundation

/// An input the ``Recorder`` pulls: the fake camera's pattern through a scenario, a
/// footage file, or raw video on standard input, each optionally paced in real time.
/// `segrec record --source` is one of these.
public struct PullInput: Sendable {
    /// Where the pictures come from.
    public enum Source: Sendable, Hashable {
        /// The fake camera's test pattern (frame index stamped into every frame).
        case synthetic
        /// A footage file (or named pipe) libavformat reads: the camera's sensor image with
        /// a ``PullInput/scenario``, else passed through with its own sizes and times.
        case file(String)
        /// YUV4MPEG2 (or raw video with ``VideoSourceOptions/videoSize``) on standard input.
        case standardInput

        /// The path handed to libavformat: the file's path, or `-` for standard input.
        var path: String? {
            switch self {
            case .synthetic: return nil
            case .file(let path): return path
            case .standardInput: return "-"
            }
        }
    }

    /// A footage file as one camera's sensor image in a `cameras` scenario.
    public struct CameraClip: Sendable, Hashable {
        /// The camera's `id` in the scenario's `cameras`.
        public var camera: String
        /// The clip (a file path, or `-` for standard input).
        public var path: String

        /// `path` feeds camera `camera`.
        public init(camera: String, path: String) {
            self.camera = camera
            self.path = path
        }
    }

    /// Where the pictures come from (default: the synthetic pattern).
    public var source: Source = .synthetic
    /// How to read raw footage (size, pixel format, rate); ignored for synthetic.
    public var sourceOptions = VideoSourceOptions()
    /// The camera model and its events. `nil`: the built-in tap-to-rotate scenario for
    /// ``Source/synthetic``; footage is then passed through without a camera model.
    public var scenario: Scenario?
    /// How errors name the scenario (its file path); default the scenario's name.
    public var scenarioFile: String?
    /// Per-camera clips of a `cameras` scenario, each camera at most once; cameras without
    /// one use ``source``.
    public var cameraClips: [CameraClip] = []
    /// Pace the source at its frame rate (like a real camera); a frame the recorder cannot
    /// take in time is dropped (`late`).
    public var realtime = false
    /// Record the footage's video packets as they were sent (`--copy`): not decoded nor
    /// re-encoded, a new file at the first keyframe of a new size (``CopySource``).
    package var copiesStream = false

    /// An input reading `source`, everything else at its default.
    public init(_ source: Source = .synthetic) { self.source = source }

    /// The request's scenario when it describes several cameras (`cameras`).
    var camerasScenario: Scenario? { scenario?.cameras == nil ? nil : scenario }

    /// True for footage recorded without a camera model (passed through with its own sizes and times).
    package var passesFootageThrough: Bool { source != .synthetic && scenario == nil }

    /// Whether the footage passed through is a raw frame stream read by `RawFrameReader`
    /// (YUV4MPEG2, raw video), which reads into pool planes and allocates nothing per frame.
    package var passesRawFrameStreamThrough: Bool {
        passesFootageThrough && RawFrameReader.reads(path: source.path ?? VideoSourceOptions.standardInput, options: sourceOptions)
    }
}
