import Foundation
import SegRecKit

/// `segrec record`: runs a source through the fake camera (or passes a file through) into
/// MP4 segments and a manifest.
enum RecordCommand {
    static let options: [OptionSpec] =
        [
            .option(
                "source", "SOURCE",
                help:
                    "'synthetic' (default): the fake camera's test pattern; a footage file FFmpeg reads; a live stream's URL (srt, rtmp, rtsp, udp, rtp, tcp, http(s) incl. HLS) or a V4L2 camera (/dev/videoN); '-': YUV4MPEG2 on stdin."
            ), footageOptions[0], footageOptions[1], footageOptions[2], liveOptions[0], liveOptions[1], liveOptions[2],
            .option("scenario", "FILE", help: "Scenario JSON (SampleStreams/*.json); default: built-in tap-to-rotate."),
            .option(
                "mode", "MODE", help: "segment: new file per size; stop-on-change: stop at the first change.", allowed: RecordingMode.allCases.map(\.rawValue)),
            .option("output", "DIR", help: "Output folder (default: a new dated folder under ./recordings)."),
            .option("codec", "CODEC", help: "h264 (libx264, default) or hevc (libx265, tagged hvc1).", allowed: VideoCodec.allCases.map(\.rawValue)),
            .option("preset", "NAME", help: "Encoder preset (default veryfast).", allowed: EncoderSettings.allowedPresets),
            .option("crf", "N", help: "Constant rate factor 0...51 (default 23)."),
            .option("keyframe-interval", "FRAMES", help: "Frames between keyframes (default 60)."),
            .option("threads", "N", help: "Encoder threads, 0 = auto (default 0)."),
            .option(
                "fragment-interval", "SECONDS",
                help:
                    "Crash safety: while a segment is open its .partial file gets a fragment at least this often (default 1); 0 writes each file whole at its end, so a crash loses the open segment."
            ), .flag("force", help: "Replace an earlier recording in the output folder (only the files its manifest lists)."),
            .flag("stamp-frame-index", help: "Stamp each frame's index into rows 0-15 (always on for synthetic)."),
            .flag(
                "copy",
                help:
                    "Write the footage's H.264/HEVC/VP9/AV1 packets as sent, without decoding or re-encoding: a new file at the first keyframe of a new size (read by libavcodec's parser); segment limits cut at the first keyframe past them; the sound copied when MP4 takes its codec, else re-encoded to AAC; a live URL is reconnected as without --copy, from the new connection's first keyframe."
            ), .flag("quiet", help: "No live progress line; only the summary."),
            .flag("verbose", help: "Print FFmpeg's own log lines (up to info level) on stderr, prefixed 'ffmpeg: '; without it they are dropped."),
            .flag("json", help: "Print the manifest as JSON instead of the summary table."), .flag("help", help: "Show help.")
        ] + limitOptions + audioOptions + cameraOptions + benchmarkOptions

    static func run(_ arguments: [String], stopRequest: RecordingStopRequest) async throws {
        // From here a first SIGINT/SIGTERM stops the recording cleanly instead of exiting.
        SignalHandling.armForRecording()
        guard
            let parsed = try ArgumentParser.parse(
                arguments, command: "record", options: options,
                usage:
                    "segrec record [--source synthetic|PATH|URL|-] [--listen] [--io-timeout SECONDS] [--reconnect-for SECONDS] [--scenario FILE] [--mode segment|stop-on-change] [--output DIR] [--codec h264|hevc] [--preset NAME] [--crf N] [--force] [--stamp-frame-index] [--copy] [--video-size WxH --pixel-format NAME --framerate RATE] [--fragment-interval SECONDS] [--max-segment-duration SECONDS] [--max-segment-bytes N] [--audio-bitrate N] [--no-audio] [--mirror off|on|auto] [--split-on-rotation] [--camera-source ID=PATH ...] [--stats FILE] [--realtime] [--frames-in-flight N]",
                abstract: "Record timestamped frames into MP4 segments, one per run of constant dimensions, plus manifest.json.")
        else { return }
        guard parsed.positionals.isEmpty else { throw CommandLineError("record: unexpected argument '\(Excerpt.of(parsed.positionals[0]))'", exitCode: .usage) }
        if parsed.flag("verbose") { FFmpegLog.configure(.verbose(Terminal.printFFmpegLine)) }
        let (configuration, input) = try recordingRequest(parsed)
        // Footage passed through reads a fresh packet per frame: the allocator keeps large
        // blocks for reuse (a process-wide setting, so the command's to make). A raw frame
        // stream reads into pool planes and allocates no picture per frame: glibc's own
        // settings then hold 8 MiB less at the peak at the same CPU (Docs/performance.md).
        if input.passesFootageThrough && !input.passesRawFrameStreamThrough { AllocatorTuning.keepLargeBlocksForReuse() }
        let recorder: Recorder
        do { recorder = try Recorder(configuration, input: .pull(input), stopRequest: stopRequest) } catch let error as RecordingInputError {
            throw commandLineError(error, parsed)
        }
        try await record(recorder, printedPath: parsed.value("output") == nil, quiet: parsed.flag("quiet"), json: parsed.flag("json"))
    }

