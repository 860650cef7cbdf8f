/// One captured video frame as a `VideoDataOutput` delivers it: the analog of the
/// `CMSampleBuffer` an `AVCaptureVideoDataOutputSampleBufferDelegate` receives. Its camera,
/// rate and angle are the stream's, announced in-band before it (``VideoStreamFormat``).
///
/// Not `Sendable`: footage's pictures stay in the decoder's buffers (``FramePixels``), so a
/// frame moves from the source to the recorder and on to the segment's writer as a
/// `sending` value, given up by whoever hands it on, as a `CMSampleBuffer`'s image buffer
/// is handed to an `AVAssetWriterInput`.
package struct VideoFrame {
    /// The picture (NV12, or yuv420p footage kept as decoded).
    package var pixels: FramePixels
    /// Index of the frame in capture order, from 0 (what the stamp carries).
    package let index: Int64
    /// Capture time on the device clock, at the device clock's timescale (`D(i)`).
    package let deviceTime: MediaTime
    /// Presentation time on the session's synchronization clock (host nanoseconds):
    /// `convertTime(deviceTime, device → host)`. What the recorder uses.
    package let sessionTime: MediaTime
    /// Nominal duration on the session clock: the next frame's session time minus this
    /// one's. The recorder uses it only for the last frame of a stream.
    package let duration: MediaTime
    /// When the frame reached the recorder's side on the monotonic clock (`ContinuousClock`),
    /// or nil until someone stamps it: real-time pacing stamps its capture instant, the
    /// the `Recorder`'s loop stamps the others as it takes them from the source. Used only
    /// for `--stats` timings.
    package var deliveredAt: ContinuousClock.Instant? = nil
    /// What the picture's samples mean (colour, pixel aspect ratio) when its source knows
    /// it per picture (footage passed through); nil: the recording's own
    /// (``EncoderSettings/pictureDescription``). The first frame's is its segment file's.
    package var pictureDescription: PictureDescription? = nil

    /// A frame; times as documented on the properties (device ticks, session nanoseconds).
    package init(pixelBuffer: PixelBuffer, index: Int64, deviceTime: MediaTime, sessionTime: MediaTime, duration: MediaTime) {
        self.init(pixels: .pixelBuffer(pixelBuffer), index: index, deviceTime: deviceTime, sessionTime: sessionTime, duration: duration)
    }

    /// A frame whose picture may be the decoder's buffers; times as documented on the properties.
    package init(pixels: FramePixels, index: Int64, deviceTime: MediaTime, sessionTime: MediaTime, duration: MediaTime) {
        self.pixels = pixels
        self.index = index
        self.deviceTime = deviceTime
        self.sessionTime = sessionTime
        self.duration = duration
    }

    /// The picture's dimensions.
    package var dimensions: VideoDimensions { pixels.dimensions }

    /// The picture as a ``PixelBuffer``. Reading it copies a decoder's planes into fresh
    /// ones (``FramePixels/pixelBuffer(from:)``) on every call; setting it replaces the pixels.
    package var pixelBuffer: PixelBuffer {
        get { pixels.pixelBuffer() }
        set { pixels = .pixelBuffer(newValue) }
    }
}

/// A completed `setDynamicAspectRatio` request as the output reports it to the recorder.
package struct DynamicAspectRatioChange: Sendable, Hashable, Codable {
    /// The ratio requested; `nil` for a change an app announced without a ratio
    /// (`Recorder.finishCurrentSegment(atSessionTime:)` on dimensions no ratio crops).
    package let aspectRatio: DynamicAspectRatio?
    /// Dimensions of frames cropped to that ratio on the active format.
    package let dimensions: VideoDimensions
    /// Device-clock time of the first frame with the new ratio: what
    /// `setDynamicAspectRatio` returned.
    package let deviceTime: MediaTime
    /// `deviceTime` converted to the session clock (`CMSyncConvertTime`).
    package let sessionTime: MediaTime

    /// A completion: the ratio, its dimensions, and the device and session times of its first frame.
    package init(aspectRatio: DynamicAspectRatio?, dimensions: VideoDimensions, deviceTime: MediaTime, sessionTime: MediaTime) {
        self.aspectRatio = aspectRatio
        self.dimensions = dimensions
        self.deviceTime = deviceTime
        self.sessionTime = sessionTime
    }
}
