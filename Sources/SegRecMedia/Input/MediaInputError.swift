/// Errors of the media layer about an input it reads (a footage file, standard input): the
/// file is missing, or its data cannot be demuxed, decoded or converted.
///
/// The messages are the same text the recording layer's ``RecordingError`` uses for the
/// same problems, so what a user reads does not depend on which layer noticed; the command
/// line maps ``inputNotFound(path:)`` to exit code 66 (`EX_NOINPUT`) and
/// ``badInput(path:field:detail:)`` to 65 (`EX_DATAERR`), ``unavailable(path:detail:)`` to
/// 69 (`EX_UNAVAILABLE`) and ``interrupted(path:)`` to 1.
public enum MediaInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input file does not exist.
    case inputNotFound(path: String)
    /// The input's data is malformed or unusable: `field` names what is wrong (e.g.
    /// `container`, `video stream`, `data`), `detail` says how.
    case badInput(path: String, field: String, detail: String)
    /// A network source could not be opened (refused, unreachable, no such stream) or sent
    /// nothing within its I/O timeout before its stream could be read: `detail` says which.
    case unavailable(path: String, detail: String)
    /// A stop was requested (SIGINT, SIGTERM) while the input's header was still awaited
    /// (an idle pipe or standard input): nothing was read.
    case interrupted(path: String)

    /// One line naming the path: `"<path>: no such file"` or `"<path>: <field>: <detail>"`.
    public var description: String {
        switch self {
        case .inputNotFound(let path): return "\(path): no such file"
        case .badInput(let path, let field, let detail): return "\(path): \(field): \(detail)"
        case .unavailable(let path, let detail): return "\(path): \(detail)"
        case .interrupted(let path): return "\(path): interrupted before any data arrived: nothing recorded"
        }
    }
}
