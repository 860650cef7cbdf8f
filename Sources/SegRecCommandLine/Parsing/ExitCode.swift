/// Process exit codes, from BSD's sysexits.h as command-line users expect them.
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// Other failures.
    case failure = 1
    /// EX_USAGE: unknown option, bad option value, wrong arguments.
    case usage = 64
    /// EX_DATAERR: bad input data (malformed scenario, undecodable file).
    case dataError = 65
    /// EX_NOINPUT: an input file does not exist.
    case noInput = 66
    /// EX_UNAVAILABLE: a network source cannot be reached or sent nothing in time.
    case unavailable = 69
    /// EX_CANTCREAT: output exists or cannot be created.
    case cannotCreate = 73
    /// EX_IOERR: I/O error such as a full disk.
    case ioError = 74
    /// 128 + SIGINT: interrupted by Ctrl-C before anything was written, or by a second one.
    case interruptedBySIGINT = 130
    /// 128 + SIGTERM.
    case interruptedBySIGTERM = 143
}

/// An error the command line reports as one line on stderr with an exit code.
public struct CommandLineError: Error, CustomStringConvertible, Sendable {
    /// The one-line message printed after `segrec: error: `.
    public let message: String
    /// The process exit code.
    public let exitCode: ExitCode

    /// An error with `message` that exits with `exitCode`.
    public init(_ message: String, exitCode: ExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}
