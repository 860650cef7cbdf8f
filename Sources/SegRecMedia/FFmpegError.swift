import CFFmpeg
import Foundation

/// A failed FFmpeg call: the function's name, its negative return code (an `AVERROR`) and
/// FFmpeg's own text for that code (`av_strerror`), plus optional context such as a path.
///
/// Every negative return from libavformat / libavcodec / libswscale / libavutil inside
/// segrec's media layer surfaces as this error. Use `isNoSpace` and `isNotFound` to map
/// it to process exit codes (e.g. `EX_IOERR` 74, `EX_NOINPUT` 66).
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The FFmpeg function that failed, e.g. `"avcodec_send_frame"`.
    public let call: String
    /// Its negative return code (`AVERROR(errno)` or an FFmpeg tag such as `AVERROR_EOF`).
    public let code: Int32
    /// What went wrong, in FFmpeg's words: the error line FFmpeg logged on this thread
    /// while the call ran (e.g. `"Picture size 0x10 is invalid"`, where the code itself says
    /// EBUSY), else `av_strerror` for ``code`` (e.g. `"No space left on device"`).
    public let message: String
    /// `av_strerror` text for ``code``.
    public let codeText: String
    /// What the call was working on (a file path, an encoder name), if known.
    public let context: String?

    /// Builds the error for `code` returned by `call`; fills ``message`` with the error line
    /// FFmpeg logged on the calling thread within the last second (see
    /// `FFmpegLog.takeRecentError()`), else — and always for the operating system's I/O
    /// errors (`systemErrnos`) — with `av_strerror`.
    package init(call: String, code: Int32, context: String? = nil) {
        self.call = call
        self.code = code
        self.codeText = FFmpegError.errorString(code)
        let logged = FFmpegLog.takeRecentError().map(FFmpegError.sentence)
        self.message = FFmpegError.systemErrnos.contains(segrec_errno_from_averror(code)) ? codeText : logged ?? codeText
        self.context = context
    }

    /// Codes the operating system reports for I/O (disk full, no such file, permission,
    /// quota, broken pipe, out of memory): their `av_strerror` text is the truth, so an
    /// unrelated line logged earlier on the thread never replaces it.
    static let systemErrnos: Set<Int32> = [ENOSPC, ENOENT, EACCES, EPERM, EEXIST, EIO, EROFS, EDQUOT, EPIPE, ENOMEM, EFBIG, EISDIR, ENOTDIR]

    /// `"[yuv4mpegpipe @ 0x55…] Picture size 0x10 is invalid\n"` → `"Picture size 0x10 is invalid"`:
    /// without the context prefix FFmpeg puts before each line, cut to 200 characters.
    static func sentence(_ line: String) -> String {
        var text = Substring(line)
        while text.first == "[", let close = text.firstIndex(of: "]") { text = text[text.index(after: close)...].drop { $0 == " " } }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return Excerpt.of(trimmed, limit: 200)
    }

    /// `AVERROR(ENOSPC)`: the disk is full.
    package var isNoSpace: Bool { code == segrec_averror_enospc() }

    /// `AVERROR(ENOENT)`: the file or directory does not exist.
    package var isNotFound: Bool { code == segrec_averror_enoent() }

    /// `AVERROR_EXIT`: the call was interrupted (an `AVIOInterruptCB` said stop).
    package var isExit: Bool { code == segrec_averror_exit() }

    /// `avcodec_send_frame failed (out.mp4): No space left on device (-28)`; when FFmpeg
    /// logged the reason, `… (x.y4m): Picture size 0x10 is invalid (error -16)`.
    public var description: String {
        let what = message == codeText ? "\(message) (\(code))" : "\(message) (error \(code))"
        return "\(call) failed\(context.map { " (\($0))" } ?? ""): \(what)"
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
/// The standard way every FFmpeg return value is checked in the media layer. `context` is
/// only evaluated on failure (a path built per packet costs more than the call it checks).
@discardableResult func check(_ code: Int32, _ call: String, context: @autoclosure () -> String? = nil) throws(FFmpegError) -> Int32 {
    guard code >= 0 else { throw FFmpegError(call: call, code: code, context: context()) }
    return code
}
