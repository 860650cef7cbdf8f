import Foundation
import SegRecMedia

/// `OUTPUT/manifest.json`: what a recording produced, laid out as Docs/manifest.md
/// specifies, with a few extra fields (byte counts, exact clock parameters, drop reasons).
public struct RecordingManifest: Codable, Sendable, Equatable {
    /// Always 1 for this layout.
    public var formatVersion: Int = RecordingManifest.currentFormatVersion
    /// The manifest format this segrec writes and reads (Docs/manifest.md).
    package static let currentFormatVersion = 1
    /// `segment` or `stop-on-change`.
    public var mode: RecordingMode
    /// The session's synchronization clock (host nanoseconds).
    package var sessionClock: SessionClockInfo
    /// The device clocks frames were captured on.
    package var devices: [DeviceInfo]
    /// The encoder and its settings.
    package var encoder: EncoderInfo?
    /// The files, in session-time order; they tile the session timeline.
    public var segments: [SegmentRecord] = []
    /// Why the recording ended; `null` while it is recording (the manifest is rewritten at
    /// every segment open and close), and after a crash until `segrec recover` runs.
    public var stopReason: StopReason?
    /// Session time at which it stopped (the change time in stop-on-change mode; the end of
    /// the last frame otherwise); `null` when no frame was recorded.
    public var stopTime: MediaTime?
    /// The error message when `stopReason` is `error`.
    public var error: String?
    /// Frame accounting: `received == written + dropped`.
    public var frames = FrameCounts()
    /// Sound accounting (Docs/DESIGN.md "Audio"), present when the recording has a
    /// microphone: samples received from it and written into the segments.
    public var audio: AudioCounts?
    /// Disagreements between buffers and announcements, dropped frames, adjustments.
    public var warnings: [String] = []
    /// Free-form notes (e.g. ignored audio tracks of a source file).
    public var notes: [String] = []
    /// What `segrec recover` did after an interrupted recording, or nil.
    package var recovery: RecoveryInfo?
    /// True when every frame carries the frame-index stamp (Docs/clocks.md) in rows 0–15, so
    /// `segrec verify` can read each frame's index back from the decoded pictures.
    public var frameIndexStamp = false
    /// What the capture session did, in session order (posture changes, camera switches,
    /// constituent swaps, facing and mirroring changes, turns, format switches, zooms, …):
    /// always present for several cameras; for one camera present once its session logs an
    /// event (possibly empty when every logged event was left out, see Docs/manifest.md,
    /// `events`); absent (`nil`) for footage passed through and in manifests written before it.
    package var events: [SessionEventRecord]?
    /// The wall clock at session start, ISO 8601 UTC with milliseconds
    /// (`2026-12-02T01:25:15.123Z`); each file's `creation_time` is this plus its
    /// `sessionStart` less the first segment's. Absent in manifests written before it.
    public var recordedAt: String?
    /// The segment limits the recording was made with (`--max-segment-duration`,
    /// `--max-segment-bytes`); absent when none was given.
    package var segmentLimits: SegmentLimits?

    /// `date` as the manifest writes ``recordedAt``: ISO 8601 UTC with milliseconds.
    package static func timestamp(_ date: Date) -> String { UTCTimestamp.string(date, fractionDigits: 3) }

    /// An empty manifest (no segment yet, `stopReason: null`: recording).
    package init(mode: RecordingMode, devices: [DeviceInfo], encoder: EncoderInfo?) {
        self.mode = mode
        self.sessionClock = SessionClockInfo(timescale: MediaClock.host.timescale)
        self.devices = devices
        self.encoder = encoder
    }

    // Explicit so that `stopTime` and `error` are written as `null` rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(formatVersion, forKey: .formatVersion)
        try c.encodeIfPresent(recordedAt, forKey: .recordedAt)
        try c.encode(mode, forKey: .mode)
        try c.encode(sessionClock, forKey: .sessionClock)
        try c.encode(devices, forKey: .devices)
        try c.encode(self.encoder, forKey: .encoder)
        try c.encode(segments, forKey: .segments)
        try c.encode(stopReason, forKey: .stopReason)
        try c.encode(stopTime, forKey: .stopTime)
        try c.encode(error, forKey: .error)
        try c.encode(frames, forKey: .frames)
        try c.encodeIfPresent(audio, forKey: .audio)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(notes, forKey: .notes)
        try c.encode(frameIndexStamp, forKey: .frameIndexStamp)
        try c.encodeIfPresent(recovery, forKey: .recovery)
        try c.encodeIfPresent(events, forKey: .events)
        try c.encodeIfPresent(segmentLimits, forKey: .segmentLimits)
    }
}