    /// The configuration and input `record`'s options describe: every option checked for
    /// syntax and range here; whether they go together is the ``Recorder``'s to say.
    /// - Throws: usage errors (64); the scenario's errors (65), a missing scenario (66).
    static func recordingRequest(_ parsed: ParsedArguments) throws -> (RecordingConfiguration, PullInput) {
        if let output = parsed.value("output"), output.isEmpty {
            throw CommandLineError(
                "record: --output: an empty folder name is not allowed; give a folder path, or leave --output out for a new dated folder under ./recordings",
                exitCode: .usage)
        }
        let outputURL =
            parsed.value("output").map { URL(fileURLWithPath: $0) }
            ?? OutputDirectory.newDatedFolder(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("recordings"))
        let sourceName = parsed.value("source") ?? "synthetic"
        var request = RecordingConfiguration(output: outputURL)
        request.settingNames = settingNames
        var input = PullInput(sourceName == "synthetic" ? .synthetic : sourceName == "-" ? .standardInput : .file(sourceName))
        request.mode = parsed.value("mode").flatMap(RecordingMode.init(rawValue:)) ?? .segment
        request.fragmentInterval = try fragmentInterval(parsed)
        request.framesInFlight = try framesInFlight(parsed)
        input.scenarioFile = parsed.value("scenario")
        if let path = parsed.value("scenario") { input.scenario = try loadScenario(path) }
        input.sourceOptions = try sourceOptions(parsed, source: sourceName)
        input.cameraClips = try cameraClips(parsed)
        request.encoder = try encoderSettings(parsed)
        request.mirror = mirrorMode(parsed)
        request.splitOnRotation = parsed.flag("split-on-rotation")
        request.maximumSegmentDuration = try maximumSegmentDuration(parsed)
        request.maximumSegmentBytes = try maximumSegmentBytes(parsed)
        request.audioBitRate = try audioBitRate(parsed)
        request.recordsAudio = !parsed.flag("no-audio")
        request.stampsFrameIndex = parsed.flag("stamp-frame-index")
        request.force = parsed.flag("force")
        input.realtime = parsed.flag("realtime")
        input.copiesStream = parsed.flag("copy")
        request.statisticsURL = parsed.value("stats").map { URL(fileURLWithPath: $0) }
        // Progress events only for the live line (``record(_:printedPath:quiet:json:)``).
        request.reportsProgress = Self.showsProgressLine(parsed)
        return (request, input)
    }

    /// How the library names `record`'s settings in messages and manifest notes: by their options.
    static let settingNames: SettingNames = {
        var names = SettingNames()
        names.force = "--force"
        names.noFragments = "--fragment-interval 0"
        names.noAudio = "--no-audio"
        names.mirror = "--mirror"
        return names
    }()

    /// A request the session refused, in `record`'s option words.
    static func commandLineError(_ error: RecordingInputError, _ parsed: ParsedArguments) -> CommandLineError {
        switch error {
        case .cameraClipsNeedCameras:
            return CommandLineError(
                "record: --camera-source applies to a scenario with cameras (e.g. --scenario SampleStreams/duo/individual-open-close.json)", exitCode: .usage)
        case .mirrorNeedsCameraModel(let mirror):
            return CommandLineError(
                "record: --mirror \(mirror.rawValue) applies to the camera model (synthetic, or footage with --scenario), not to footage passed through",
                exitCode: .usage)
        case .splitOnRotationNeedsSegmentMode:
            return CommandLineError(
                "record: --split-on-rotation applies to --mode segment; a stop-on-change movie file keeps the angle of its first frame", exitCode: .usage)
        case .splitOnRotationNeedsCameraModel:
            return CommandLineError(
                "record: --split-on-rotation applies to the camera model (synthetic, or footage with --scenario), not to footage passed through",
                exitCode: .usage)
        case .unknownCamera(let id, let scenario, let allowed):
            return CommandLineError(
                "record: --camera-source: \(scenario) has no camera '\(Excerpt.of(id))'; allowed: \(allowed.joined(separator: ", "))", exitCode: .usage)
        case .cameraGivenTwice(let id):
            return CommandLineError("record: --camera-source: camera '\(Excerpt.of(id))' is given twice; give each camera id once", exitCode: .usage)
        case .standardInputFeedsSeveralCameras(let ids):
            return CommandLineError(
                "record: standard input can feed one camera only, but cameras \(ids.joined(separator: ", ")) would read it; give the others a clip with --camera-source ID=PATH",
                exitCode: .usage)
        case .statisticsFolderMissing(_, let folder):
            return CommandLineError("\(parsed.value("stats") ?? ""): --stats: folder \(folder) does not exist", exitCode: .cannotCreate)
        case .unsupportedCopy(let reason): return CommandLineError("record: --copy: \(reason)", exitCode: .usage)
        case .unsupportedAudio(let reason):
            // Pushed sound only; `record` pulls its input.
            return CommandLineError("record: \(reason)", exitCode: .usage)
        case .stoppedBeforeStart:
            // A SIGINT/SIGTERM before the output folder exists: nothing has been written, so
            // the command ends at once (exit 128 + the signal) instead of starting.
            let signal = SignalHandling.stopSignal ?? SIGINT
            return CommandLineError(
                "record: interrupted by \(SignalHandling.name(of: signal)) before the recording started; nothing was written",
                exitCode: ExitCode(rawValue: SignalHandling.exitCode(for: signal)) ?? .interruptedBySIGINT)
        }
    }

