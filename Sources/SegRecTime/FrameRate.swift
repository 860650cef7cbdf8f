import Foundation

/// An exact frame rate `numerator / denominator` frames per second (30, 60, 30000/1001, …).
///
/// Always reduced, with both terms > 0. Decodes from a JSON number (`30`, `29.97` taken
/// as the exact decimal 2997/100) or a rational string (`"30000/1001"`); encodes as the
/// string form, or as an integer when the denominator is 1.
public struct FrameRate: Sendable, Hashable {
    /// Frames, per `denominator` seconds.
    public let numerator: Int64
    /// Seconds, per `numerator` frames.
    public let denominator: Int64

    /// Creates `numerator / denominator` frames per second, reduced.
    /// - Throws: ``FrameRateError`` unless both terms are > 0.
    public init(_ numerator: Int64, _ denominator: Int64 = 1) throws(FrameRateError) {
        guard numerator > 0, denominator > 0 else { throw .notPositive("\(numerator)/\(denominator)") }
        let divisor = Int64(ExactArithmetic.gcd(Int128(numerator), Int128(denominator)))
        self.numerator = numerator / divisor
        self.denominator = denominator / divisor
    }

    /// Parses `"30"`, `"29.97"` (exact decimal) or `"30000/1001"`.
    /// - Throws: ``FrameRateError/malformed(_:)`` for anything else.
    public init(parsing text: String) throws(FrameRateError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let n = Int64(parts[0]), let d = Int64(parts[1]) else { throw .malformed(text) }
            try self.init(n, d)
            return
        }
        guard parts.count == 1 else { throw .malformed(text) }
        let decimal = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard decimal.count <= 2, let whole = Int64(decimal[0]) else { throw .malformed(text) }
        if decimal.count == 1 {
            try self.init(whole, 1)
            return
        }
        let fraction = decimal[1]
        guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCII), let digits = Int64(fraction) else { throw .malformed(text) }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: scale)
        let (sum, carry) = scaled.addingReportingOverflow(digits)
        guard !overflow, !carry else { throw .malformed(text) }
        try self.init(sum, scale)
    }

    /// The rate as a Double, for display only.
    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }

    /// One frame period in seconds, exact.
    public var frameDuration: (numerator: Int64, denominator: Int64) { (denominator, numerator) }
}

/// Errors from building a ``FrameRate``.
public enum FrameRateError: Error, Equatable, Sendable, CustomStringConvertible {
    case notPositive(String)
    case malformed(String)

    public var description: String {
        switch self {
        case .notPositive(let text): return "frame rate \(text) must be > 0"
        case .malformed(let text): return "frame rate '\(text)' is not a number or an exact rational such as \"30000/1001\""
        }
    }
}

extension FrameRate: CustomStringConvertible {
    /// `"30"` or `"30000/1001"`.
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}

extension FrameRate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else if let number = try? container.decode(Double.self) {
            text = "\(number)"  // shortest round-trip decimal: what the user wrote
        } else {
            text = try container.decode(String.self)
        }
        do { try self.init(parsing: text) } catch { throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if denominator == 1 { try container.encode(numerator) } else { try container.encode(description) }
    }
}
