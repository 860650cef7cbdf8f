import Foundation
import SegRecKit

/// `segrec record --source PATH|-`: real footage, either as the fake camera's sensor image
/// (with `--scenario`) or passed through with its own sizes and timestamps.
extension RecordCommand {
    /// Options that describe raw input, as FFmpeg's rawvideo demuxer takes them.
    static let footageOptions: [OptionSpec] = [
        .option("video-size", "WxH", help: "Raw video (.yuv, or '-' raw) picture size, e.g. 352x288."),
        .option("pixel-format", "NAME", help: "Raw video pixel format (default yuv420p), any ffmpeg -pix_fmts name."),
        .option("framerate", "RATE", help: "Raw video frame rate, e.g. 30 or 30000/1001 (default 25).")
    ]

    /// Options of a live source (a network URL).
    static let liveOptions: [OptionSpec] = [
        .flag(
            "listen", help: "With a URL source: wait for the sender to connect (rtmp, srt, tcp, rtsp, http), e.g. OBS or ffmpeg pushing to it; ends on Ctrl-C."),
        .option("io-timeout", "SECONDS", help: "With a URL source: how long it may send no picture before it counts as gone (0.1...3600, default 5)."),
        .option(
            "reconnect-for", "SECONDS",
            help:
                "With a URL source: once pictures flowed, how long to try to get a source that went away back (reconnect, or listen for the next sender) before the recording ends (0...604800, default 30; 0: end at once)."
        )
    ]

    /// `--listen` and `--io-timeout`, checked: they apply to a URL source only.
    static func liveSourceOptions(_ parsed: ParsedArguments, source: String, into options: inout VideoSourceOptions) throws {
        let isURL = VideoSourceOptions.networkScheme(of: source) != nil
        for name in ["listen", "io-timeout", "reconnect-for"] where (parsed.flag(name) || parsed.value(name) != nil) && !isURL {
            throw CommandLineError(
                "record: --\(name) applies to a network source (--source \(VideoSourceOptions.networkSchemes.map { $0 + "://…" }.joined(separator: ", "))), not to \(Excerpt.of(source))",
                exitCode: .usage)
        }
        options.listen = parsed.flag("listen")
        if let text = parsed.value("io-timeout") {
            guard let milliseconds = DecimalSecondsArgument.units(text, decimals: 3, wholeDigits: 4), (100...3_600_000).contains(milliseconds) else {
                throw CommandLineError(
                    "record: --io-timeout: '\(Excerpt.of(text))' is not allowed; give seconds as a decimal number in 0.1...3600, e.g. 5", exitCode: .usage)
            }
            options.ioTimeout = .milliseconds(milliseconds)
        }
        if let text = parsed.value("reconnect-for") {
            guard let milliseconds = DecimalSecondsArgument.units(text, decimals: 3, wholeDigits: 6), (0...604_800_000).contains(milliseconds) else {
                throw CommandLineError(
                    "record: --reconnect-for: '\(Excerpt.of(text))' is not allowed; give seconds as a decimal number in 0...604800 (a week), e.g. 30, or 0 to end at the first outage",
                    exitCode: .usage)
            }
            options.reconnectFor = .milliseconds(milliseconds)
        }
    }

    /// The `--video-size`, `--pixel-format` and `--framerate` values, checked.
    /// - Throws: usage errors (64) naming what is allowed.
    static func sourceOptions(_ parsed: ParsedArguments, source: String) throws -> VideoSourceOptions {
        var options = VideoSourceOptions()
        try liveSourceOptions(parsed, source: source, into: &options)
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
                throw CommandLineError(
                    "record: --pixel-format: '\(Excerpt.of(format))' is not a pixel format FFmpeg knows; allowed: any name `ffmpeg -pix_fmts` lists, e.g. \(VideoSourceOptions.commonPixelFormats.joined(separator: ", "))",
                    exitCode: .usage)
            }
            options.pixelFormat = format
        }
        if let text = parsed.value("framerate") {
            do { options.frameRate = try FrameRate(parsing: text) } catch {
                throw CommandLineError(
                    "record: --framerate: '\(Excerpt.of(text))' is not a positive number or rational such as 30 or 30000/1001", exitCode: .usage)
            }
        }
        if options.videoSize == nil && options.isRawVideo(source) {
            throw CommandLineError(
                "record: --source \(source): raw video has no header; give its size with --video-size WxH (and --pixel-format, default yuv420p; --framerate, default 25)",
                exitCode: .usage)
        }
        if options.pixelFormat != nil && !options.isRawVideo(source) {
            throw CommandLineError("record: --pixel-format applies to raw video only (a .yuv file, or --video-size)", exitCode: .usage)
        }
        return options
    }
}
