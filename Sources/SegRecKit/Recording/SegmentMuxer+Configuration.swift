import Foundation

/// What the muxer records with besides its events: built once, by the ``Recorder``.
extension SegmentMuxer {
    /// Everything a recording needs besides its events.
    package struct Configuration: Sendable {
        /// The prepared output folder.
        package var output: OutputDirectory
        /// Encoder settings for every segment.
        package var settings: EncoderSettings
        /// Split or stop on a change of dimensions.
        package var policy: SplitPolicy
        /// The device clocks frames are captured on, for the manifest.
        package var devices: [MediaClock]
        /// Display rotation written into every segment (counter-clockwise degrees, as
        /// ffprobe's `rotation`), or nil; the capture angle of the stream format
        /// (``VideoStreamFormat/rotationAngle``) overrides it for the segment a frame opens.
        package var rotationDegrees: Int?
        /// Whether every frame carries the frame-index stamp (recorded in the manifest).
        package var frameIndexStamp: Bool
        /// Timings to collect (`--stats`), or nil.
        package var statistics: RecordingStatistics?
        /// Where encoded pictures' planes go back for reuse (shared with the producers).
        package var pixelBufferPool: PixelBufferPool
        /// Notes the manifest starts with (e.g. how the input is used).
        package var notes: [String]
        /// While a segment is open its `.partial` file is a fragmented MP4 with a fragment at
        /// least this often (AVAssetWriter's `movieFragmentInterval`), so a crash loses at most
        /// about this much; nil writes each file as one MP4 at the end (a crash loses the
        /// open segment). Default 1 s.
        package var fragmentInterval: MediaTime?
        /// Several-camera recordings (Docs/cameras.md): the manifest always has its
        /// `events` list. False (default) for one camera or footage, whose manifests list
        /// events only once one is logged. (Each segment is encoded at its first frame's
        /// capture rate, ``VideoStreamFormat/frameRate``, whichever camera made it.)
        package var recordsSessionEvents = false
        /// The source's frames are encoded packets written as sent (`--copy`): no encoder,
        /// the manifest's `encoder` is null and every segment says `copied`.
        package var copiesStream = false
        /// The sound copied as sent beside a copied stream (codec, rate, channels), or nil.
        package var copiedAudio: CopiedAudioFormat?
        /// Every rate the source may capture at (each camera's rate in each of its formats),
        /// or empty when only ``settings``' rate is known: every file whose rate is exact in
        /// ``TrackTiming/timescale(forEvery:)`` of them then shares that one timescale
        /// (``SegmentMuxer/fileTimescale``), so the files join in time.
        package var captureFrameRates: [FrameRate] = []
        // --- back-pressure (Docs/performance.md) ---
        /// Pictures queued to writers and not yet encoded, at most (≥ 1; default
        /// ``SegmentMuxer/framesInFlight``).
        package var framesInFlight = SegmentMuxer.framesInFlight
        /// Real time (`--realtime`): a frame that arrives while ``framesInFlight`` pictures
        /// are queued is dropped (`droppedReasons.late`) instead of waiting, as an app drops a
        /// sample buffer while `AVAssetWriterInput.isReadyForMoreMediaData` is false, so the
        /// capture path never waits for the encoder. A segment's first frame is always taken
        /// (the queue may then hold one more). False (the default): the muxer awaits a free
        /// slot and drops nothing.
        package var dropsFramesWhenBehind = false
        // --- end back-pressure ---
        /// `--split-on-rotation` (segment mode only): a frame whose capture angle
        /// (``VideoStreamFormat/rotationAngle``) differs from its segment's starts a segment
        /// (`startReason: rotationChanged`). Off (default): the angle of a segment's first
        /// frame is its display matrix, later changes apply from the next segment.
        package var splitOnRotation = false
        /// Camera controls by clock id, for the manifest's `devices` entries.
        package var deviceControls: [String: DeviceControlInfo] = [:]
        /// The wall clock at session start: the manifest's `recordedAt`; each segment file's
        /// `creation_time` is this plus its `sessionStart` less the first segment's (default:
        /// when the configuration was made).
        package var recordedAt = Date()
        /// Where the footage was recorded (its `location` tag, ISO 6709): every segment
        /// file's `location`; nil: none.
        package var location: String?
        /// `--max-segment-duration`: the first frame whose session time is at or after its
        /// segment's `sessionStart` plus this opens the next segment (`startReason:
        /// maxSegmentDuration`); nil: no limit.
        package var maximumSegmentDuration: MediaTime?
        /// `--max-segment-bytes`: the first frame given after the open file's encoded
        /// packets reach this many bytes opens the next segment (`startReason:
        /// maxSegmentBytes`; Docs/recording.md gives the exact rule); nil: no limit.
        package var maximumSegmentBytes: Int64?
        /// The microphone's format and the AAC settings (`--audio-bitrate`): every segment
        /// then has an audio track holding the sound of its `[sessionStart, sessionEnd)`
        /// (``CaptureOutputEvent/audioSampleBuffer(_:)``, Docs/DESIGN.md "Audio"); nil
        /// (default): no sound, audio buffers are ignored.
        package var audio: AudioTrackSettings?

        /// A configuration; see the properties.
        package init(
            output: OutputDirectory, settings: EncoderSettings, policy: SplitPolicy, devices: [MediaClock], rotationDegrees: Int? = nil,
            frameIndexStamp: Bool = false, statistics: RecordingStatistics? = nil, pixelBufferPool: PixelBufferPool = PixelBufferPool(), notes: [String] = [],
            fragmentInterval: MediaTime? = MediaTime(value: 1, timescale: 1)
        ) {
            self.output = output
            self.settings = settings
            self.policy = policy
            self.devices = devices
            self.rotationDegrees = rotationDegrees
            self.frameIndexStamp = frameIndexStamp
            self.statistics = statistics
            self.pixelBufferPool = pixelBufferPool
            self.notes = notes
            self.fragmentInterval = fragmentInterval
        }
    }
}
