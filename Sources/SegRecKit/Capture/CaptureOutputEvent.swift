/// One item of the ordered, in-band stream a source delivers to the recorder: frames, the
/// answers to `setDynamicAspectRatio`, frames dropped before the recorder, and what the
/// source noticed about its input. Nothing travels back: a source never holds the recorder.
///
/// Mirrors what an `AVCaptureVideoDataOutputSampleBufferDelegate` sees (`didOutput`,
/// `didDrop`) plus the completion handlers of `AVCaptureDevice.setDynamicAspectRatio`, all
/// serialized on one queue, in delivery order.
///
/// Not `Sendable` (a ``VideoFrame``'s pixels may be the decoder's buffers): an event
/// crosses into the recorder as a `sending` value.
package enum CaptureOutputEvent {
    /// The format of the frames that follow (camera, capture rate, angle, dimensions), sent
    /// before the first frame and whenever it changes, like GStreamer's CAPS event.
    case formatChanged(VideoStreamFormat)
    /// A captured frame (`captureOutput(_:didOutput:from:)`), in the last announced format.
    case frame(VideoFrame)
    /// A buffer of microphone samples (`AVCaptureAudioDataOutput`'s `captureOutput(_:didOutput:from:)`),
    /// placed in the stream by its timestamp: it comes before every frame whose session time
    /// is after the buffer's first sample. A camera switch never interrupts it.
    case audioSampleBuffer(AudioSampleBuffer)
    /// A `setDynamicAspectRatio` request that took effect: its ratio and the device and
    /// session times of its first frame. May come before or after that frame.
    case dynamicAspectRatioChangeCompleted(DynamicAspectRatioChange)
    /// A `setDynamicAspectRatio` request that never took effect, because a later request
    /// took effect on the same frame (or the camera was switched first): it completes with
    /// the error `superseded`, like a cancelled task, instead of a time.
    case dynamicAspectRatioChangeSuperseded(DynamicAspectRatioSupersession)
    /// A frame that was captured but never reached the recorder (`captureOutput(_:didDrop:from:)`).
    case frameDropped(DroppedFrame)
    /// A remark about the input for the manifest's `notes` (e.g. an ignored audio stream).
    case note(String)
    /// Something the source adjusted or distrusts, for the manifest's `warnings`.
    case warning(String)
    /// The input had `packets` more damaged packets (flagged corrupt by the demuxer or
    /// rejected by the decoder), for the manifest's `frames.corruptPackets`. Pictures they
    /// cost come as ``frameDropped(_:)`` with reason `corrupt`.
    case inputDamaged(packets: Int)
    /// Something the session did or saw (posture change, camera switch, constituent swap,
    /// facing or mirroring change, …): the recorder logs it in the manifest's `events`.
    case sessionEvent(CaptureSessionChange)
    /// A packet of the input's sound copied as sent (`--copy`), at its session time: it goes
    /// into the segment open at that time, never decoded.
    case copiedAudio(CopiedAudioPacket)
}

/// A `setDynamicAspectRatio` request that completed with the error `superseded`.
package struct DynamicAspectRatioSupersession: Sendable, Hashable {
    /// The ratio asked for.
    package let aspectRatio: DynamicAspectRatio
    /// Host time (session clock) at which the request was made.
    package let requestTime: MediaTime
    /// The frame the request would have taken effect on; a later request took it.
    package let effectiveFrameIndex: Int64

    /// A superseded request: its ratio, request time (host clock) and would-be first frame.
    package init(aspectRatio: DynamicAspectRatio, requestTime: MediaTime, effectiveFrameIndex: Int64) {
        self.aspectRatio = aspectRatio
        self.requestTime = requestTime
        self.effectiveFrameIndex = effectiveFrameIndex
    }

    /// The supersession of `request` (its ratio, request time and effective frame).
    init(_ request: DynamicAspectRatioRequest) {
        self.init(aspectRatio: request.aspectRatio, requestTime: request.requestTime, effectiveFrameIndex: request.effectiveFrameIndex)
    }
}

/// A frame dropped before it reached the recorder, or a run of `count` such frames (the
/// pictures a stretch of damaged input swallowed: one event, whatever their number).
package struct DroppedFrame: Sendable, Hashable {
    /// Its index in capture order, when known (then `count` is 1).
    package let index: Int64?
    /// Why it was dropped.
    package let reason: DropReason
    /// How many frames, at least 1.
    package let count: Int

    /// A dropped frame: its capture index (if known) and the reason; `count` frames
    /// (at least 1) when they are a run without indices.
    package init(index: Int64?, reason: DropReason, count: Int = 1) {
        self.index = index
        self.reason = reason
        self.count = max(1, count)
    }
}
