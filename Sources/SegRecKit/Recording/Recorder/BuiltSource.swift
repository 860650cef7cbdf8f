import Foundation

/// What an input becomes inside the ``Recorder``: the source it pulls and what the muxer
/// configuration needs to know about it.
struct BuiltSource {
    var source: any CaptureOutputEventSource
    var settings: EncoderSettings
    var devices: [MediaClock]
    var stampsFrameIndex: Bool
    var notes: [String] = []
    var rotationDegrees: Int? = nil
    var recordsSessionEvents = false
    var deviceControls: [String: DeviceControlInfo] = [:]
    /// Frames the source will deliver, when known (capacity for statistics timings).
    var expectedFrames = 0
    /// Every rate the source may capture at (``SegmentMuxer/Configuration/captureFrameRates``).
    var captureFrameRates: [FrameRate] = []
    /// The segments' audio track (the session's microphone), or nil.
    var audio: AudioTrackSettings? = nil
    /// The writer queue depth this source records with when
    /// ``RecordingConfiguration/framesInFlight`` is not given (nil: ``SegmentMuxer/framesInFlight``).
    var framesInFlight: Int? = nil
    /// Paced in real time: a frame that finds the writer queue full is dropped `late`.
    var dropsFramesWhenBehind = false
    /// The channel an app's pushed pictures and sound arrive through (push inputs only).
    var pushChannel: PushChannel? = nil
    /// When the footage was recorded (its `creation_time`): the recording date; nil: now.
    var recordedAt: Date? = nil
    /// Where the footage was recorded (its `location`, ISO 6709): every segment's.
    var location: String? = nil
    /// The pushed sound's format (push inputs with sound only).
    var pushAudio: PushInput.Audio? = nil
    /// The source's frames are packets copied as sent (`--copy`).
    var copiesStream = false
    /// The sound copied as sent beside them, or nil.
    var copiedAudio: CopiedAudioFormat? = nil
}

extension Recorder {
    /// Checks that the configuration and the input go together, then builds the source.
    /// - Throws: ``RecordingInputError``, and what the source builders throw.
    static func buildSource(_ configuration: RecordingConfiguration, input: RecordingInput, pool: PixelBufferPool, stopRequest: RecordingStopRequest?) throws
        -> BuiltSource
    {
        switch input {
        case .push(let push):
            try checkCombinations(configuration, passesThrough: false, camerasScenario: false, hasClips: false)
            if configuration.mirror != .off { throw RecordingInputError.mirrorNeedsCameraModel(configuration.mirror) }
            return try pushedSource(configuration, push, pool: pool)
        case .pull(let request):
            try checkCombinations(
                configuration, passesThrough: request.passesFootageThrough, camerasScenario: request.camerasScenario != nil,
                hasClips: !request.cameraClips.isEmpty)
            if request.copiesStream, !request.passesFootageThrough {
                throw RecordingInputError.unsupportedCopy("it applies to footage passed through (a file, a pipe or a URL), not to the camera model")
            }
            var built: BuiltSource
            if let scenario = request.camerasScenario {
                built = try camerasSource(configuration, request, scenario: scenario, pool: pool, stopRequest: stopRequest)
            } else if request.source == .synthetic || request.scenario != nil {
                built = try oneCameraSource(configuration, request, scenario: request.scenario ?? Scenario.tapToRotate, pool: pool, stopRequest: stopRequest)
            } else if request.copiesStream {
                built = try footageCopied(configuration, request, stopRequest: stopRequest)
            } else {
                built = try footagePassedThrough(configuration, request, pool: pool, stopRequest: stopRequest)
            }
            if request.realtime {
                built.source = RealtimePacer(wrapping: built.source)
                built.dropsFramesWhenBehind = true
            }
            return built
        }
    }

    /// The fields that exclude each other, in the order `segrec record` checks them.
    private static func checkCombinations(_ configuration: RecordingConfiguration, passesThrough: Bool, camerasScenario: Bool, hasClips: Bool)
        throws(RecordingInputError)
    {
        if configuration.splitOnRotation {
            if configuration.mode != .segment { throw .splitOnRotationNeedsSegmentMode }
            if passesThrough { throw .splitOnRotationNeedsCameraModel }
        }
        guard !camerasScenario else { return }
        if hasClips { throw .cameraClipsNeedCameras }
        if passesThrough, configuration.mirror != .off { throw .mirrorNeedsCameraModel(configuration.mirror) }
    }
}
