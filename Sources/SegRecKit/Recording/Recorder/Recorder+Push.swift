import Foundation

/// The push input's calls: what an app's `AVCaptureVideoDataOutput` and
/// `AVCaptureAudioDataOutput` delegates hand a recorder, and the two announcements of the
/// Center Stage article's `SegmentingRecorder`.
extension Recorder: SegmentingRecorder {
    /// Appends one picture captured at `sessionTime` (session clock, any timescale; times
    /// must increase), kept on the session clock's nanosecond timescale (rounded once, half
    /// away from zero). Its index is the number of pictures pushed before it.
    /// Mirrors `AVAssetWriterInputPixelBufferAdaptor.append(_:withPresentationTime:)`.
    /// - Parameters:
    ///   - sessionTime: when the picture was captured, on the session clock.
    ///   - picture: NV12 or I420 (``PixelBuffer``, handed on without a copy) or packed
    ///     BGRA / RGBA (``PackedPicture``, converted by libswscale); any stride.
    ///   - captureAngle: the capture angle (`RotationCoordinator.videoRotationAngleForHorizonLevelCapture`)
    ///     from this picture on; nil keeps the last one given (none: no rotation). A
    ///     segment's first picture's angle is its file's display matrix; with
    ///     ``RecordingConfiguration/splitOnRotation`` a new angle starts a segment.
    /// - Throws: ``RecordingError/invalidState(_:)`` once the recording has ended
    ///   (finished, stopped, or failed: then the recording's error); ``MediaTimeError`` for
    ///   a time the session clock cannot hold. A picture whose time does not come after the
    ///   last one is dropped and counted in the manifest, not thrown.
    public nonisolated func append(_ picture: PushedPicture, withPresentationTime sessionTime: MediaTime, captureAngle: VideoRotationAngle? = nil) async throws
    {
        let channel = try await pushChannelStarted("append")
        try await channel.send(.picture(picture, sessionTime: try sessionTime.converted(toTimescale: Self.sessionClock.timescale), captureAngle: captureAngle))
    }

    /// `append(_:withPresentationTime:captureAngle:)` of an NV12 or I420 picture.
    public nonisolated func append(_ pixelBuffer: PixelBuffer, withPresentationTime sessionTime: MediaTime, captureAngle: VideoRotationAngle? = nil)
        async throws
    { try await append(.pixelBuffer(pixelBuffer), withPresentationTime: sessionTime, captureAngle: captureAngle) }

    /// Appends interleaved Float32 samples (−1...1) whose first sample was captured at
    /// `time` on ``PushInput/Audio/clock`` (any timescale). Buffers follow one another:
    /// the recorder follows their timestamps with libswresample's compensation, as for a
    /// microphone on its own clock (Docs/DESIGN.md "Audio"), and cuts the sound into the
    /// segments to the sample.
    /// - Throws: ``RecordingInputError/unsupportedAudio(_:)`` without ``PushInput/audio``
    ///   or for a count that is not a whole number of frames; as
    ///   `append(_:withPresentationTime:captureAngle:)` otherwise. Ignored (nothing
    ///   recorded) when ``RecordingConfiguration/recordsAudio`` is false.
    public nonisolated func appendAudio(_ samples: [Float], presentationTime time: MediaTime) async throws {
        let channel = try await pushChannelStarted("appendAudio")
        guard let audio = pushAudio else { throw RecordingInputError.unsupportedAudio("appendAudio: the push input was made without audio (PushInput.audio)") }
        guard samples.count % audio.channelCount == 0 else {
            throw RecordingInputError.unsupportedAudio("appendAudio: \(samples.count) samples are not whole frames of \(audio.channelCount) channels")
        }
        guard configuration.recordsAudio else { return }
        try await channel.send(.audio(AudioPCMBuffer(channelCount: audio.channelCount, samples: samples), deviceTime: time))
    }

    /// ``appendAudio(_:presentationTime:)`` of interleaved signed 16-bit samples (÷ 32 768).
    public nonisolated func appendAudio(_ samples: [Int16], presentationTime time: MediaTime) async throws {
        try await appendAudio(samples.map { Float($0) / 32_768 }, presentationTime: time)
    }

    /// Announces that the pictures from `time` (session clock) on have new dimensions; the
    /// open segment ends there. An announcement no picture of new dimensions follows is
    /// warned about when the recording finishes.
    /// - Throws: as `append(_:withPresentationTime:captureAngle:)`.
    public nonisolated func finishCurrentSegment(atSessionTime time: MediaTime) async throws {
        let channel = try await pushChannelStarted("finishCurrentSegment")
        try await channel.send(.finishCurrentSegment(try time.converted(toTimescale: Self.sessionClock.timescale)))
    }

    /// The next segment starts at `time` with the first picture of new dimensions: the same
    /// instant as ``finishCurrentSegment(atSessionTime:)`` (a later time replaces it).
    /// - Throws: as `append(_:withPresentationTime:captureAngle:)`.
    public nonisolated func startNextSegment(afterSessionTime time: MediaTime) async throws {
        let channel = try await pushChannelStarted("startNextSegment")
        try await channel.send(.startNextSegment(try time.converted(toTimescale: Self.sessionClock.timescale)))
    }

    /// Ends the input (`AVAssetWriter.finishWriting`): for pushed pictures, everything
    /// pushed is recorded and the open segment ends after its last picture; for a pulled
    /// input, a stop request. Then waits for the manifest, as ``run()`` does.
    /// - Returns: the manifest, also in the output folder.
    /// - Throws: ``RecordingFailure`` carrying the manifest of what was kept.
    public func finishWriting() async throws(RecordingFailure) -> RecordingManifest {
        if let pushChannel {
            start()
            pushChannel.close()
        } else {
            stop()
        }
        return try await run()
    }

    /// The push channel, with the recording started.
    /// - Throws: ``RecordingError/invalidState(_:)`` for a pulled input.
    private nonisolated func pushChannelStarted(_ call: String) async throws -> PushChannel {
        guard let pushChannel else { throw RecordingError.invalidState("Recorder.\(call): this recorder pulls its input; push calls need RecordingInput.push") }
        await start()
        return pushChannel
    }
}
