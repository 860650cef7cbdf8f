import CFFmpeg
import Foundation
import SegRecTime

/// How to open a footage source: what FFmpeg's `-f rawvideo -video_size … -pixel_format …
/// -framerate …` input options say, for inputs that carry no header.
///
/// - A path ending in `.yuv`, or any input given a ``videoSize``, is read with libavformat's
///   `rawvideo` demuxer (``videoSize`` required; ``pixelFormat`` default `yuv420p`;
///   ``frameRate`` default FFmpeg's 25).
/// - `"-"` is standard input (`pipe:0`): YUV4MPEG2 (`yuv4mpegpipe`), or raw video when a
///   ``videoSize`` is given.
/// - A URL of a network protocol (`networkSchemes`: `srt://`, `rtmp://`, `rtsp://`,
///   `udp://`, `rtp://`, `tcp://`, `http(s)://` including HLS) goes to libavformat as it
///   is: a live source, paced by its sender. With ``listen`` segrec waits for the sender to
///   connect (FFmpeg's own listen options: `listen=1` for RTMP, TCP and HTTP,
///   `mode=listener` for SRT, `rtsp_flags=listen` for RTSP). ``ioTimeout`` bounds every
///   wait for its data.
/// - A V4L2 capture device (`/dev/videoN`, a character device of the video4linux major) is
///   opened with libavdevice's `v4l2` demuxer: a live source too; ``videoSize``,
///   ``frameRate`` and ``pixelFormat`` become its `video_size`, `framerate` and
///   `pixel_format` options (the device's current mode when not given).
/// - Anything else is probed by libavformat; ``frameRate`` is then only the rate used to
///   derive missing timestamps when the stream states none.
public struct VideoSourceOptions: Sendable, Hashable {
    /// Raw video picture size.
    public var videoSize: VideoDimensions?
    /// Raw video pixel format name (`av_get_pix_fmt`), e.g. `yuv420p`, `nv12`.
    public var pixelFormat: String?
    /// Raw video frame rate, or the fallback rate for streams without one.
    public var frameRate: FrameRate?

    /// A network URL only: wait for the sender to connect instead of connecting to it
    /// (RTMP, SRT, TCP, RTSP, HTTP). Default false.
    public var listen = false
    /// A network URL only: how long the source may send nothing (no picture once the
    /// stream is read; nothing at all while connecting and probing, plus
    /// `probeAllowance`) before segrec takes it as gone. Default 5 s.
    public var ioTimeout: Duration = .seconds(5)
    /// A network URL only: how long segrec tries to get the source back after it went away
    /// once pictures flowed (reopening a pulled URL, listening again for the next sender),
    /// from the moment it was found gone; `.zero`: the recording ends there. Default 30 s.
    package var reconnectFor: Duration = VideoSourceOptions.defaultReconnectWindow
    /// The sound's output rate and channel count a reconnected source's audio decoder must
    /// keep (the first connection's: the segments' audio track is fixed); nil: its own.
    package var audioOutput: AudioOutputFormat?
    /// A reconnection's end: the source must have sent its first packet by then (nil: no limit).
    package var firstPacketBy: ContinuousClock.Instant?

    /// An audio decoder's output format (``FootageAudioDecoder/sampleRate``,
    /// ``FootageAudioDecoder/channelCount``).
    package struct AudioOutputFormat: Sendable, Hashable {
        /// Sample frames per second.
        package var sampleRate: Int
        /// Channels.
        package var channelCount: Int

        package init(sampleRate: Int, channelCount: Int) {
            self.sampleRate = sampleRate
            self.channelCount = channelCount
        }
    }

    /// ``reconnectFor``'s default: 30 s.
    package static let defaultReconnectWindow: Duration = .seconds(30)

    public init(videoSize: VideoDimensions? = nil, pixelFormat: String? = nil, frameRate: FrameRate? = nil) {
        self.videoSize = videoSize
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
    }

    /// The path that means standard input.
    package static let standardInput = "-"

