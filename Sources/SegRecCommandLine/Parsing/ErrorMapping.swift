import SegRecKit

/// Maps the library's errors to one-line messages and sysexits exit codes.
enum ErrorMapping {
    static func commandLineError(_ error: any Error) -> CommandLineError {
        switch error {
        case let error as CommandLineError:
            return error
        case let failure as RecordingFailure:
            let inner = commandLineError(failure.underlying)
            let kept = failure.manifest.segments.count
            let recoverable = failure.manifest.warnings.contains { $0.contains("segrec recover") }
            let what = recoverable ? "\(kept) segment\(kept == 1 ? "" : "s") kept, some as .partial files for `segrec recover` once there is room"
                : "\(kept) finished segment\(kept == 1 ? "" : "s") kept"
            return CommandLineError("\(inner.message) (recording stopped; \(what); manifest says stopReason \"error\")",
                                    exitCode: inner.exitCode)
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
            case .interrupted: return CommandLineError(error.description, exitCode: .failure)
            }
        case let error as SegmentWriterError:
            switch error {
            case .fileExists, .notWritable, .partialFileExists: return CommandLineError(error.description, exitCode: .cannotCreate)
            case .renameFailed, .io: return CommandLineError(error.description, exitCode: .ioError)
            default: return CommandLineError(error.description, exitCode: .failure)
            }
        case let error as FFmpegError:
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
}
