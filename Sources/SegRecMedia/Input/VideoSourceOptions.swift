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
/// - Anything else is probed by libavformat; ``frameRate`` is then only the rate used to
///   derive missing timestamps when the stream states none.
public struct VideoSourceOptions: Sendable, Hashable {
    /// Raw video picture size.
    public var videoSize: VideoDimensions?
    /// Raw video pixel format name (`av_get_pix_fmt`), e.g. `yuv420p`, `nv12`.
    public var pixelFormat: String?
    /// Raw video frame rate, or the fallback rate for streams without one.
    public var frameRate: FrameRate?

    public init(videoSize: VideoDimensions? = nil, pixelFormat: String? = nil, frameRate: FrameRate? = nil) {
        self.videoSize = videoSize
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
    }

    /// The path that means standard input.
    package static let standardInput = "-"

    /// Common pixel format names, for messages (any name `ffmpeg -pix_fmts` lists is accepted).
    package static let commonPixelFormats = ["yuv420p", "nv12", "nv21", "yuv422p", "yuv444p", "yuyv422", "uyvy422", "gray", "rgb24", "bgr24", "yuv420p10le"]

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
    ///   ``MediaInputError/badInput(path:field:detail:)`` for raw input without a size, or
    ///   an unknown pixel format.
    func demuxer(for path: String) throws(MediaInputError) -> (url: String, fileSystemPath: String?, isPipe: Bool, format: String?, options: [String: String]) {
        let url: String
        let file: String?
        let isPipe: Bool
        if path == Self.standardInput {
            (url, file, isPipe) = ("pipe:0", nil, true)
        } else {
            guard let found = Self.fileSystemPath(of: path) else { throw .inputNotFound(path: path) }
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
