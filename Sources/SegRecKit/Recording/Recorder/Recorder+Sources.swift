import Foundation

/// The ways an input becomes a source: the camera model over the synthetic pattern, the
/// camera model over footage, several cameras (each on the pattern or a clip), footage
/// passed through with its own sizes and times, and an app's pushed pictures.
extension Recorder {
    /// The single Center Stage camera over the synthetic pattern (frame index stamped), or
    /// over the request's clip as its sensor image: each decoded picture centre-cropped to a
    /// square, scaled to the format's side; the clip's timestamps are ignored.
    static func oneCameraSource(
        _ configuration: RecordingConfiguration, _ request: PullInput, scenario: Scenario, pool: PixelBufferPool, stopRequest: RecordingStopRequest?
    ) throws -> BuiltSource {
        let scenario = audible(scenario, configuration)
        var settings = try encoderSettings(configuration, frameRate: scenario.device.fps)
        // The clip's own display rotation is applied to its pixels: the sensor image is
        // upright before it is cropped, and the files carry the device's capture angle.
        let sensor = try request.source.path.map { path in
            try DecodedClipSensor(squareSide: scenario.device.format, canReopen: path != "-", pixelBufferPool: pool, appliesDisplayRotation: true) {
                try FootageInput.open(path: path, options: request.sourceOptions, pixelBufferPool: pool, stopRequest: stopRequest)
            }
        }
        if let sensor { settings.pictureDescription = sensorImageDescription(sensor) }
        let stamp = sensor == nil || configuration.stampsFrameIndex
        let session = try scenarioSession(scenario, file: request.scenarioFile) {
            // The single Center Stage camera always faces the user: auto mirrors like on.
            try CaptureSession(
                scenario: scenario, sources: sensor.map { [$0] }, stampFrameIndex: stamp, mirrorMode: configuration.mirror, pixelBufferPool: pool)
        }
        let notes =
            sensor.map {
                clipNotes(
                    $0,
                    sensorImage:
                        "sensor image: each decoded picture centre-cropped to a square, scaled to \(scenario.device.format)x\(scenario.device.format), cropped to the active aspect ratio; the input's timestamps are ignored and the camera's device clock stamps the frames; a short clip loops"
                )
            } ?? []
        return BuiltSource(
            source: session, settings: settings, devices: [session.device.clock] + (session.microphone.map { [$0.clock] } ?? []), stampsFrameIndex: stamp,
            notes: notes, deviceControls: scenario.deviceControls, expectedFrames: sensor == nil ? Int((try? session.frameCount()) ?? 0) : 0,
            captureFrameRates: session.captureFrameRates, audio: audioTrack(session, configuration))
    }

    /// The scenario as recorded: without its microphone under `--no-audio`.
    static func audible(_ scenario: Scenario, _ configuration: RecordingConfiguration) -> Scenario {
        var scenario = scenario
        if !configuration.recordsAudio { scenario.microphone = nil }
        return scenario
    }

    /// The segments' audio track for the session's microphone at the request's bit rate, or nil.
    static func audioTrack(_ session: CaptureSession, _ configuration: RecordingConfiguration) -> AudioTrackSettings? {
        session.microphone.map { AudioTrackSettings(sampleRate: $0.sampleRate, channelCount: $0.channelCount, bitRate: configuration.audioBitRate) }
    }

