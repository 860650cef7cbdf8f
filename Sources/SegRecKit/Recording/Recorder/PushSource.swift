import Foundation

/// A picture as an app pushes it: planar or semi-planar 4:2:0 (NV12 `420v`, I420
/// `y420`) as a ``PixelBuffer``, handed on without a copy, or packed BGRA / RGBA,
/// converted to NV12 by libswscale.
public enum PushedPicture: Sendable {
    /// An NV12 or yuv420p picture, any stride: encoded as it is.
    case pixelBuffer(PixelBuffer)
    /// A packed BGRA or RGBA picture: converted to NV12 first.
    case packed(PackedPicture)

    /// The picture's dimensions.
    public var dimensions: VideoDimensions {
        switch self {
        case .pixelBuffer(let buffer): buffer.dimensions
        case .packed(let picture): picture.dimensions
        }
    }
}

/// The source an app's pushes become: it takes the items of a ``PushChannel`` on the
/// recorder's loop and turns them into the same ``CaptureOutputEvent``s a camera delivers.
///
/// - A picture becomes a frame stamped with its session time (device time = session
///   time); a new capture angle or size is announced first as the stream format
///   (``VideoStreamFormat``), so the file's rotation and `splitOnRotation` follow it.
/// - Sound becomes microphone buffers on the app's audio clock, converted to the session
///   clock (``convertTime(_:from:to:rounding:)``, `CMSyncConvertTime`) and placed with
///   compensation, as the synthetic microphone's are.
/// - The two announcements of the seeds' recorder become `setDynamicAspectRatio`
///   completions: an announcement belongs to the next change of dimensions, is handed on
///   after the first frame of the new size once a frame has reached its time, and the
///   buffers win where they disagree (the manifest warns).
final class PushSource: CaptureOutputEventSource {
    private let channel: PushChannel
    private let frameDuration: MediaTime
    private let frameRate: FrameRate
    private let audio: PushInput.Audio?
    private let converter: PackedPictureConverter
    private var outbox: [CaptureOutputEvent] = []
    private var appended: Int64 = 0
    private var samplesReceived: Int64 = 0
    private var dimensions: VideoDimensions?
    private var format: VideoStreamFormat?
    /// The time of an announced change whose first new-size frame has not arrived yet.
    private var announcedChange: MediaTime?
    /// An announced change whose new size has arrived, held until a frame reaches its time.
    private var heldCompletion: DynamicAspectRatioChange?
    /// The dimensions of the latest change of size no announcement has claimed yet.
    private var unannouncedDimensions: VideoDimensions?
    /// The session time of the last frame.
    private var lastTime: MediaTime?
    private var ended = false

    /// A source over `channel`; frames last one period of `frameRate` (the last one's).
    /// - Throws: ``MediaTimeError`` for a rate the session clock cannot hold.
    init(channel: PushChannel, frameRate: FrameRate, audio: PushInput.Audio?, pool: PixelBufferPool) throws {
        self.channel = channel
        self.frameRate = frameRate
        self.audio = audio
        converter = PackedPictureConverter(pixelBufferPool: pool)
        let period = frameRate.frameDuration
        frameDuration = try MediaTime(value: period.numerator, timescale: Int32(clamping: period.denominator)).converted(toTimescale: MediaClock.host.timescale)
    }

    nonisolated(nonsending) func next() async throws -> sending CaptureOutputEvent? {
        while outbox.isEmpty {
            guard !ended else { return nil }
            guard let item = await channel.take() else {
                ended = true
                end()
                continue
            }
            try receive(item)
        }
        return outbox.removeFirst().detached()
    }

    func stopRunning() { channel.close() }

    private func receive(_ item: PushChannel.Item) throws {
        switch item {
        case .picture(let picture, let sessionTime, let angle): try receive(picture, at: sessionTime, captureAngle: angle)
        case .audio(let pcm, let deviceTime): try receive(pcm, at: deviceTime)
        case .finishCurrentSegment(let time): announce(time)
        case .startNextSegment(let time):
            // The same instant as finishCurrentSegment's announces nothing more; a later time replaces it.
            if announcedChange == time || heldCompletion?.sessionTime == time { return }
            if let held = heldCompletion {
                heldCompletion = Self.completion(held.dimensions, at: time)
                if let lastTime { sendHeldCompletion(reached: lastTime) }
                return
            }
            announce(time)
        }
    }

