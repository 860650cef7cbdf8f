import Foundation

/// Where the command writes: stdout for results, stderr for errors and live progress.
enum Terminal {
    /// Prints `error: message` as one line on stderr.
    static func printError(_ message: String) {
        let line = "segrec: error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Writes `text` to stderr without a newline (for the live progress line).
    static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// True when stderr is a terminal (live progress is shown only then).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