    /// Footage passed through: a frame per decoded picture, with the input's sizes and
    /// timestamps (raw frame streams read straight into pooled pictures, other inputs a
    /// demuxed packet per frame; yuv420p pictures reach the encoder as read or decoded), and the input's first audio stream as the segments'
    /// sound unless ``RecordingConfiguration/recordsAudio`` is false .
    static func footagePassedThrough(_ configuration: RecordingConfiguration, _ request: PullInput, pool: PixelBufferPool, stopRequest: RecordingStopRequest?)
        throws -> BuiltSource
    {
        let path = request.source.path ?? "-"
        let decoder = try FootageInput.open(
            path: path, options: request.sourceOptions, pixelBufferPool: pool, stopRequest: stopRequest, keepsYUV420P: true,
            decodesAudio: configuration.recordsAudio)
        var settings = configuration.encoder
        settings.frameRate = decoder.nominalFrameRate ?? request.sourceOptions.frameRate ?? EncoderSettings.defaultFrameRate
        settings.fieldOrder = decoder.fieldOrder
        settings.pictureDescription = decoder.streamPictureDescription  // each frame brings its own
        try settings.validate()
        let passThrough = try FilePassThroughSource(decoder: decoder, stampFrameIndex: configuration.stampsFrameIndex, codec: settings.codec)
        let audio = decoder.audio.map { AudioTrackSettings(sampleRate: $0.sampleRate, channelCount: $0.channelCount, bitRate: configuration.audioBitRate) }
        var built = BuiltSource(
            source: passThrough, settings: settings, devices: [passThrough.deviceClock] + (passThrough.audioTiming.map { [$0.clock] } ?? []),
            stampsFrameIndex: configuration.stampsFrameIndex,
            notes: !configuration.recordsAudio && decoder.audioStreamCount > 0
                ? ["\(configuration.settingNames.noAudio): the input's sound is not recorded"] : [], rotationDegrees: decoder.rotationDegrees, audio: audio,
            // Read as fast as the encoder takes it: a deeper queue only holds more pictures;
            // a raw frame stream's next picture is one read(2) away.
            framesInFlight: request.realtime
                ? SegmentMuxer.realtimeFootageFramesInFlight(frameRate: settings.frameRate)
                : decoder is RawFrameReader ? SegmentMuxer.rawFrameStreamFramesInFlight : SegmentMuxer.passThroughFramesInFlight,
            dropsFramesWhenBehind: request.realtime)
        keepFootageTags(of: decoder as? VideoFileDecoder, in: &built)
        return built
    }

    /// The footage's recording date and place become the recording's: `creation_time` is
    /// the manifest's `recordedAt` (each segment's `creation_time` follows from it) and
    /// `location` is every segment's, each with a note; a date that is not one is noted
    /// and the recording is dated now. Raw frame streams carry no tags.
    static func keepFootageTags(of decoder: VideoFileDecoder?, in built: inout BuiltSource) {
        guard let decoder else { return }
        if let text = decoder.creationTimeTag {
            if let date = RecordingExporter.parseWallClock(text) {
                built.recordedAt = date
                built.notes.append("input creation_time \(text) kept: the recording's date (recordedAt) and, from it, each segment's creation_time")
            } else {
                built.notes.append("input creation_time '\(text)' is not an ISO 8601 date: the recording is dated when segrec recorded it")
            }
        }
        if let location = decoder.locationTag {
            built.location = location
            built.notes.append("input location \(location) kept on every segment (its location tag)")
        }
    }

    /// A `cameras` scenario (iPhone Duo): the session switches cameras by posture; each
    /// camera draws its own pattern, or a clip (``PullInput/cameraClips``, else the
    /// request's footage source).
    static func camerasSource(
        _ configuration: RecordingConfiguration, _ request: PullInput, scenario: Scenario, pool: PixelBufferPool, stopRequest: RecordingStopRequest?
    ) throws -> BuiltSource {
        let scenario = audible(scenario, configuration)
        let file = request.scenarioFile ?? scenario.name
        let cameras = scenario.cameras ?? []
        var clips: [String: String] = [:]
        for clip in request.cameraClips {
            guard cameras.contains(where: { $0.id == clip.camera }) else {
                throw RecordingInputError.unknownCamera(id: clip.camera, scenario: file, allowed: cameras.map(\.id))
            }
            guard clips[clip.camera] == nil else { throw RecordingInputError.cameraGivenTwice(id: clip.camera) }
            clips[clip.camera] = clip.path
        }
        let stdinReaders = cameras.filter { (clips[$0.id] ?? request.source.path) == "-" }.map(\.id)
        if stdinReaders.count > 1 { throw RecordingInputError.standardInputFeedsSeveralCameras(stdinReaders) }
        let virtualSide = scenario.frontCamera == .virtual ? scenario.virtual?.format : nil
        var sources: [any SensorImageSource] = []
        var notes: [String] = scenario.discoveryNote.map { [$0] } ?? []
        var descriptions: [String: PictureDescription] = [:]
        for (position, camera) in cameras.enumerated() {
            guard let path = clips[camera.id] ?? request.source.path else {
                sources.append(SyntheticSensor(pixelBufferPool: pool, pattern: position + 1))
                descriptions[camera.id] = .bt709VideoRange
                continue
            }
            let side = virtualSide ?? camera.activeFormat?.squareSide ?? 1920
            let sensor = try DecodedClipSensor(squareSide: side, canReopen: path != "-", pixelBufferPool: pool, appliesDisplayRotation: true) {
                try FootageInput.open(path: path, options: request.sourceOptions, pixelBufferPool: pool, stopRequest: stopRequest)
            }
            sources.append(sensor)
            descriptions[camera.id] = sensorImageDescription(sensor)
            notes += clipNotes(
                sensor,
                sensorImage:
                    "sensor image from \(path), each picture centre-cropped to a square, scaled to \(side)x\(side) and cropped to the active size; the camera's device clock stamps the frames",
                camera: camera.id)
        }
        let mirror = configuration.mirror
        if mirror != .off {
            notes.append(
                "\(configuration.settingNames.mirror) \(mirror.rawValue): buffers are flipped left-right\(mirror == .auto ? " while the streaming camera faces the user" : "") before the frame stamp is drawn"
            )
        }
        let stamp = configuration.stampsFrameIndex || sources.contains { $0.stampsFrameIndex }
        let session = try scenarioSession(scenario, file: file, section: "Cameras") {
            try CaptureSession(scenario: scenario, sources: sources, stampFrameIndex: stamp, mirrorMode: mirror, pixelBufferPool: pool)
        }
        var settings = try encoderSettings(configuration, frameRate: session.device.frameRate)
        let distinct = Set(descriptions.values)
        if distinct.count == 1, let only = distinct.first {
            settings.pictureDescription = only
        } else if distinct.count > 1 {
            notes.append(
                "the cameras' sensor images differ in colour (" + cameras.compactMap { c in descriptions[c.id].map { "\(c.id) \($0)" } }.joined(separator: ", ")
                    + "): every segment is tagged \(PictureDescription.bt709VideoRange)")
        }
        return BuiltSource(
            source: session, settings: settings, devices: session.devices.map(\.clock) + (session.microphone.map { [$0.clock] } ?? []), stampsFrameIndex: stamp,
            notes: notes, recordsSessionEvents: true, deviceControls: scenario.deviceControls, captureFrameRates: session.captureFrameRates,
            audio: audioTrack(session, configuration))
    }