/// The limits after which a segment ends though nothing changed (Docs/recording.md,
/// "Segment limits").
package struct SegmentLimits: Codable, Sendable, Equatable {
    /// `--max-segment-duration`: a segment's frames all start before its `sessionStart`
    /// plus this; the first frame at or after it opens the next (`maxSegmentDuration`).
    package var maxSegmentDuration: MediaTime?
    /// `--max-segment-bytes`: the first frame given after a file's encoded packets reach
    /// this many bytes opens the next segment (`maxSegmentBytes`).
    package var maxSegmentBytes: Int64?

    /// Limits; nil fields are not set.
    package init(maxSegmentDuration: MediaTime? = nil, maxSegmentBytes: Int64? = nil) {
        self.maxSegmentDuration = maxSegmentDuration
        self.maxSegmentBytes = maxSegmentBytes
    }
}

/// How dimension changes are handled.
public enum RecordingMode: String, Codable, Sendable, CaseIterable {
    /// AVAssetWriter-style: close the segment and open the next at the change time.
    case segment
    /// AVCaptureMovieFileOutput-style: the first frame with new dimensions stops recording.
    case stopOnChange = "stop-on-change"
}

/// Why a segment started.
public enum SegmentStartReason: String, Codable, Sendable {
    case recordingStarted
    case dimensionsChanged
    /// `--max-segment-duration`: the previous segment reached the limit; this one starts at
    /// the first frame at or after the previous segment's `sessionStart` plus the limit.
    case maxSegmentDuration
    /// `--max-segment-bytes`: the previous file's encoded packets reached the limit; this
    /// one starts at the next frame given to the encoder.
    case maxSegmentBytes
    /// The session switched to another camera (several-camera recordings): the segment's
    /// `change` names `camera` and `previousCamera`.
    case cameraSwitched
    /// The camera's active format changed (`apply` or `activeFormat`) and with it the
    /// dimensions or the frame rate: `change` holds the new format's first frame.
    case formatChanged
    /// `--split-on-rotation`: the capture angle changed; the segment starts at the first
    /// frame captured at or after the change.
    case rotationChanged
    /// The source delivered no frame for longer than a file can hold one frame
    /// (`SegmentMuxer/maximumFrameDuration`): the previous segment ended after its
    /// last frame and this one starts at the next frame, leaving a gap in the timeline.
    case timestampGap
    /// `--copy`: a live source came back after an outage at the same size but with other
    /// stream parameters (the codec's parameter sets, the copied sound's configuration):
    /// a file's track has one sample description, so the new connection's first keyframe
    /// starts a new file.
    case streamParametersChanged
}

/// Why the recording stopped.
public enum StopReason: String, Codable, Sendable {
    case endOfStream
    case dimensionsChanged
    /// Stop-on-change mode: the session switched cameras.
    case cameraSwitched
    /// Stop-on-change mode: the active format changed the dimensions or the frame rate.
    case formatChanged
    case requested
    case error
    /// The recording process died (kill, crash, power loss); written by `segrec recover`.
    case interrupted
}

/// What `segrec recover` kept of an interrupted recording.
package struct RecoveryInfo: Codable, Sendable, Equatable {
    /// Session time after which frames were lost: the end of the last recovered frame.
    package var lostAfter: MediaTime?
    /// `lostAfter` in seconds, for display only.
    package var lostAfterSeconds: Double?
    /// Segment files rebuilt from their fragmented `.partial` files.
    package var recoveredFiles: [String]
    /// Frames kept in the rebuilt files.
    package var framesRecovered: Int
    /// Frames the last journal counted as written that are in no file (at least; frames
    /// captured after the last journal write are not counted anywhere).
    package var framesLost: Int
}

/// `{"timescale": 1000000000}`.
package struct SessionClockInfo: Codable, Sendable, Equatable {
    /// Ticks per second of the session clock (1_000_000_000: host nanoseconds).
    package var timescale: Int32
}

