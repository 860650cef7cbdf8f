/// Exact integer arithmetic on `Int128` with a 256-bit intermediate product.
///
/// Every time conversion in segrec reduces to `round(a · b / c)` for integers that can
/// reach 10^37; the product of two such numbers needs 256 bits. This uses the standard
/// library's `multipliedFullWidth(by:)` and `dividingFullWidth(_:)` on `UInt128`, so no
/// floating point and no intermediate wrap is ever involved.
package enum ExactArithmetic {
    /// `round(a · b / c)` rounded once with `rounding`.
    ///
    /// - Returns: the rounded quotient, or `nil` when it does not fit in `Int128`.
    /// - Precondition: `c != 0`.
    package static func multiplyDivide(_ a: Int128, _ b: Int128, _ c: Int128, rounding: RoundingMethod) -> Int128? {
        precondition(c != 0, "division by zero")
        if a == 0 || b == 0 { return 0 }
        let negative = ((a < 0) != (b < 0)) != (c < 0)
        let divisor = c.magnitude
        let product = a.magnitude.multipliedFullWidth(by: b.magnitude)
        // The quotient fits in 128 bits only when the high half is below the divisor.
        guard product.high < divisor else { return nil }
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        return applyRounding(quotient: quotient, remainder: remainder, divisor: divisor, negative: negative, rounding: rounding)
    }

    /// Rounds the magnitude `quotient + remainder / divisor` of a value with the given sign.
    private static func applyRounding(quotient: UInt128, remainder: UInt128, divisor: UInt128, negative: Bool, rounding: RoundingMethod) -> Int128? {
        let bumpMagnitude: Bool
        switch rounding {
        case .roundHalfAwayFromZero: bumpMagnitude = remainder >= divisor - remainder
        case .roundTowardZero: bumpMagnitude = false
        case .roundTowardNegativeInfinity: bumpMagnitude = negative && remainder != 0
        case .roundTowardPositiveInfinity: bumpMagnitude = !negative && remainder != 0
        }
        var magnitude = quotient
        if bumpMagnitude {
            let (sum, overflow) = magnitude.addingReportingOverflow(1)
            if overflow { return nil }
            magnitude = sum
        }
        if negative {
            if magnitude == Int128.min.magnitude { return Int128.min }
            guard magnitude <= UInt128(Int128.max) else { return nil }
            return -Int128(magnitude)
        }
        guard magnitude <= UInt128(Int128.max) else { return nil }
        return Int128(magnitude)
    }

    /// `a · b`, or `nil` on `Int128` overflow.
    package static func multiply(_ a: Int128, _ b: Int128) -> Int128? {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : result
    }

    /// `a + b`, or `nil` on `Int128` overflow.
    package static func add(_ a: Int128, _ b: Int128) -> Int128? {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : result
    }

    /// Greatest common divisor of the magnitudes (gcd(0, 0) == 0).
    package static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var x = a.magnitude
        var y = b.magnitude
        while y != 0 { (x, y) = (y, x % y) }
        return Int128(x)
    }
}