    /// Common pixel format names, for messages (any name `ffmpeg -pix_fmts` lists is accepted).
    package static let commonPixelFormats = ["yuv420p", "nv12", "nv21", "yuv422p", "yuv444p", "yuyv422", "uyvy422", "gray", "rgb24", "bgr24", "yuv420p10le"]

    /// The URL schemes segrec hands to libavformat as live network sources.
    package static let networkSchemes = ["srt", "rtmp", "rtmps", "rtsp", "rtsps", "udp", "rtp", "tcp", "http", "https"]

    /// The schemes whose protocol can wait for a sender (``listen``), with FFmpeg's option.
    package static let listenOptions: [String: (key: String, value: String)] = [
        "rtmp": ("listen", "1"), "tcp": ("listen", "1"), "http": ("listen", "1"), "srt": ("mode", "listener"), "rtsp": ("rtsp_flags", "listen")
    ]

    /// Time FFmpeg may take to read a live stream's first seconds (`avformat_find_stream_info`
    /// reads up to its default `analyzeduration`, 5 s of stream), on top of ``ioTimeout``.
    package static let probeAllowance: Duration = .seconds(5)

    /// The schemes whose connection's end (`AVERROR_EOF`) means the sender went away, so a
    /// reconnection is tried; for HTTP(S) only the end of a stream that states no length
    /// (a live HLS playlist, without `#EXT-X-ENDLIST`) is, a finished playlist's or a
    /// file's end being the stream's own; UDP and RTP never end.
    package static let connectionSchemes: Set<String> = ["rtmp", "rtmps", "srt", "tcp", "rtsp", "rtsps"]

    /// The scheme of `path` when it is a network URL segrec reads live (`scheme://…`, one
    /// of ``networkSchemes``, case-insensitive); nil otherwise.
    package static func networkScheme(of path: String) -> String? {
        guard let scheme = urlScheme(of: path)?.lowercased() else { return nil }
        return networkSchemes.contains(scheme) ? scheme : nil
    }

    /// The scheme of `path` when it has the form of a URL (`scheme://`, the scheme a letter
    /// then letters, digits, `+`, `-` or `.`), as written; nil otherwise.
    package static func urlScheme(of path: String) -> Substring? {
        guard let range = path.range(of: "://") else { return nil }
        let scheme = path[..<range.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme
    }

    /// `path` with its scheme in lower case (schemes are case-insensitive; libavformat's
    /// protocol names are not).
    package static func normalizedURL(_ path: String) -> String {
        guard let scheme = urlScheme(of: path) else { return path }
        return scheme.lowercased() + path[scheme.endIndex...]
    }

    /// Whether `path` names a V4L2 capture device: a character device of major 81
    /// (video4linux).
    package static func isVideoDevice(_ path: String) -> Bool {
        var info = stat()
        guard path.hasPrefix("/dev/"), stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else { return false }
        let rdev = UInt64(info.st_rdev)
        let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~UInt64(0xfff))
        return major == 81
    }

    /// Whether `path` is a live source: a network URL or a V4L2 device.
    package static func isLive(_ path: String) -> Bool { networkScheme(of: path) != nil || isVideoDevice(path) }

    /// libavdevice's demuxers registered (`avdevice_register_all`, through the shim's
    /// `segrec_register_devices`, which loads libavdevice on first use), once per process;
    /// false when libavdevice cannot be loaded.
    private static let devicesRegistered: Bool = segrec_register_devices() == 1

    /// Whether FFmpeg knows the pixel format `name` (`av_get_pix_fmt`).
    package static func isKnownPixelFormat(_ name: String) -> Bool { av_get_pix_fmt(name) != AV_PIX_FMT_NONE }

    /// Whether `path` is read as raw video (by extension or because a size was given).
    package func isRawVideo(_ path: String) -> Bool {
        videoSize != nil || (path != Self.standardInput && URL(fileURLWithPath: path).pathExtension.lowercased() == "yuv")
    }

