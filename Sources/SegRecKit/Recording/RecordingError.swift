/// Errors of the recording layer. Each names the file and what is wrong; the command line
/// maps them to exit codes (sysexits: 65 data, 66 no input, 73 can't create, 74 I/O).
public enum RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The output folder already holds a recording (or a file in the way); use `--force`.
    case outputExists(path: String)
    /// The output folder or a file in it cannot be created.
    case cannotCreateOutput(path: String, detail: String)
    /// Reading or writing failed (e.g. disk full).
    case io(path: String, underlying: String)
    /// An input file does not exist.
    case inputNotFound(path: String)
    /// Input data is malformed.
    case badInput(path: String, field: String, detail: String)
    /// A frame or call that the recorder's state does not allow.
    case invalidState(String)
    /// Another process records into the folder (it holds `recording.lock`).
    case locked(path: String, pid: Int32?)

    public var description: String {
        switch self {
        case .outputExists(let path): return "\(path): output already exists; set force to replace it"
        case .cannotCreateOutput(let path, let detail): return "\(path): cannot create output: \(detail)"
        case .io(let path, let underlying): return "\(path): I/O error: \(underlying)"
        case .inputNotFound(let path): return "\(path): no such file"
        case .badInput(let path, let field, let detail): return "\(path): \(field): \(detail)"
        case .invalidState(let detail): return detail
        case .locked(let path, let pid):
            return "\(path): the folder is being recorded by process \(pid.map(String.init) ?? "(unknown pid)"); wait for it to end (or stop it) first"
        }
    }
}