    /// What a clip's sensor image is: the clip's colour (the crop and libswscale's scaling
    /// keep its YCbCr values), with square pixels (the picture is scaled to the square sensor).
    static func sensorImageDescription(_ sensor: DecodedClipSensor) -> PictureDescription {
        var description = sensor.currentDecoder.streamPictureDescription
        description.sampleAspectRatio = (1, 1)
        return description
    }

    /// The request's encoder settings at `frameRate`, checked.
    /// - Throws: ``EncoderSettingsError``.
    static func encoderSettings(_ configuration: RecordingConfiguration, frameRate: FrameRate) throws -> EncoderSettings {
        var settings = configuration.encoder
        settings.frameRate = frameRate
        try settings.validate()
        return settings
    }

    /// Builds the scenario's capture session; a value the scenario check let through but
    /// the camera model rejects (an overflow deep in the clock arithmetic) is reported as a
    /// scenario error naming `file` (and DESIGN.md's `section`) rather than as a bare capture error.
    static func scenarioSession(_ scenario: Scenario, file: String?, section: String = "Scenario files", _ make: () throws -> CaptureSession) throws
        -> CaptureSession
    {
        do { return try make() } catch let error as CaptureError {
            throw ScenarioError(
                file: file ?? scenario.name, key: error.scenarioKey, problem: "\(error)",
                allowed: "values the camera model can represent (see DESIGN.md, \"\(section)\")")
        }
    }

    /// The manifest notes of a clip feeding a camera, the same with one camera or several:
    /// the decoder's (the stream chosen, streams ignored such as audio), `sensorImage` (how
    /// the picture becomes the sensor image), and the clip's display rotation when it is
    /// applied to the pixels.
    /// - Parameters: `camera`: the camera id the clip feeds, prefixed to each note when given.
    static func clipNotes(_ sensor: DecodedClipSensor, sensorImage: String, camera: String? = nil) -> [String] {
        var notes = sensor.currentDecoder.notes
        notes.append(sensorImage)
        if sensor.appliedRotation != .degrees0, let rotation = sensor.clipRotationDegrees {
            notes.append(
                "input display rotation \(rotation) (ffprobe) is applied to the sensor image: each picture is turned \(sensor.appliedRotation.degrees)° clockwise before cropping; the segments carry the device's capture angle instead"
            )
        }
        return camera.map { id in notes.map { "camera \(id): \($0)" } } ?? notes
    }
}
