import CFFmpeg

/// A failed FFmpeg call: the function's name, its negative return code (an `AVERROR`) and
/// FFmpeg's own text for that code (`av_strerror`), plus optional context such as a path.
///
/// Every negative return from libavformat / libavcodec / libswscale / libavutil inside
/// segrec's media layer surfaces as this error. Use ``isNoSpace`` and ``isNotFound`` to map
/// it to process exit codes (e.g. `EX_IOERR` 74, `EX_NOINPUT` 66).
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The FFmpeg function that failed, e.g. `"avcodec_send_frame"`.
    public let call: String
    /// Its negative return code (`AVERROR(errno)` or an FFmpeg tag such as `AVERROR_EOF`).
    public let code: Int32
    /// `av_strerror` text for ``code``, e.g. `"No space left on device"`.
    public let message: String
    /// What the call was working on (a file path, an encoder name), if known.
    public let context: String?

    /// Builds the error for `code` returned by `call`; fills ``message`` with `av_strerror`.
    public init(call: String, code: Int32, context: String? = nil) {
        self.call = call
        self.code = code
        self.message = FFmpegError.errorString(code)
        self.context = context
    }

    /// `AVERROR(ENOSPC)`: the disk is full.
    public var isNoSpace: Bool { code == segrec_averror_enospc() }

    /// `AVERROR(ENOENT)`: the file or directory does not exist.
    public var isNotFound: Bool { code == segrec_averror_enoent() }

    /// `avcodec_send_frame failed (out.mp4): No space left on device (-28)`.
    public var description: String {
        "\(call) failed\(context.map { " (\($0))" } ?? ""): \(message) (\(code))"
    }

    /// `av_strerror` for `code`, or a generic text when FFmpeg has none.
    static func errorString(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)  // > AV_ERROR_MAX_STRING_SIZE (64)
        let found = av_strerror(code, &buffer, buffer.count) >= 0
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return found && !text.isEmpty ? text : "unknown FFmpeg error \(code)"
    }
}

/// Returns `code` when it is ≥ 0; otherwise throws ``FFmpegError`` naming `call`.
/// The standard way every FFmpeg return value is checked in the media layer.
@discardableResult
func check(_ code: Int32, _ call: String, context: String? = nil) throws(FFmpegError) -> Int32 {
    guard code >= 0 else { throw FFmpegError(call: call, code: code, context: context) }
    return code
}

/// FFmpeg's process-wide log level (mirrors `av_log_set_level`), set once.
enum FFmpegLog {
    private static let quiet: Void = { av_log_set_level(AV_LOG_QUIET) }()

    /// Turns FFmpeg's own log lines off (`AV_LOG_QUIET`): every failure reaches the user
    /// as one of segrec's errors (with `av_strerror`'s text and the file), never as loose
    /// lines on stderr. Idempotent and thread-safe (a `static let` initializer runs once).
    static func silence() { _ = quiet }
}
