import Foundation
import SegRecKit

/// Maps the library's errors to one-line messages and sysexits exit codes.
enum ErrorMapping {
    static func commandLineError(_ error: any Error) -> CommandLineError {
        if let error = error as? FFmpegError, error.isExit, let signal = SignalHandling.stopSignal {
            return CommandLineError(
                "interrupted by \(SignalHandling.name(of: signal)) (\(error.call))",
                exitCode: ExitCode(rawValue: SignalHandling.exitCode(for: signal)) ?? .interruptedBySIGINT)
        }
        switch error {
        case let error as CommandLineError: return error
        case let failure as RecordingFailure: return recordingFailure(failure, folder: nil)
        // The library names its settings by their fields; the command line by its options.
        // Every command that can meet outputExists has --force.
        case RecordingError.outputExists(let path):
            return CommandLineError("\(path): output already exists; pass --force to overwrite it", exitCode: .cannotCreate)
        case MediaInputError.badInput(let path, let field, let detail) where optionNames[field] != nil:
            return CommandLineError("\(path): \(optionNames[field] ?? field): \(detail)", exitCode: .dataError)
        case RecordingError.badInput(let path, let field, let detail) where optionNames[path] != nil:
            return CommandLineError("\(optionNames[path] ?? path): \(field): \(detail)", exitCode: .dataError)
        default: return CommandLineError("\(error)", exitCode: exitCode(for: error))
        }
    }

    /// The options that set the library's fields its errors name.
    static let optionNames = ["videoSize": "--video-size", "pixelFormat": "--pixel-format", "canvas": "--canvas"]

    /// The exit code of a library error's one-line message (``ExitCode/failure`` for any other error).
    private static func exitCode(for error: any Error) -> ExitCode {
        switch error {
        case let error as RecordingError:
            switch error {
            case .outputExists, .cannotCreateOutput, .locked: .cannotCreate
            case .io: .ioError
            case .inputNotFound: .noInput
            case .badInput: .dataError
            case .invalidState: .failure
            }
        case let error as MediaInputError:
            switch error {
            case .inputNotFound: .noInput
            case .badInput: .dataError
            case .unavailable: .unavailable
            // Stopped by a signal before any frame arrived: 128 + the signal, as a shell reports it.
            case .interrupted: SignalHandling.stopSignal.flatMap { ExitCode(rawValue: SignalHandling.exitCode(for: $0)) } ?? .failure
            }
        case let error as SegmentWriterError:
            switch error {
            case .fileExists, .notWritable, .partialFileExists: .cannotCreate
            case .renameFailed, .io: .ioError
            case .pictureTooSmall: .dataError
            default: .failure
            }
        case let error as FFmpegError: error.isNoSpace ? .ioError : error.isNotFound ? .noInput : .failure
        case is SegmentRecoveryError, is ScenarioError, is CaptureError, is MediaTimeError: .dataError
        case is EncoderSettingsError: .usage
        default: .failure
        }
    }

    /// The message for a recording that failed after it started. It names what the
    /// folder holds *now*: "manifest says stopReason error" only when `manifest.json` in
    /// `folder` was written and says so; otherwise that no manifest could be written (e.g.
    /// out of inodes), so the user knows the folder is not self-describing.
    static func recordingFailure(_ failure: RecordingFailure, folder: URL?) -> CommandLineError {
        let inner = commandLineError(failure.underlying)
        // What the folder holds now: a segment the journal listed whose file was never
        // created (out of inodes) is not kept.
        let present = failure.manifest.segments.filter { segment in
            guard let folder else { return true }
            return SegmentFiles.names(of: segment.file).prefix(2).contains { SafeFile.exists(path: folder.appendingPathComponent($0).path) }
        }
        let kept = present.count
        let recoverable = failure.manifest.warnings.contains { $0.contains("segrec recover") }
        let what =
            recoverable
            ? "\(kept) segment\(kept == 1 ? "" : "s") kept, some as .partial files for `segrec recover` once there is room"
            : "\(kept) finished segment\(kept == 1 ? "" : "s") kept"
        let manifestNote: String
        if let folder {
            let onDisk = try? ManifestReader.read(from: folder)
            if let onDisk, onDisk.stopReason == .error, onDisk.segments.count == failure.manifest.segments.count {
                manifestNote = "manifest says stopReason \"error\""
            } else if onDisk != nil {
                manifestNote = "manifest.json could not be updated; it still describes the recording in progress"
            } else {
                manifestNote = "no manifest could be written"
            }
        } else {
            manifestNote = "stopReason \"error\""
        }
        let message = failure.output?.displayText(inner.message) ?? inner.message
        return CommandLineError("\(message) (recording stopped; \(what); \(manifestNote))", exitCode: inner.exitCode)
    }
}
