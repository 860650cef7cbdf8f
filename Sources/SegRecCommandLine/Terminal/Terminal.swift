import Foundation
import SegRecKit

/// Where the command writes: stdout for results, stderr for errors and live progress.
enum Terminal {
    /// Longest error message printed; values inside are already excerpts, this is the
    /// last guard that keeps it one readable line.
    static let maximumMessageLength = 1000

    /// Prints `error: message` as one line on stderr.
    static func printError(_ message: String) {
        let line = "segrec: error: " + Excerpt.of(message, limit: maximumMessageLength) + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Prints one FFmpeg log line on stderr as `ffmpeg: line` (`record --verbose`).
    @Sendable static func printFFmpegLine(level: Int32, line: String) {
        FileHandle.standardError.write(Data(("ffmpeg: " + Excerpt.of(line, limit: maximumMessageLength) + "\n").utf8))
    }

    /// Writes `text` to stderr without a newline (for the live progress line).
    static func writeStandardError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    /// True when stderr is a terminal (live progress is shown only then).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
