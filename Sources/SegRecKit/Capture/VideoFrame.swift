/// One captured video frame as a `VideoDataOutput` delivers it: the analog of the
/// `CMSampleBuffer` an `AVCaptureVideoDataOutputSampleBufferDelegate` receives.
public struct VideoFrame: Sendable {
    /// The picture (NV12).
    public var pixelBuffer: PixelBuffer
    /// Index of the frame in capture order, from 0 (what the stamp carries).
    public let index: Int64
    /// Capture time on the device clock, at the device clock's timescale (`D(i)`).
    public let deviceTime: MediaTime
    /// Presentation time on the session's synchronization clock (host nanoseconds):
    /// `convertTime(deviceTime, device → host)`. What the recorder uses.
    public let sessionTime: MediaTime
    /// Nominal duration on the session clock: the next frame's session time minus this
    /// one's. The recorder uses it only for the last frame of a stream.
    public let duration: MediaTime
    /// When the frame reached the recorder's side on the monotonic clock (`ContinuousClock`),
    /// or nil until someone stamps it: real-time pacing stamps its capture instant, the
    /// ``RecordingPipeline`` stamps the others as it takes them from the source. Used only
    /// for `--stats` timings.
    public var deliveredAt: ContinuousClock.Instant? = nil
    /// The camera that delivered the frame in a several-camera session (Docs/cameras.md,
    /// "Cameras"), or `nil` for the single camera and for footage passed through.
    public var camera: FrameCamera? = nil
    /// The capture angle in effect for this frame (`videoRotationAngleForHorizonLevelCapture`
    /// when the camera model captured it, Docs/cameras.md "Orientation, formats and
    /// stabilization"), or `nil` for footage passed through. A segment file's display matrix
    /// carries its first frame's angle.
    public var rotationAngle: VideoRotationAngle? = nil
    /// The camera's active format and capture rate for this frame, or `nil` for footage
    /// passed through. A change of format that changes the dimensions or the rate starts a
    /// segment (`startReason: formatChanged`).
    public var captureFormat: CaptureFormatTag? = nil

    /// A frame; times as documented on the properties (device ticks, session nanoseconds).
    public init(pixelBuffer: PixelBuffer, index: Int64, deviceTime: MediaTime,
                sessionTime: MediaTime, duration: MediaTime) {
        self.pixelBuffer = pixelBuffer
        self.index = index
        self.deviceTime = deviceTime
        self.sessionTime = sessionTime
        self.duration = duration
    }

    /// The picture's dimensions.
    public var dimensions: VideoDimensions { pixelBuffer.dimensions }
}

/// Which camera delivered a frame (several-camera sessions).
public struct FrameCamera: Sendable, Hashable {
    /// The streaming device's id: a camera of `cameras`, or `virtualFront`.
    public let id: String
    /// The streaming device's type.
    public let deviceType: CaptureDevice.DeviceType
    /// Where it faced when the frame was captured.
    public let facing: CameraFacing
    /// The physical camera that made the picture (the Virtual Front Camera's constituent;
    /// else `id`).
    public let producer: String
    /// `producer`'s 0-based position in `cameras`: what the stamp's rows 16–31 carry.
    public let producerPosition: Int
    /// Whether the buffer was mirrored (flipped left-right, `isVideoMirrored`).
    public let isMirrored: Bool

    /// A camera record; see the properties.
    public init(id: String, deviceType: CaptureDevice.DeviceType, facing: CameraFacing, producer: String,
                producerPosition: Int, isMirrored: Bool) {
        self.id = id
        self.deviceType = deviceType
        self.facing = facing
        self.producer = producer
        self.producerPosition = producerPosition
        self.isMirrored = isMirrored
    }
}

/// A completed `setDynamicAspectRatio` request as the output reports it to the recorder.
public struct DynamicAspectRatioChange: Sendable, Hashable, Codable {
    /// The ratio requested; `nil` for a change an app announced without a ratio
    /// (``PushRecorder/finishCurrentSegment(atSessionTime:)`` on dimensions no ratio crops).
    public let aspectRatio: DynamicAspectRatio?
    /// Dimensions of frames cropped to that ratio on the active format.
    public let dimensions: VideoDimensions
    /// Device-clock time of the first frame with the new ratio: what
    /// `setDynamicAspectRatio` returned.
    public let deviceTime: MediaTime
    /// `deviceTime` converted to the session clock (`CMSyncConvertTime`).
    public let sessionTime: MediaTime

    /// A completion: the ratio, its dimensions, and the device and session times of its first frame.
    public init(aspectRatio: DynamicAspectRatio?, dimensions: VideoDimensions,
                deviceTime: MediaTime, sessionTime: MediaTime) {
        self.aspectRatio = aspectRatio
        self.dimensions = dimensions
        self.deviceTime = deviceTime
        self.sessionTime = sessionTime
    }
}

/// Which active format (and rate) a camera captured a frame with: what the recorder compares
/// to see a format switch (`activeFormat` / `apply`, Docs/cameras.md "Active format").
public struct CaptureFormatTag: Sendable, Hashable {
    /// The camera's id (`front`, `outer`, …).
    public let camera: String
    /// The format's scenario spelling (`"1920"`, `"1920x1080"`).
    public let format: String
    /// Capture rate, frames per second.
    public let frameRate: FrameRate
    /// Bumped on every format switch of the camera (0 before any), so a switch back to the
    /// same format still reads as a switch.
    public let generation: Int

    /// A tag; see the properties.
    public init(camera: String, format: String, frameRate: FrameRate, generation: Int) {
        self.camera = camera
        self.format = format
        self.frameRate = frameRate
        self.generation = generation
    }
}
