import Foundation
import SegRecKit

/// `segrec record`: runs a source through the fake camera (or passes a file through) into
/// MP4 segments and a manifest.
enum RecordCommand {
    static let options: [OptionSpec] = [
        .option("source", "SOURCE", help: "'synthetic' (default): the fake camera's test pattern; a footage file FFmpeg reads; '-': YUV4MPEG2 on stdin."),
        footageOptions[0], footageOptions[1], footageOptions[2],
        .option("scenario", "FILE", help: "Scenario JSON (SampleStreams/*.json); default: built-in tap-to-rotate."),
        .option("mode", "MODE", help: "segment: new file per size; stop-on-change: stop at the first change.",
                allowed: RecordingMode.allCases.map(\.rawValue)),
        .option("output", "DIR", help: "Output folder (default: a new dated folder under ./recordings)."),
        .option("codec", "CODEC", help: "h264 (libx264, default) or hevc (libx265, tagged hvc1).",
                allowed: VideoCodec.allCases.map(\.rawValue)),
        .option("preset", "NAME", help: "Encoder preset (default veryfast).", allowed: EncoderSettings.allowedPresets),
        .option("crf", "N", help: "Constant rate factor 0...51 (default 23)."),
        .option("keyframe-interval", "FRAMES", help: "Frames between keyframes (default 60)."),
        .option("threads", "N", help: "Encoder threads, 0 = auto (default 0)."),
        .option("fragment-interval", "SECONDS", help: "Crash safety: while a segment is open its .partial file gets a fragment at least this often (default 1); 0 writes each file whole at its end, so a crash loses the open segment."),
        .flag("force", help: "Replace an earlier recording in the output folder (only the files its manifest lists)."),
        .flag("stamp-frame-index", help: "Stamp each frame's index into rows 0-15 (always on for synthetic)."),
        .flag("quiet", help: "No live progress line; only the summary."),
        .flag("verbose", help: "Print FFmpeg's own log lines (up to info level) on stderr, prefixed 'ffmpeg: '; without it they are dropped."),
        .flag("json", help: "Print the manifest as JSON instead of the summary table."),
        .flag("help", help: "Show help."),
    ] + cameraOptions + benchmarkOptions

    static func run(_ arguments: [String]) async throws {
        // From here a first SIGINT/SIGTERM stops the recording cleanly instead of exiting.
        SignalHandling.armForRecording()
        let parsed = try ArgumentParser.parse(arguments, command: "record", options: options)
        if parsed.flag("help") {
            print(ArgumentParser.helpText(
                usage: "segrec record [--source synthetic|PATH|-] [--scenario FILE] [--mode segment|stop-on-change] [--output DIR] [--codec h264|hevc] [--preset NAME] [--crf N] [--force] [--stamp-frame-index] [--video-size WxH --pixel-format NAME --framerate RATE] [--fragment-interval SECONDS] [--mirror off|on|auto] [--split-on-rotation] [--camera-source ID=PATH ...] [--stats FILE] [--realtime] [--frames-in-flight N]",
                abstract: "Record timestamped frames into MP4 segments, one per run of constant dimensions, plus manifest.json.",
                options: options))
            return
        }
        guard parsed.positionals.isEmpty else {
            throw CommandLineError("record: unexpected argument '\(Excerpt.of(parsed.positionals[0]))'", exitCode: .usage)
        }
        let sourceName = parsed.value("source") ?? "synthetic"
        let mode = parsed.value("mode").flatMap(RecordingMode.init(rawValue:)) ?? .segment
        if parsed.flag("verbose") { FFmpegLog.configure(.verbose(Terminal.printFFmpegLine)) }
        if let output = parsed.value("output"), output.isEmpty {
            throw CommandLineError("record: --output: an empty folder name is not allowed; give a folder path, or leave --output out for a new dated folder under ./recordings", exitCode: .usage)
        }
        let outputURL = parsed.value("output").map { URL(fileURLWithPath: $0) }
            ?? OutputDirectory.newDatedFolder(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .appendingPathComponent("recordings"))
        let interval = try fragmentInterval(parsed)
        let queueDepth = try framesInFlight(parsed)
        try checkRotationOption(parsed, mode: mode)
        // One pool for the whole recording: producers take planes, the writers give them back.
        let pool = PixelBufferPool()
        let source: any CaptureOutputEventSource
        let configuration: SegmentMuxer.Configuration
        var expectedFrames = 0
        if let scenario = try camerasScenario(parsed) {
            (source, configuration) = try camerasSource(parsed, scenario: scenario, source: sourceName, mode: mode,
                                                        outputURL: outputURL, pool: pool)
        } else if sourceName == "synthetic" {
            try checkOneCameraOptions(parsed)
            _ = try sourceOptions(parsed, source: sourceName)
            let scenario = try loadScenario(parsed.value("scenario"))
            let settings = try encoderSettings(parsed, frameRate: scenario.device.fps)
            // The single Center Stage camera always faces the user: auto mirrors like on.
            let session = try scenarioSession(scenario, file: parsed.value("scenario")) {
                try CaptureSession(scenario: scenario, stampFrameIndex: true, mirrorMode: mirrorMode(parsed), pixelBufferPool: pool)
            }
            try checkNotInterrupted()
            let output = try OutputDirectory(preparing: outputURL, force: parsed.flag("force"))
            var oneCamera = SegmentMuxer.Configuration(output: output, settings: settings, policy: SplitPolicy(mode),
                                                       devices: [session.device.clock], frameIndexStamp: true,
                                                       pixelBufferPool: pool)
            oneCamera.deviceControls = scenario.deviceControls
            oneCamera.splitOnRotation = parsed.flag("split-on-rotation")
            configuration = oneCamera
            expectedFrames = Int((try? session.frameCount()) ?? 0)
            source = session
        } else {
            try checkOneCameraOptions(parsed)
            (source, configuration) = try footageSource(parsed, source: sourceName, mode: mode, outputURL: outputURL, pool: pool)
        }
        var configured = configuration
        configured.fragmentInterval = interval
        if let queueDepth { configured.framesInFlight = queueDepth }
        if interval == nil {
            configured.notes.append("--fragment-interval 0: segments are written whole when they close; a crash loses the open segment")
        }
        let (paced, measured, statisticsURL) = try applyBenchmarkOptions(parsed, source: source, configuration: configured,
                                                                         expectedFrames: expectedFrames)
        var pipeline = RecordingPipeline(source: paced, muxer: SegmentMuxer(measured))
        pipeline.statisticsURL = statisticsURL
        try await record(pipeline, output: outputURL, printedPath: parsed.value("output") == nil,
                         quiet: parsed.flag("quiet"), json: parsed.flag("json"))
    }