    /// The file behind `path`: `path` itself when it exists, else `path` without a
    /// leading `file:` (the prefix FFmpeg suggests for names with a colon) when that
    /// exists; nil when neither does. Standard input (`-`) has none.
    package static func fileSystemPath(of path: String) -> String? {
        guard path != standardInput else { return nil }
        if FileManager.default.fileExists(atPath: path) { return path }
        if path.hasPrefix("file:") {
            let stripped = String(path.dropFirst("file:".count))
            if !stripped.isEmpty, FileManager.default.fileExists(atPath: stripped) { return stripped }
        }
        return nil
    }

    /// How libavformat opens `path`: its URL (`file:` + the file's path, so that any name
    /// works, or `pipe:0`), whether it is read as a pipe (standard input, a named pipe, a
    /// device: see ``InputPipe``), the demuxer (nil: probe) and the demuxer options.
    /// - Throws: ``MediaInputError/inputNotFound(path:)`` for a missing file;
    ///   ``MediaInputError/badInput(path:field:detail:)`` for raw input without a size, an
    ///   unknown pixel format, or ``listen`` with a scheme that cannot wait for a sender.
    func demuxer(for path: String) throws(MediaInputError) -> (url: String, fileSystemPath: String?, isPipe: Bool, format: String?, options: [String: String]) {
        let url: String
        let file: String?
        let isPipe: Bool
        if let scheme = Self.networkScheme(of: path) {
            guard !isRawVideo(path) else {
                throw .badInput(
                    path: path, field: "videoSize", detail: "a network source is read in its own container; raw video needs a file or standard input")
            }
            try Self.checkAddress(of: path, scheme: scheme, listen: listen)
            var options: [String: String] = [:]
            if listen {
                guard let option = Self.listenOptions[scheme] else {
                    let allowed = Self.listenOptions.keys.sorted().joined(separator: ", ")
                    throw .badInput(
                        path: path, field: "listen", detail: "\(scheme):// cannot wait for a sender; allowed: \(allowed) (udp and rtp always receive)")
                }
                options[option.key] = option.value
            }
            return (Self.normalizedURL(path), nil, false, nil, options)
        }
        if Self.isVideoDevice(path) {
            guard Self.devicesRegistered else {
                throw .badInput(
                    path: path, field: "source",
                    detail:
                        "a V4L2 device needs FFmpeg's libavdevice (libavdevice.so.\(LIBAVDEVICE_VERSION_MAJOR), Debian's libavdevice59), which could not be loaded"
                )
            }
            var options: [String: String] = [:]
            if let size = videoSize { options["video_size"] = "\(size.width)x\(size.height)" }
            if let frameRate { options["framerate"] = frameRate.description }
            if let pixelFormat { options["pixel_format"] = pixelFormat }
            return (path, nil, false, "v4l2", options)
        }
        if path == Self.standardInput {
            (url, file, isPipe) = ("pipe:0", nil, true)
        } else {
            guard let found = Self.fileSystemPath(of: path) else {
                if let scheme = Self.urlScheme(of: path) { throw Self.unsupportedProtocol(scheme, path: path) }
                throw .inputNotFound(path: path)
            }
            (url, file, isPipe) = ("file:" + found, found, InputPipe.isPipeLike(path: found))
        }
        guard isRawVideo(file ?? path) else { return (url, file, isPipe, path == Self.standardInput ? "yuv4mpegpipe" : nil, [:]) }
        guard let size = videoSize else {
            throw .badInput(path: path, field: "videoSize", detail: "raw video has no header: give its size as WxH, e.g. 352x288")
        }
        let format = pixelFormat ?? "yuv420p"
        guard Self.isKnownPixelFormat(format) else {
            throw .badInput(
                path: path, field: "pixelFormat",
                detail: "'\(format)' is not a pixel format FFmpeg knows; e.g. \(Self.commonPixelFormats.joined(separator: ", "))")
        }
        var options = ["video_size": "\(size.width)x\(size.height)", "pixel_format": format]
        if let frameRate { options["framerate"] = frameRate.description }
        return (url, file, isPipe, "rawvideo", options)
    }
}
