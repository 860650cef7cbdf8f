import Foundation

/// How one recording is written, whatever its input: the output folder, the mode, the
/// encoder, crash safety, segment limits, rotation and mirroring, sound, back-pressure and
/// statistics. One ``Recorder`` records with one configuration; `segrec record` builds one
/// from its options, an app builds one directly.
///
/// Times are exact (``MediaTime``); sizes are bytes; paths are file-system paths.
public struct RecordingConfiguration: Sendable {
    /// The output folder (created when missing).
    public var output: URL
    /// Replace an earlier recording in ``output`` (only the files its manifest lists).
    public var force = false
    /// Segment mode (a file per run of dimensions) or stop-on-change (one movie file, like
    /// `AVCaptureMovieFileOutput`).
    public var mode: RecordingMode = .segment
    /// Encoder settings. For a pulled input ``EncoderSettings/frameRate`` is replaced by the
    /// source's nominal rate (the camera's, or the footage's); for pushed pictures it is the
    /// nominal rate the app captures at (the files' timescale and the last frame's duration).
    public var encoder = EncoderSettings()
    /// Crash safety: the open segment's `.partial` file gets a fragment at least this often
    /// (`AVAssetWriter.movieFragmentInterval`); nil writes each file whole when it closes (a
    /// crash then loses the open segment). Default 1 s.
    public var fragmentInterval: MediaTime? = MediaTime(value: 1, timescale: 1)
    /// A segment ends at the first frame at or after its start plus this (that frame opens
    /// the next, `startReason: maxSegmentDuration`); nil: no limit.
    public var maximumSegmentDuration: MediaTime?
    /// A segment ends at the first frame given after its encoded packets reach this many
    /// bytes (`startReason: maxSegmentBytes`); nil: no limit.
    public var maximumSegmentBytes: Int64?
    /// Segment mode only: a new capture angle starts a segment (`startReason: rotationChanged`).
    public var splitOnRotation = false
    /// Flip buffers left-right (`AVCaptureConnection.isVideoMirrored`); needs the camera model.
    public var mirror: MirrorMode = .off
    /// Record sound (default): the camera model's microphone, footage's first audio stream,
    /// or the PCM an app pushes. False records no sound.
    public var recordsAudio = true
    /// AAC bit rate of the segments' audio track, bits per second (default 128 000).
    public var audioBitRate = AudioTrackSettings.defaultBitRate
    /// Pictures queued to the encoder and not yet encoded, at most (≥ 1); nil: the input's
    /// own depth (6; 2 for footage read as fast as it encodes; 16 for a stream copied as sent).
    public var framesInFlight: Int?
    /// Every frame carries the frame-index stamp (rows 0–15) `segrec verify` reads back:
    /// always on for the synthetic pattern; for footage the recorder draws it; for pushed
    /// pictures the app drew it.
    public var stampsFrameIndex = false
    /// Write per-frame and per-switch timings here as JSON lines when the recording ends;
    /// its folder must exist.
    public var statisticsURL: URL?
    /// How messages and notes name these settings (the command line sets its options' spellings).
    package var settingNames = SettingNames()
    /// Whether ``Recorder/events`` carries a ``RecordingEvent/progress(_:)`` after each frame
    /// (the default). `segrec record` turns it off when it shows no progress line: each
    /// event wakes the task reading the events, which costs a copied stream (`--copy`, a few
    /// microseconds of work per packet) more than writing its packets.
    package var reportsProgress = true

    /// A configuration writing into `output`, everything else at its default.
    public init(output: URL) { self.output = output }
}