/// A device clock as recorded in the manifest: the scenario's decimal parameters plus the
/// exact integers actually used.
package struct DeviceInfo: Codable, Sendable, Equatable {
    /// The clock's name (`front` for the fake camera, `input` for a file's time base).
    package var id: String
    /// Device ticks per second.
    package var timescale: Int32
    /// Offset in seconds (display; `offsetNanoseconds` is exact).
    package var offsetSeconds: Double
    /// Drift in ppm (display; `driftPartsPerBillion` is exact).
    package var driftPPM: Double
    /// Exact offset used, nanoseconds.
    package var offsetNanoseconds: Int64
    /// Exact drift used, parts per billion.
    package var driftPartsPerBillion: Int64
    /// The camera model's controls for this device (camera-model recordings only; absent
    /// for footage passed through and in older manifests).
    /// `AVCaptureDevice.DeviceType` spelling.
    package var deviceType: String? = nil
    /// `preferredVideoStabilizationMode` (`off`, …, `lowLatency`), when the scenario set one.
    package var preferredVideoStabilizationMode: String? = nil
    /// The change latency in effect, frames (the mode's default unless given explicitly).
    package var changeLatencyFrames: Int64? = nil
    /// The process-wide `isCenterStageEnabled` at session start.
    package var centerStageEnabled: Bool? = nil
    /// `centerStageControlMode` (`user`, `app`, `cooperative`).
    package var centerStageControlMode: String? = nil
    /// Whether the active format supports Center Stage (`isCenterStageSupported`).
    package var isCenterStageSupported: Bool? = nil
    /// `isCenterStageActive` at session start (changes are in `events`).
    package var isCenterStageActive: Bool? = nil
    /// The connection's `activeVideoStabilizationMode` at session start: `off` when no mode
    /// is set, as on `AVCaptureConnection` (changes at a format switch are in `events`).
    package var activeVideoStabilizationMode: String? = nil
    /// Depth data delivery at session start; written only when on.
    package var isDepthDataDeliveryEnabled: Bool? = nil
    /// Geometric distortion correction at session start; written only when on.
    package var isGeometricDistortionCorrectionEnabled: Bool? = nil

    /// Describes `clock`, with the camera controls of `controls` when given.
    package init(clock: MediaClock, controls: DeviceControlInfo? = nil) {
        id = clock.identifier
        timescale = clock.timescale
        offsetNanoseconds = clock.offsetNanoseconds
        driftPartsPerBillion = clock.driftPartsPerBillion
        offsetSeconds = Double(clock.offsetNanoseconds) / 1e9
        driftPPM = Double(clock.driftPartsPerBillion) / 1000
        guard let controls else { return }
        deviceType = controls.deviceType
        preferredVideoStabilizationMode = controls.preferredVideoStabilizationMode?.rawValue
        changeLatencyFrames = controls.changeLatencyFrames
        centerStageEnabled = controls.centerStageEnabled
        centerStageControlMode = controls.centerStageControlMode.rawValue
        isCenterStageSupported = controls.isCenterStageSupported
        isCenterStageActive = controls.isCenterStageActive
        activeVideoStabilizationMode = controls.activeVideoStabilizationMode.rawValue
        isDepthDataDeliveryEnabled = controls.isDepthDataDeliveryEnabled ? true : nil
        isGeometricDistortionCorrectionEnabled = controls.isGeometricDistortionCorrectionEnabled ? true : nil
    }
}

/// The encoder used for every segment.
package struct EncoderInfo: Codable, Sendable, Equatable {
    /// `h264` or `hevc`.
    package var codec: String
    /// The libavcodec encoder (`libx264`, `libx265`).
    package var encoder: String
    /// The x264/x265 preset.
    package var preset: String
    /// Constant rate factor, 0...51.
    package var crf: Int
    /// Frames between keyframes (GOP size).
    package var keyframeInterval: Int
}

/// The change that opened a segment: the `setDynamicAspectRatio` answer and its conversion,
/// or, when no answer arrived before the recording ended, the buffers' own first frame.
public struct ChangeRecord: Codable, Sendable, Equatable {
    /// Device-clock time of the first frame with the new dimensions: what the camera
    /// announced, or (``announced`` false) the first new-size frame's device time.
    public var deviceTime: MediaTime
    /// `deviceTime` converted to the session clock.
    public var sessionTime: MediaTime
    /// The ratio requested (or matching the new dimensions), when known.
    public var aspectRatio: String?
    /// False when no `setDynamicAspectRatio` completion announced the change before the
    /// recording ended (or the source announces none, as pass-through footage).
    public var announced: Bool
    /// For a `cameraSwitched` segment: the camera switched to (`deviceTime` is on its
    /// clock); absent otherwise.
    public var camera: String?
    /// For a `cameraSwitched` segment: the camera switched from; absent otherwise.
    public var previousCamera: String?