    /// `--camera-source` needs a cameras scenario; `--mirror` needs the camera model (a scenario).
    static func checkOneCameraOptions(_ parsed: ParsedArguments) throws {
        if !parsed.values("camera-source").isEmpty {
            throw CommandLineError("record: --camera-source applies to a scenario with cameras (e.g. --scenario SampleStreams/duo/individual-open-close.json)", exitCode: .usage)
        }
        if parsed.value("source").map({ $0 != "synthetic" }) == true, parsed.value("scenario") == nil,
           let mirror = parsed.value("mirror"), mirror != "off" {
            throw CommandLineError("record: --mirror \(mirror) applies to the camera model (synthetic, or footage with --scenario), not to footage passed through", exitCode: .usage)
        }
    }

    /// `--split-on-rotation` needs the camera model and segment mode.
    static func checkRotationOption(_ parsed: ParsedArguments, mode: RecordingMode) throws {
        guard parsed.flag("split-on-rotation") else { return }
        if mode != .segment {
            throw CommandLineError("record: --split-on-rotation applies to --mode segment; a stop-on-change movie file keeps the angle of its first frame", exitCode: .usage)
        }
        if parsed.value("source").map({ $0 != "synthetic" }) == true, parsed.value("scenario") == nil {
            throw CommandLineError("record: --split-on-rotation applies to the camera model (synthetic, or footage with --scenario), not to footage passed through", exitCode: .usage)
        }
    }

    /// Runs the pipeline with a live progress line on a terminal, then prints the summary.
    static func record(_ pipeline: RecordingPipeline, output: URL, printedPath: Bool, quiet: Bool, json: Bool) async throws {
        if printedPath && !json { print("recording into \(output.path)") }
        let progress = ProgressLine(enabled: !quiet && !json && Terminal.standardErrorIsTerminal)
        var pipeline = pipeline
        pipeline.stopRequest = RecordingStopRequest.process
        let manifest: RecordingManifest
        do {
            manifest = try await pipeline.run(progress: progress.isEnabled ? progress.update : nil)
            progress.finish()
        } catch {
            progress.finish()
            // What was kept is still described: the manifest on stdout with --json.
            if json {
                print(String(decoding: (try? ManifestWriter.encode(error.manifest)) ?? Data(), as: UTF8.self))
            }
            throw ErrorMapping.recordingFailure(error, folder: output)
        }
        if json {
            print(String(decoding: try ManifestWriter.encode(manifest), as: UTF8.self))
        } else {
            print(Summary.render(manifest, folder: output))
            let errors = FFmpegLog.errorLineCount
            if errors > 0 {
                print("note: FFmpeg logged \(errors) error line\(errors == 1 ? "" : "s") (dropped; --verbose prints them)")
            }
        }
    }

