import Foundation
import SegRecKit

#if canImport(Glibc)
    import Glibc
#endif

/// Where the command writes: stdout for results, stderr for errors and live progress.
/// A write whose reader is gone (`EPIPE`; SIGPIPE is ignored) is dropped: the command goes on.
enum Terminal {
    /// Longest error message printed; values inside are already excerpts, this is the
    /// last guard that keeps it one readable line.
    static let maximumMessageLength = 1000

    /// Prints `error: message` as one line on stderr.
    static func printError(_ message: String) { writeStandardError("segrec: error: " + Excerpt.of(message, limit: maximumMessageLength) + "\n") }

    /// Prints one FFmpeg log line on stderr as `ffmpeg: line` (`record --verbose`).
    @Sendable static func printFFmpegLine(level: Int32, line: String) { writeStandardError("ffmpeg: " + Excerpt.of(line, limit: maximumMessageLength) + "\n") }

    /// Writes `text` to stderr without a newline (for the live progress line).
    @Sendable static func writeStandardError(_ text: String) { write(text, to: STDERR_FILENO) }

    /// `write(2)` of all of `text`, retried after `EINTR`; any other error (`EPIPE` once the
    /// reader is gone) drops the rest.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 { bytes = bytes.dropFirst(written) } else if written < 0, errno == EINTR { continue } else { return }
        }
    }

    /// True when stderr is a terminal (live progress is shown only then).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
