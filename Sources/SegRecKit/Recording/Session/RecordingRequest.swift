import Foundation

/// Everything one recording needs, as plain values: what to record, how to cut it, how to
/// encode it and where to write it. ``RecordingSession`` checks it, builds the source, the
/// muxer configuration and the output folder from it, and runs it. `segrec record` turns
/// its options into one of these; an app builds one directly.
///
/// Times are exact (``MediaTime``); paths are file-system paths.
public struct RecordingRequest: Sendable {
    /// Where the pictures come from.
    public enum Source: Sendable, Hashable {
        /// The fake camera's test pattern (frame index stamped into every frame).
        case synthetic
        /// A footage file (or named pipe) libavformat reads: the camera's sensor image with
        /// a ``RecordingRequest/scenario``, else passed through with its own sizes and times.
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
    /// Segment mode (a file per run of dimensions) or stop-on-change (one movie file).
    public var mode: RecordingMode = .segment
    /// Encoder settings; ``EncoderSettings/frameRate`` is replaced by the source's nominal
    /// rate (the scenario camera's, or the footage's).
    public var encoder = EncoderSettings()
    /// The output folder (created when missing).
    public var output: URL
    /// Replace an earlier recording in ``output`` (only the files its manifest lists).
    public var force = false
    /// Crash safety: the open segment's `.partial` file gets a fragment at least this
    /// often; `nil` writes each file whole when it closes. Default 1 s.
    public var fragmentInterval: MediaTime? = MediaTime(value: 1, timescale: 1)
    /// Pace the source at its frame rate (like a real camera); a frame the recorder cannot
    /// take in time is dropped (`late`).
    public var realtime = false
    /// Pictures queued to the encoder at most; `nil`: ``SegmentMuxer/framesInFlight``.
    public var framesInFlight: Int?
    /// Flip buffers left-right (`isVideoMirrored`); needs the camera model.
    public var mirror: MirrorMode = .off
    /// Segment mode only: a new capture angle starts a segment (`rotationChanged`).
    public var splitOnRotation = false
    /// `--max-segment-duration`: a segment ends at the first frame at or after its start
    /// plus this (the frame opens the next, `maxSegmentDuration`); nil: no limit.
    public var maximumSegmentDuration: MediaTime?
    /// `--max-segment-bytes`: a segment ends at the first frame given after its encoded
    /// packets reach this many bytes (`maxSegmentBytes`); nil: no limit.
    public var maximumSegmentBytes: Int64?
    /// AAC bit rate of the segments' audio track, bits per second (`--audio-bitrate`, default 128 000).
    public var audioBitRate = AudioTrackSettings.defaultBitRate
    /// Record the scenario's microphone (default); false (`--no-audio`) records no sound.
    public var recordsAudio = true
    /// Stamp each frame's index into rows 0–15 (always on for synthetic).
    public var stampFrameIndex = false
    /// Write per-frame and per-switch timings here as JSON lines when the recording ends.
    public var statisticsURL: URL?

    /// A request to record ``source`` into `output`, everything else at its default.
    public init(output: URL, source: Source = .synthetic) {
        self.output = output
        self.source = source
    }

    /// The request's scenario when it describes several cameras (`cameras`).
    var camerasScenario: Scenario? { scenario?.cameras == nil ? nil : scenario }

    /// True for footage recorded without a camera model.
    var passesFootageThrough: Bool { source != .synthetic && scenario == nil }
}