    /// Whether `segrec record` shows its live progress line: on a terminal, without
    /// `--quiet` or `--json`.
    static func showsProgressLine(_ parsed: ParsedArguments) -> Bool { !parsed.flag("quiet") && !parsed.flag("json") && Terminal.standardErrorIsTerminal }

    /// Runs the session with a live progress line on a terminal, then prints the summary.
    static func record(_ recorder: Recorder, printedPath: Bool, quiet: Bool, json: Bool) async throws {
        let output = recorder.output
        if printedPath && !json { print("recording into \(output.path)") }
        let line = ProgressLine(enabled: recorder.configuration.reportsProgress && !quiet && !json && Terminal.standardErrorIsTerminal)
        // The events say what the progress line shows and whether a segment is open (what
        // a stop signal's message says).
        let events = recorder.events
        let printer: Task<Void, Never>? = Task {
            for await event in events {
                switch event {
                case .progress(let progress): if line.isEnabled { line.update(progress) }
                case .segmentOpened: SignalHandling.segmentOpen(true)
                case .segmentClosed, .segmentFailed: SignalHandling.segmentOpen(false)
                default: break
                }
            }
            if line.isEnabled { line.finish() }
        }
        let manifest: RecordingManifest
        do {
            manifest = try await recorder.run()
            SignalHandling.recordingEnded()
            await printer?.value
        } catch {
            SignalHandling.recordingEnded()
            await printer?.value
            // What was kept is still described: the manifest on stdout with --json.
            if json { print(String(decoding: (try? ManifestWriter.encode(error.manifest)) ?? Data(), as: UTF8.self)) }
            throw ErrorMapping.recordingFailure(error, folder: output)
        }
        if json {
            print(String(decoding: try ManifestWriter.encode(manifest), as: UTF8.self))
        } else {
            print(Summary.render(manifest, folder: output))
            let errors = FFmpegLog.errorLineCount
            if errors > 0 { print("note: FFmpeg logged \(errors) error line\(errors == 1 ? "" : "s") (dropped; --verbose prints them)") }
        }
    }

    /// `--fragment-interval SECONDS` as an exact time (nil for 0), default 1 s: a decimal
    /// number (digits, optionally a point and up to 6 decimals), 0 or 0.001...2000.
    /// - Throws: a usage error (64) naming what is allowed.
    static func fragmentInterval(_ parsed: ParsedArguments) throws -> MediaTime? {
        guard let text = parsed.value("fragment-interval") else { return MediaTime(value: 1, timescale: 1) }
        guard let microseconds = DecimalSecondsArgument.units(text, decimals: 6, wholeDigits: 5) else {
            throw CommandLineError(
                "record: --fragment-interval: '\(Excerpt.of(text))' is not allowed; give seconds as a decimal number: 0 (no fragments) or 0.001...2000, e.g. 1 or 0.5",
                exitCode: .usage)
        }
        guard microseconds == 0 || (1_000...2_000_000_000).contains(microseconds) else {
            throw CommandLineError(
                "record: --fragment-interval: '\(Excerpt.of(text))' is out of range; allowed: 0 (no fragments) or 0.001...2000 seconds", exitCode: .usage)
        }
        return microseconds == 0 ? nil : MediaTime(value: microseconds, timescale: 1_000_000)
    }

    /// The scenario file at `path`.
    /// - Throws: a missing file (66); the scenario's errors (65).
    static func loadScenario(_ path: String) throws -> Scenario {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandLineError("\(path): no such scenario file", exitCode: .noInput) }
        return try Scenario.load(contentsOf: URL(fileURLWithPath: path))
    }

    /// The encoder options; the frame rate is the source's (the ``Recorder`` sets it).
    /// - Throws: usage errors (64) for values out of range.
    static func encoderSettings(_ parsed: ParsedArguments) throws -> EncoderSettings {
        var settings = EncoderSettings()
        if let codec = parsed.value("codec").flatMap(VideoCodec.init(rawValue:)) { settings.codec = codec }
        if let preset = parsed.value("preset") { settings.preset = preset }
        if let crf = parsed.value("crf") { settings.crf = try ArgumentParser.integer(crf, option: "crf", in: EncoderSettings.allowedCRF) }
        if let interval = parsed.value("keyframe-interval") {
            settings.keyframeInterval = try ArgumentParser.integer(interval, option: "keyframe-interval", in: 1...100_000)
        }
        if let threads = parsed.value("threads") {
            settings.threads = try ArgumentParser.integer(threads, option: "threads", in: 0...EncoderSettings.maximumThreads)
        }
        return settings
    }
}