    /// A change record; `announced` defaults to true (a completion's answer); `camera` and
    /// `previousCamera` only for a camera switch.
    public init(
        deviceTime: MediaTime, sessionTime: MediaTime, aspectRatio: String?, announced: Bool = true, camera: String? = nil, previousCamera: String? = nil
    ) {
        self.deviceTime = deviceTime
        self.sessionTime = sessionTime
        self.aspectRatio = aspectRatio
        self.announced = announced
        self.camera = camera
        self.previousCamera = previousCamera
    }

    /// The answer of a completed `setDynamicAspectRatio`.
    package init(_ change: DynamicAspectRatioChange) {
        self.init(deviceTime: change.deviceTime, sessionTime: change.sessionTime, aspectRatio: change.aspectRatio?.rawValue)
    }

    /// Reads a record; manifests written before `announced` existed mean `true`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceTime = try c.decode(MediaTime.self, forKey: .deviceTime)
        sessionTime = try c.decode(MediaTime.self, forKey: .sessionTime)
        aspectRatio = try c.decodeIfPresent(String.self, forKey: .aspectRatio)
        announced = try c.decodeIfPresent(Bool.self, forKey: .announced) ?? true
        camera = try c.decodeIfPresent(String.self, forKey: .camera)
        previousCamera = try c.decodeIfPresent(String.self, forKey: .previousCamera)
    }
}

/// One MP4 file of constant dimensions.
public struct SegmentRecord: Codable, Sendable, Equatable {
    /// File name inside the output folder, e.g. `segment-000.mp4`.
    public var file: String
    /// Width in pixels of every frame in the file.
    public var width: Int
    /// Height in pixels of every frame in the file.
    public var height: Int
    /// `9x16`, … when the frames came from the camera model; `null` for pass-through input.
    public var aspectRatio: String?
    /// Frames in the file.
    public var frameCount: Int
    /// Capture index of the file's first frame.
    public var firstFrameIndex: Int64
    /// Session time of the file's first frame; the file's own timeline starts at 0 there.
    public var sessionStart: MediaTime
    /// `sessionStart` in seconds, for display only.
    public var sessionStartSeconds: Double
    /// Session time at which the last frame ends: the next segment's `sessionStart`.
    public var sessionEnd: MediaTime
    /// `sessionEnd` in seconds, for display only.
    public var sessionEndSeconds: Double
    /// Before a camera or format switch: the session time at which the file's pictures end
    /// (its last frame plus the camera's frame period), before `sessionEnd`; the switch's
    /// gap without pictures runs from here to the next segment's `sessionStart` (its sound
    /// stays in this file). Absent when the pictures last until `sessionEnd`.
    package var framesEnd: MediaTime? = nil
    /// `framesEnd` in seconds, for display only.
    package var framesEndSeconds: Double? = nil
    /// Why this file was started.
    public var startReason: SegmentStartReason
    /// The change for segments that start on new dimensions (`dimensionsChanged`, or a
    /// `timestampGap` with new dimensions), else `null`.
    public var change: ChangeRecord?
    /// File size in bytes.
    public var byteCount: Int64
    /// Camera-model recordings: the capture angle in effect at the segment's first frame
    /// (`videoRotationAngleForHorizonLevelCapture`, clockwise degrees 0, 90, 180, 270; the
    /// file's display matrix reads back in ffprobe as `rotation` = −angle). Footage passed
    /// through: the same clockwise angle, from the input's display matrix (ffprobe's −90
    /// is 90), or `null` when the input has none.
    public var rotationDegrees: Int?
    /// The streaming camera's id (several-camera recordings; `virtualFront` for the
    /// Virtual Front Camera); absent for one camera and for footage.
    public var camera: String? = nil
    /// Where that camera faced at the segment's first frame; absent with `camera`.
    public var facing: CameraFacing? = nil
    /// For a `virtualFront` segment: the constituent camera that made its first frame
    /// (later swaps are in the manifest's `events`); absent otherwise.
    public var constituent: String? = nil
    /// The segment's audio track (Docs/DESIGN.md "Audio"); absent in a recording without sound.
    public var audio: SegmentAudioRecord? = nil
    /// `true` when the file holds the input's video packets as they were sent (`--copy`:
    /// not decoded, not re-encoded); absent otherwise.
    package var copied: Bool? = nil

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(aspectRatio, forKey: .aspectRatio)
        try c.encode(frameCount, forKey: .frameCount)
        try c.encode(firstFrameIndex, forKey: .firstFrameIndex)
        try c.encode(sessionStart, forKey: .sessionStart)
        try c.encode(sessionStartSeconds, forKey: .sessionStartSeconds)
        try c.encode(sessionEnd, forKey: .sessionEnd)
        try c.encode(sessionEndSeconds, forKey: .sessionEndSeconds)
        try c.encodeIfPresent(framesEnd, forKey: .framesEnd)
        try c.encodeIfPresent(framesEndSeconds, forKey: .framesEndSeconds)
        try c.encode(startReason, forKey: .startReason)
        try c.encode(change, forKey: .change)
        try c.encode(byteCount, forKey: .byteCount)
        try c.encode(rotationDegrees, forKey: .rotationDegrees)
        try c.encodeIfPresent(camera, forKey: .camera)
        try c.encodeIfPresent(facing, forKey: .facing)
        try c.encodeIfPresent(constituent, forKey: .constituent)
        try c.encodeIfPresent(audio, forKey: .audio)
        try c.encodeIfPresent(copied, forKey: .copied)
    }
}

