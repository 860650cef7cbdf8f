import Foundation
import SegRecKit

/// The `segrec` command: dispatches to `record`, `verify` and `formats`, prints help and the
/// version, and turns every error into one line on stderr plus a sysexits exit code.
public enum SegRecCommand {
    /// The version `--version` prints.
    public static let version = SegRecVersion.version

    static let overview = """
        OVERVIEW: segrec records timestamped raw video frames into MP4 segments, one per run of
        constant frame dimensions (the iOS 26 Center Stage recording path, on Linux).

        USAGE: segrec <subcommand> [options]

        SUBCOMMANDS:
          record    Record a source into MP4 segments and a manifest.
          verify    Check a recording folder with libavformat: sizes, frames, keyframes, tiling, stamps.
          recover   Complete an interrupted recording from its .partial files and manifest journal.
          formats   List the fake Center Stage camera's formats and aspect ratios (--camera ID: an iPhone Duo camera's).
          export    Export a recording as an HLS playlist (fMP4) or an ffconcat list.
          report    Write DIR/report.html: timeline, posters, players, warnings.

          See 'segrec <subcommand> --help' for a subcommand's options.

        OPTIONS:
          --help       Show help.
          --version    Show the version.
        """

    /// Runs `segrec` with `arguments` (without the program name) and returns the exit code.
    /// - Parameter stopRequest: the flag that stops a recording cleanly; `main` passes the
    ///   one its SIGINT/SIGTERM handler sets (``RecordingStopRequest/process``).
    public static func main(_ arguments: [String], stopRequest: RecordingStopRequest = .process) async -> Int32 {
        do {
            try await run(arguments, stopRequest: stopRequest)
            return ExitCode.success.rawValue
        } catch let error as CommandLineError {
            Terminal.printError(error.message)
            return error.exitCode.rawValue
        } catch {
            var mapped = ErrorMapping.commandLineError(error)
            // A signal made a read before the recording give up: say so, not the read's error.
            if !(error is RecordingFailure), let signal = SignalHandling.stopSignal, let code = ExitCode(rawValue: SignalHandling.exitCode(for: signal)),
                mapped.exitCode != code
            {
                mapped = CommandLineError("interrupted by \(SignalHandling.name(of: signal)) before the recording started (\(mapped.message))", exitCode: code)
            }
            Terminal.printError(mapped.message)
            return mapped.exitCode.rawValue
        }
    }

    static func run(_ arguments: [String], stopRequest: RecordingStopRequest) async throws {
        guard let subcommand = arguments.first else {
            print(overview)
            throw CommandLineError("missing subcommand; use record, verify, recover, formats, export or report", exitCode: .usage)
        }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "record": try await RecordCommand.run(rest, stopRequest: stopRequest)
        case "verify": try VerifyCommand.run(rest)
        case "recover": try RecoverCommand.run(rest)
        case "formats": try FormatsCommand.run(rest)
        case "export": try ExportCommand.run(rest)
        case "report": try ReportCommand.run(rest)
        case "--help", "-h", "help": print(overview)
        case "--version": print("segrec \(version)")
        default: throw CommandLineError("unknown subcommand '\(subcommand)'; allowed: record, verify, recover, formats, export, report", exitCode: .usage)
        }
    }
}
