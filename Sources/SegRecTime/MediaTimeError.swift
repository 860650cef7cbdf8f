/// Errors from exact time arithmetic and clock conversion.
public enum MediaTimeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The result's value does not fit in `Int64` ticks at the requested timescale.
    case overflow(operation: String)
    /// A timescale must be in `1...Int32.max`.
    case invalidTimescale(Int64)
    /// A clock parameter is outside what the clock model accepts.
    case invalidClock(String)

    public var description: String {
        switch self {
        case .overflow(let operation): return "time overflow in \(operation): the result does not fit in 64-bit ticks"
        case .invalidTimescale(let timescale): return "invalid timescale \(timescale): allowed 1...\(Int32.max)"
        case .invalidClock(let detail): return "invalid clock: \(detail)"
        }
    }
}