/// One segment's audio track: AAC-LC at the microphone's nominal rate, holding exactly the
/// sound of the segment's `[sessionStart, sessionEnd)` (`sampleCount` = `round((sessionEnd −
/// sessionStart) · sampleRate)` ± 1; the track's timescale is `sampleRate`).
public struct SegmentAudioRecord: Codable, Sendable, Equatable {
    /// `aac` (AAC-LC, libavcodec's encoder).
    public var codec: String
    /// Sample frames per second (the track's timescale).
    public var sampleRate: Int
    /// Channels.
    public var channels: Int
    /// Sample frames in the track (the edit list hides the encoder's priming and padding).
    public var sampleCount: Int64

    /// A record; see the properties.
    public init(codec: String = "aac", sampleRate: Int, channels: Int, sampleCount: Int64) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleCount = sampleCount
    }

    /// The record of a track rebuilt from a `.partial` file's complete fragments
    /// (`aac`, its rate, channels and the samples kept).
    init(recovered audio: RecoveredAudio) {
        self.init(codec: audio.codecName, sampleRate: audio.sampleRate, channels: audio.channelCount, sampleCount: audio.sampleCount)
    }

    /// The warning for a segment rebuilt from fragments that held none of its sound (a
    /// disk that filled before the first fragment's audio samples were written): the file
    /// has pictures only, and the manifest no `audio` record for it.
    static func noneKeptWarning(_ file: String) -> String {
        "\(file): none of its sound was in a complete fragment on disk; the rebuilt file has pictures only"
    }
}

/// Sound accounting for the whole recording, in sample frames.
public struct AudioCounts: Codable, Sendable, Equatable {
    /// Samples the microphone delivered (on its own clock, every buffer).
    public var received: Int64 = 0
    /// Samples written into the segments (at the nominal rate on the session clock, after
    /// resampling: differs from `received` by the microphone's drift and by what lies
    /// outside the recorded segments).
    public var written: Int64 = 0
    /// Buffers received: the microphone's (each of its `bufferFrames`, the last one shorter)
    /// or the footage decoder's audio frames; nil in manifests written before it was counted.
    package var buffers: Int64?

    /// Counts; zero by default.
    public init(received: Int64 = 0, written: Int64 = 0) {
        self.received = received
        self.written = written
    }
}

/// Frame accounting for the whole recording.
public struct FrameCounts: Codable, Sendable, Equatable {
    /// Frames the source delivered.
    public var received: Int = 0
    /// Frames written into some segment.
    public var written: Int = 0
    /// Frames not written; `droppedReasons` says why.
    public var dropped: Int = 0
    /// Reason → count, e.g. `{"recordingStopped": 120}`.
    public var droppedReasons: [String: Int] = [:]
    /// Packets of a footage input that were damaged (flagged corrupt by the demuxer or
    /// rejected by the decoder); absent when there were none. Pictures decoded from them
    /// with concealed errors are written; pictures lost are dropped `corrupt`.
    public var corruptPackets: Int?

    mutating func drop(_ reason: DropReason, count: Int = 1) {
        dropped += count
        droppedReasons[reason.rawValue, default: 0] += count
    }
}
