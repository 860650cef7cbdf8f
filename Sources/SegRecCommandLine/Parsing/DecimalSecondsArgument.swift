/// A number of seconds given on the command line as a plain decimal (`5`, `2.5`, `0.001`):
/// ASCII digits, optionally a point and more digits; no sign, exponent or spaces.
enum DecimalSecondsArgument {
    /// `text` as a whole count of `10^-decimals` seconds (`"2.5"` with 6 decimals:
    /// 2 500 000 µs), or nil when it is not such a number, has more than `decimals` digits
    /// after the point or more than `wholeDigits` before it.
    static func units(_ text: String, decimals: Int, wholeDigits: Int) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard (parts.count == 1 && digits(parts[0])) || (parts.count == 2 && digits(parts[0]) && digits(parts[1]) && parts[1].count <= decimals),
            parts[0].count <= wholeDigits, let whole = Int64(parts[0])
        else { return nil }
        let fraction = parts.count == 2 ? Int64(parts[1] + String(repeating: "0", count: decimals - parts[1].count))! : 0
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        return whole * scale + fraction
    }
}