    /// Throws when a SIGINT/SIGTERM arrived before the output folder exists: nothing has
    /// been written, so the command ends at once (exit 128 + the signal) instead of starting.
    static func checkNotInterrupted() throws {
        guard RecordingStopRequest.process.isRequested else { return }
        let signal = SignalHandling.stopSignal ?? SIGINT
        throw CommandLineError("record: interrupted by \(SignalHandling.name(of: signal)) before the recording started; nothing was written",
                               exitCode: ExitCode(rawValue: SignalHandling.exitCode(for: signal)) ?? .interruptedBySIGINT)
    }

    /// Builds the scenario's capture session; a value the scenario check let through but
    /// the camera model rejects (an overflow deep in the clock arithmetic) is reported as a
    /// scenario error naming `file` (exit 65) rather than as a bare capture error.
    static func scenarioSession(_ scenario: Scenario, file: String?, _ make: () throws -> CaptureSession) throws -> CaptureSession {
        do { return try make() } catch let error as CaptureError {
            throw ScenarioError(file: file ?? scenario.name, key: error.scenarioKey, problem: "\(error)",
                                allowed: "values the camera model can represent (see DESIGN.md, \"Scenario files\")")
        }
    }

    /// `--fragment-interval SECONDS` as an exact time (nil for 0), default 1 s: a decimal
    /// number (digits, optionally a point and up to 6 decimals), 0 or 0.001...2000.
    /// - Throws: a usage error (64) naming what is allowed.
    static func fragmentInterval(_ parsed: ParsedArguments) throws -> MediaTime? {
        guard let text = parsed.value("fragment-interval") else { return MediaTime(value: 1, timescale: 1) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard (parts.count == 1 && digits(parts[0])) || (parts.count == 2 && digits(parts[0]) && digits(parts[1]) && parts[1].count <= 6),
              let whole = Int64(parts[0].prefix(5)), parts[0].count <= 5 else {
            throw CommandLineError("record: --fragment-interval: '\(Excerpt.of(text))' is not allowed; give seconds as a decimal number: 0 (no fragments) or 0.001...2000, e.g. 1 or 0.5", exitCode: .usage)
        }
        let fraction = parts.count == 2 ? Int64(parts[1] + String(repeating: "0", count: 6 - parts[1].count))! : 0
        let microseconds = whole * 1_000_000 + fraction
        guard microseconds == 0 || (1_000...2_000_000_000).contains(microseconds) else {
            throw CommandLineError("record: --fragment-interval: '\(Excerpt.of(text))' is out of range; allowed: 0 (no fragments) or 0.001...2000 seconds", exitCode: .usage)
        }
        return microseconds == 0 ? nil : MediaTime(value: microseconds, timescale: 1_000_000)
    }

    static func loadScenario(_ path: String?) throws -> Scenario {
        guard let path else { return Scenario.tapToRotate }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandLineError("\(path): no such scenario file", exitCode: .noInput)
        }
        return try Scenario.load(contentsOf: URL(fileURLWithPath: path))
    }

    static func encoderSettings(_ parsed: ParsedArguments, frameRate: FrameRate) throws -> EncoderSettings {
        var settings = EncoderSettings()
        settings.frameRate = frameRate
        if let codec = parsed.value("codec").flatMap(VideoCodec.init(rawValue:)) { settings.codec = codec }
        if let preset = parsed.value("preset") { settings.preset = preset }
        if let crf = parsed.value("crf") {
            settings.crf = try ArgumentParser.integer(crf, option: "crf", in: EncoderSettings.allowedCRF)
        }
        if let interval = parsed.value("keyframe-interval") {
            settings.keyframeInterval = try ArgumentParser.integer(interval, option: "keyframe-interval", in: 1...100_000)
        }
        if let threads = parsed.value("threads") {
            settings.threads = try ArgumentParser.integer(threads, option: "threads", in: 0...EncoderSettings.maximumThreads)
        }
        try settings.validate()
        return settings
    }
}
