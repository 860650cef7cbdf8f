extension MediaTime {
    /// This time expressed at `newTimescale` ticks per second, rounded once.
    ///
    /// Mirrors `CMTimeConvertScale`. - Throws: ``MediaTimeError/overflow(operation:)`` when
    /// the result does not fit in Int64 ticks.
    public func converted(toTimescale newTimescale: Int32, rounding: RoundingMethod = .default) throws(MediaTimeError) -> MediaTime {
        guard newTimescale > 0 else { throw .invalidTimescale(Int64(newTimescale)) }
        if newTimescale == timescale { return self }
        guard let ticks = ExactArithmetic.multiplyDivide(Int128(value), Int128(newTimescale), Int128(timescale), rounding: rounding),
            let value = Int64(exactly: ticks)
        else { throw .overflow(operation: "converted(toTimescale: \(newTimescale))") }
        return MediaTime(value: value, timescale: newTimescale)
    }

    /// Exact sum (`CMTimeAdd`). With equal timescales the timescale is kept; otherwise the
    /// result is at the least common multiple of both timescales, so nothing is rounded.
    /// - Throws: ``MediaTimeError/overflow(operation:)`` when the value or the common
    ///   timescale does not fit.
    public func adding(_ other: MediaTime) throws(MediaTimeError) -> MediaTime { try combine(other, operation: "add") { $0.addingReportingOverflow($1) } }

    /// Exact difference (`CMTimeSubtract`); same timescale rules and errors as ``adding(_:)``.
    public func subtracting(_ other: MediaTime) throws(MediaTimeError) -> MediaTime {
        try combine(other, operation: "subtract") { $0.subtractingReportingOverflow($1) }
    }

    /// `self · numerator / denominator` at this timescale, rounded once
    /// (`CMTimeMultiplyByRatio`). - Throws: ``MediaTimeError/overflow(operation:)``;
    /// `denominator` must not be 0.
    public func multiplied(byRatio numerator: Int64, _ denominator: Int64, rounding: RoundingMethod = .default) throws(MediaTimeError) -> MediaTime {
        guard denominator != 0 else { throw .overflow(operation: "multiply by \(numerator)/0") }
        guard let ticks = ExactArithmetic.multiplyDivide(Int128(value), Int128(numerator), Int128(denominator), rounding: rounding),
            let value = Int64(exactly: ticks)
        else { throw .overflow(operation: "multiply by \(numerator)/\(denominator)") }
        return MediaTime(value: value, timescale: timescale)
    }

    private func combine(_ other: MediaTime, operation: String, _ op: (Int64, Int64) -> (partialValue: Int64, overflow: Bool)) throws(MediaTimeError)
        -> MediaTime
    {
        let common: Int32
        if timescale == other.timescale {
            common = timescale
        } else {
            let divisor = ExactArithmetic.gcd(Int128(timescale), Int128(other.timescale))
            let lcm = Int128(timescale) / divisor * Int128(other.timescale)
            guard let fitted = Int32(exactly: lcm) else { throw .overflow(operation: "\(operation): common timescale of \(timescale) and \(other.timescale)") }
            common = fitted
        }
        let lhs = try converted(toTimescale: common)
        let rhs = try other.converted(toTimescale: common)
        let (result, overflow) = op(lhs.value, rhs.value)
        guard !overflow else { throw .overflow(operation: operation) }
        return MediaTime(value: result, timescale: common)
    }

    /// Exact sum; traps on overflow (use ``adding(_:)`` to handle it).
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime { do { return try lhs.adding(rhs) } catch { preconditionFailure("\(error)") } }

    /// Exact difference; traps on overflow (use ``subtracting(_:)`` to handle it).
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime { do { return try lhs.subtracting(rhs) } catch { preconditionFailure("\(error)") } }
}
