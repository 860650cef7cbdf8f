import CFFmpeg
import CSegRecLog
import Foundation
import Synchronization

/// Where FFmpeg's own log lines go (libavformat, libavcodec, libswscale, libavutil): never
/// raw to stderr. segrec installs its callback with `av_log_set_callback` and formats each
/// line with `av_log_format_line2` in a small C callback (`segrec_av_log_callback` in
/// Sources/CFFmpeg/shim.h: a Swift `@convention(c)` function cannot take a `va_list`),
/// which hands it to `receive(level:line:)`.
///
/// - ``Mode/quiet`` (the default): lines are dropped; lines at `AV_LOG_ERROR` or worse are
///   counted (``errorLineCount``) and the latest per thread is kept for a second, so an
///   ``FFmpegError`` raised by the call that logged it says what FFmpeg said (an invalid
///   picture size instead of the code's "Device or resource busy").
/// - ``Mode/verbose(_:)``: every line up to `AV_LOG_INFO` is also handed, formatted and
///   without its newline, to the given sink (the command line prints it on stderr prefixed
///   `ffmpeg: `); errors are still kept as in quiet mode.
///
/// libx264 logs through `av_log`; libx265 writes to stderr itself (its own `log-level`,
/// set by ``SegmentWriter``), which this callback cannot catch.
package enum FFmpegLog {
    /// What happens to FFmpeg's lines.
    package enum Mode: Sendable {
        /// Dropped (errors counted and kept for ``FFmpegError``).
        case quiet
        /// Handed to the sink as `(av_log level, line)`, from whichever thread logged.
        case verbose(@Sendable (Int32, String) -> Void)
    }

    private struct State {
        var sink: (@Sendable (Int32, String) -> Void)?
        var errorLines = 0
        /// The latest error line per thread (`pthread_self`), with when it was logged.
        var recentErrors: [UInt: (line: String, at: ContinuousClock.Instant)] = [:]
        /// Error lines logged per thread while ``errorLines(loggedDuring:)`` runs there.
        var captured: [UInt: [String]] = [:]
    }

    private static let state = Mutex(State())
    private static let installed: Void = {
        av_log_set_level(segrec_av_log_error())
        segrec_install_av_log_callback()
    }()

    /// Installs segrec's callback with `mode`. Thread-safe; the last call wins.
    package static func configure(_ mode: Mode) {
        _ = installed
        state.withLock { state in if case .verbose(let sink) = mode { state.sink = sink } else { state.sink = nil } }
        if case .verbose = mode { av_log_set_level(segrec_av_log_info()) } else { av_log_set_level(segrec_av_log_error()) }
    }

    /// Installs the callback in its current mode (quiet unless ``configure(_:)`` said
    /// otherwise). Called before FFmpeg's first use; idempotent.
    static func silence() { _ = installed }

    /// How many lines at `AV_LOG_ERROR` or worse FFmpeg logged in this process.
    package static var errorLineCount: Int { state.withLock { $0.errorLines } }

    /// The error line FFmpeg logged on the calling thread within the last second, removed
    /// (so it is reported once); nil when there is none.
    static func takeRecentError() -> String? {
        let thread = UInt(truncatingIfNeeded: pthread_self())
        return state.withLock { state in
            guard let entry = state.recentErrors.removeValue(forKey: thread), ContinuousClock.now - entry.at < .seconds(1) else { return nil }
            return entry.line
        }
    }

    /// Runs `body` (one synchronous FFmpeg call, e.g. `av_read_frame`) and returns its
    /// result with the lines at `AV_LOG_ERROR` or worse that FFmpeg logged on the calling
    /// thread while it ran, in order and with their `[name @ 0x…]` prefix, e.g. the
    /// matroska demuxer's `[matroska,webm @ 0x55…] 0x00 at pos 101497 (0x18c79) invalid as
    /// first byte of an EBML number` when it skips unreadable data. Lines FFmpeg's own
    /// worker threads log are not seen.
    static func errorLines<Result>(loggedDuring body: () -> Result) -> (result: Result, errors: [String]) {
        let thread = UInt(truncatingIfNeeded: pthread_self())
        state.withLock { $0.captured[thread] = [] }
        let result = body()
        let errors = state.withLock { $0.captured.removeValue(forKey: thread) ?? [] }
        return (result, errors)
    }

    /// One formatted line from FFmpeg's callback: keeps errors, hands the line to the sink.
    static func receive(level: Int32, line rawLine: String) {
        var line = rawLine
        while line.last == "\n" || line.last == "\r" { line.removeLast() }
        guard !line.isEmpty else { return }
        let isError = level <= segrec_av_log_error()
        let thread = UInt(truncatingIfNeeded: pthread_self())
        let sink = state.withLock { state -> (@Sendable (Int32, String) -> Void)? in
            if isError {
                state.errorLines += 1
                state.recentErrors[thread] = (line, ContinuousClock.now)
                state.captured[thread]?.append(line)
            }
            return state.sink
        }
        sink?(level, line)
    }
}

/// Called by the C callback `segrec_av_log_callback` (Sources/CFFmpeg/shim.h) for every
/// FFmpeg log line at or below the current `av_log` level.
@_cdecl("segrec_ffmpeg_log_line") func segrecFFmpegLogLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    FFmpegLog.receive(level: level, line: String(cString: line))
}
