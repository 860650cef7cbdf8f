import Foundation
import SegRecKit

/// `segrec record --source PATH|-`: real footage, either as the fake camera's sensor image
/// (with `--scenario`) or passed through with its own sizes and timestamps.
extension RecordCommand {
    /// Options that describe raw input, as FFmpeg's rawvideo demuxer takes them.
    static let footageOptions: [OptionSpec] = [
        .option("video-size", "WxH", help: "Raw video (.yuv, or '-' raw) picture size, e.g. 352x288."),
        .option("pixel-format", "NAME", help: "Raw video pixel format (default yuv420p), any ffmpeg -pix_fmts name."),
        .option("framerate", "RATE", help: "Raw video frame rate, e.g. 30 or 30000/1001 (default 25)."),
    ]

    /// The `--video-size`, `--pixel-format` and `--framerate` values, checked.
    /// - Throws: usage errors (64) naming what is allowed.
    static func sourceOptions(_ parsed: ParsedArguments, source: String) throws -> VideoSourceOptions {
        var options = VideoSourceOptions()
        if source == "synthetic" {
            for name in ["video-size", "pixel-format", "framerate"] where parsed.value(name) != nil {
                throw CommandLineError("record: --\(name) applies to a footage source (--source PATH or -), not to synthetic", exitCode: .usage)
            }
            return options
        }
        if let text = parsed.value("video-size") {
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (2...16384).contains(w), (2...16384).contains(h) else {
                throw CommandLineError("record: --video-size: '\(Excerpt.of(text))' is not WxH with sides in 2...16384, e.g. 352x288", exitCode: .usage)
            }
            options.videoSize = VideoDimensions(width: w, height: h)
        }
        if let format = parsed.value("pixel-format") {
            guard VideoSourceOptions.isKnownPixelFormat(format) else {
                throw CommandLineError("record: --pixel-format: '\(Excerpt.of(format))' is not a pixel format FFmpeg knows; allowed: any name `ffmpeg -pix_fmts` lists, e.g. \(VideoSourceOptions.commonPixelFormats.joined(separator: ", "))", exitCode: .usage)
            }
            options.pixelFormat = format
        }
        if let text = parsed.value("framerate") {
            do { options.frameRate = try FrameRate(parsing: text) } catch {
                throw CommandLineError("record: --framerate: '\(Excerpt.of(text))' is not a positive number or rational such as 30 or 30000/1001", exitCode: .usage)
            }
        }
        if options.videoSize == nil && options.isRawVideo(source) {
            throw CommandLineError("record: --source \(source): raw video has no header; give its size with --video-size WxH (and --pixel-format, default yuv420p; --framerate, default 25)", exitCode: .usage)
        }
        if options.pixelFormat != nil && !options.isRawVideo(source) {
            throw CommandLineError("record: --pixel-format applies to raw video only (a .yuv file, or --video-size)", exitCode: .usage)
        }
        return options
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
            notes.append("input display rotation \(rotation) (ffprobe) is applied to the sensor image: each picture is turned \(sensor.appliedRotation.degrees)° clockwise before cropping; the segments carry the device's capture angle instead")
        }
        return camera.map { id in notes.map { "camera \(id): \($0)" } } ?? notes
    }

    /// The source that records `source` (a path or `-`) and the muxer configuration for
    /// `outputURL`: through the fake camera with `--scenario`, passed through otherwise.
    static func footageSource(_ parsed: ParsedArguments, source: String, mode: RecordingMode,
                              outputURL: URL, pool: PixelBufferPool) throws -> (any CaptureOutputEventSource, SegmentMuxer.Configuration) {
        let options = try sourceOptions(parsed, source: source)
        let stamp = parsed.flag("stamp-frame-index")
        if let scenarioPath = parsed.value("scenario") {
            let scenario = try loadScenario(scenarioPath)
            let settings = try encoderSettings(parsed, frameRate: scenario.device.fps)
            // The clip's own display rotation is applied to its pixels: the sensor image is
            // upright before it is cropped, and the files carry the device's capture angle.
            let sensor = try DecodedClipSensor(squareSide: scenario.device.format, canReopen: source != "-",
                                               pixelBufferPool: pool, appliesDisplayRotation: true) {
                try VideoFileDecoder(path: source, options: options, pixelBufferPool: pool, stopRequest: .process)
            }
            let session = try scenarioSession(scenario, file: scenarioPath) {
                try CaptureSession(scenario: scenario, sources: [sensor], stampFrameIndex: stamp, mirrorMode: mirrorMode(parsed),
                                   pixelBufferPool: pool)
            }
            try checkNotInterrupted()
            let output = try OutputDirectory(preparing: outputURL, force: parsed.flag("force"))
            let notes = clipNotes(sensor, sensorImage: "sensor image: each decoded picture centre-cropped to a square, scaled to \(scenario.device.format)x\(scenario.device.format), cropped to the active aspect ratio; the input's timestamps are ignored and the camera's device clock stamps the frames; a short clip loops")
            var configuration = SegmentMuxer.Configuration(
                output: output, settings: settings, policy: SplitPolicy(mode), devices: [session.device.clock],
                frameIndexStamp: stamp, pixelBufferPool: pool, notes: notes)
            configuration.deviceControls = scenario.deviceControls
            configuration.splitOnRotation = parsed.flag("split-on-rotation")
            return (session, configuration)
        }
        // Passed through: a demuxed packet per frame, reused from the heap instead of a fresh
        // mmap each (AllocatorTuning); yuv420p pictures reach the encoder as decoded.
        AllocatorTuning.keepLargeBlocksForReuse()
        let decoder = try VideoFileDecoder(path: source, options: options, pixelBufferPool: pool, stopRequest: .process,
                                           keepsYUV420P: true)
        var settings = try encoderSettings(parsed, frameRate: decoder.nominalFrameRate ?? options.frameRate ?? EncoderSettings.defaultFrameRate)
        settings.fieldOrder = decoder.fieldOrder
        let passThrough = try FilePassThroughSource(decoder: decoder, stampFrameIndex: stamp, codec: settings.codec)
        try checkNotInterrupted()
        let output = try OutputDirectory(preparing: outputURL, force: parsed.flag("force"))
        let configuration = SegmentMuxer.Configuration(
            output: output, settings: settings, policy: SplitPolicy(mode), devices: [passThrough.deviceClock],
            rotationDegrees: decoder.rotationDegrees, frameIndexStamp: stamp, pixelBufferPool: pool)
        return (passThrough, configuration)
    }
}
