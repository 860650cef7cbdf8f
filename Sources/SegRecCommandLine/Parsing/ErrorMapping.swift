import Foundation
import SegRecKit

/// Maps the library's errors to one-line messages and sysexits exit codes.
enum ErrorMapping {
    static func commandLineError(_ error: any Error) -> CommandLineError {
        switch error {
        case let error as CommandLineError:
            return error
        case let failure as RecordingFailure:
            return recordingFailure(failure, folder: nil)
        case let error as RecordingError:
            switch error {
            case .outputExists, .cannotCreateOutput, .locked: return CommandLineError(error.description, exitCode: .cannotCreate)
            case .io: return CommandLineError(error.description, exitCode: .ioError)
            case .inputNotFound: return CommandLineError(error.description, exitCode: .noInput)
            case .badInput: return CommandLineError(error.description, exitCode: .dataError)
            case .invalidState: return CommandLineError(error.description, exitCode: .failure)
            }
        case let error as MediaInputError:
            switch error {
            case .inputNotFound: return CommandLineError(error.description, exitCode: .noInput)
            case .badInput: return CommandLineError(error.description, exitCode: .dataError)
            case .interrupted:
                // Stopped by a signal before any frame arrived: 128 + the signal, as a shell reports it.
                let code = SignalHandling.stopSignal.flatMap { ExitCode(rawValue: SignalHandling.exitCode(for: $0)) }
                return CommandLineError(error.description, exitCode: code ?? .failure)
            }
        case let error as SegmentWriterError:
            switch error {
            case .fileExists, .notWritable, .partialFileExists: return CommandLineError(error.description, exitCode: .cannotCreate)
            case .renameFailed, .io: return CommandLineError(error.description, exitCode: .ioError)
            case .pictureTooSmall: return CommandLineError(error.description, exitCode: .dataError)
            default: return CommandLineError(error.description, exitCode: .failure)
            }
        case let error as FFmpegError:
            if error.isExit, let signal = SignalHandling.stopSignal {
                return CommandLineError("interrupted by \(SignalHandling.name(of: signal)) (\(error.call))",
                                        exitCode: ExitCode(rawValue: SignalHandling.exitCode(for: signal)) ?? .interruptedBySIGINT)
            }
            if error.isNoSpace { return CommandLineError(error.description, exitCode: .ioError) }
            if error.isNotFound { return CommandLineError(error.description, exitCode: .noInput) }
            return CommandLineError(error.description, exitCode: .failure)
        case let error as SegmentRecoveryError:
            return CommandLineError("\(error)", exitCode: .dataError)
        case let error as ScenarioError:
            return CommandLineError(error.description, exitCode: .dataError)
        case let error as CaptureError:
            return CommandLineError(error.description, exitCode: .dataError)
        case let error as EncoderSettingsError:
            return CommandLineError(error.description, exitCode: .usage)
        case let error as MediaTimeError:
            return CommandLineError(error.description, exitCode: .dataError)
        default:
            return CommandLineError("\(error)", exitCode: .failure)
        }
    }

    /// The message for a recording that failed after it started. It names what the
    /// folder holds *now*: "manifest says stopReason error" only when `manifest.json` in
    /// `folder` was written and says so; otherwise that no manifest could be written (e.g.
    /// out of inodes), so the user knows the folder is not self-describing.
    static func recordingFailure(_ failure: RecordingFailure, folder: URL?) -> CommandLineError {
        let inner = commandLineError(failure.underlying)
        let kept = failure.manifest.segments.count
        let recoverable = failure.manifest.warnings.contains { $0.contains("segrec recover") }
        let what = recoverable ? "\(kept) segment\(kept == 1 ? "" : "s") kept, some as .partial files for `segrec recover` once there is room"
            : "\(kept) finished segment\(kept == 1 ? "" : "s") kept"
        let manifestNote: String
        if let folder {
            let onDisk = try? ManifestWriter.read(from: folder)
            if let onDisk, onDisk.stopReason == .error, onDisk.segments.count == kept {
                manifestNote = "manifest says stopReason \"error\""
            } else if onDisk != nil {
                manifestNote = "manifest.json could not be updated; it still describes the recording in progress"
            } else {
                manifestNote = "no manifest could be written"
            }
        } else {
            manifestNote = "stopReason \"error\""
        }
        return CommandLineError("\(inner.message) (recording stopped; \(what); \(manifestNote))", exitCode: inner.exitCode)
    }
}