    private func receive(_ picture: PushedPicture, at sessionTime: MediaTime, captureAngle: VideoRotationAngle?) throws {
        let pixelBuffer: PixelBuffer
        switch picture {
        case .pixelBuffer(let buffer): pixelBuffer = buffer
        case .packed(let packed): pixelBuffer = try converter.nv12(packed)
        }
        let newDimensions = pixelBuffer.dimensions
        let changed = dimensions.map { $0 != newDimensions } ?? false
        dimensions = newDimensions
        if let angle = captureAngle ?? format?.rotationAngle {
            let next = VideoStreamFormat(dimensions: newDimensions, frameRate: frameRate, rotationAngle: angle, activeFormat: "pushed")
            if next != format {
                format = next
                outbox.append(.formatChanged(next))
            }
        }
        outbox.append(.frame(VideoFrame(pixelBuffer: pixelBuffer, index: appended, deviceTime: sessionTime, sessionTime: sessionTime, duration: frameDuration)))
        appended += 1
        lastTime = sessionTime
        if changed {
            sendHeldCompletion()
            if let announced = announcedChange {
                announcedChange = nil
                heldCompletion = Self.completion(newDimensions, at: announced)
            } else {
                unannouncedDimensions = newDimensions
            }
        }
        sendHeldCompletion(reached: sessionTime)
    }

    private func receive(_ pcm: AudioPCMBuffer, at deviceTime: MediaTime) throws {
        guard let audio, pcm.frameCount > 0 else { return }
        let time = try deviceTime.converted(toTimescale: audio.clock.timescale)
        let next = try time.adding(MediaTime(value: Int64(pcm.frameCount), timescale: Int32(audio.sampleRate)))
        let buffer = AudioSampleBuffer(
            firstSampleIndex: samplesReceived, deviceTime: time, sessionTime: try convertTime(time, from: audio.clock, to: .host),
            nextSessionTime: try convertTime(next, from: audio.clock, to: .host), sampleRate: audio.sampleRate, pcm: pcm, isSynthetic: audio.isSyntheticSignal)
        samplesReceived += Int64(pcm.frameCount)
        outbox.append(.audioSampleBuffer(buffer))
    }

    /// The end of the pushes (``Recorder/finishWriting()``).
    private func end() {
        sendHeldCompletion()
        if let announced = announcedChange {
            outbox.append(
                .warning("finishCurrentSegment(atSessionTime: \(announced)) announced a change of dimensions, but no frame with new dimensions followed"))
        }
    }

    /// An app's announcement as a `setDynamicAspectRatio` completion: the ratio that crops
    /// to `dimensions`, if any; device time = session time.
    private static func completion(_ dimensions: VideoDimensions, at time: MediaTime) -> DynamicAspectRatioChange {
        DynamicAspectRatioChange(aspectRatio: DynamicAspectRatio(matching: dimensions), dimensions: dimensions, deviceTime: time, sessionTime: time)
    }

    /// Hands the held completion on once a frame has reached its time (nil: now).
    private func sendHeldCompletion(reached time: MediaTime? = nil) {
        guard let held = heldCompletion else { return }
        if let time, time < held.sessionTime { return }
        heldCompletion = nil
        outbox.append(.dynamicAspectRatioChangeCompleted(held))
    }

    /// An announcement at `time`: for the change of size already pushed and not yet
    /// announced (a late answer), else for the next one.
    private func announce(_ time: MediaTime) {
        if let dimensions = unannouncedDimensions {
            unannouncedDimensions = nil
            heldCompletion = Self.completion(dimensions, at: time)
            if let lastTime { sendHeldCompletion(reached: lastTime) }
        } else {
            announcedChange = time
        }
    }
}
