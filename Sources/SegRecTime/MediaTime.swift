/// A rational time `value / timescale` seconds: segrec's analog of CoreMedia's `CMTime`.
///
/// - `value`: ticks (Int64); `timescale`: ticks per second (Int32, always > 0).
/// - Equality and ordering are exact across timescales (128-bit cross-multiplication), so
///   `MediaTime(value: 1, timescale: 2) == MediaTime(value: 500, timescale: 1000)`.
/// - Encodes as `{"value": …, "timescale": …}`.
public struct MediaTime: Sendable {
    /// Ticks. May be negative.
    public let value: Int64
    /// Ticks per second, in `1...Int32.max`.
    public let timescale: Int32

    /// Creates `value / timescale` seconds. Traps if `timescale <= 0`
    /// (use ``init(validatingValue:timescale:)`` for untrusted input).
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be > 0, got \(timescale)")
        self.value = value
        self.timescale = timescale
    }

    /// Creates `value / timescale` seconds from untrusted input.
    /// - Throws: ``MediaTimeError/invalidTimescale(_:)`` unless `timescale` is in `1...Int32.max`.
    public init(validatingValue value: Int64, timescale: Int64) throws(MediaTimeError) {
        guard timescale > 0, timescale <= Int64(Int32.max) else { throw .invalidTimescale(timescale) }
        self.init(value: value, timescale: Int32(timescale))
    }

    /// Zero seconds at timescale 1 (`kCMTimeZero`).
    public static let zero = MediaTime(value: 0, timescale: 1)

    /// The time in seconds as a `Double`. For display only: never compare or compute with it.
    public var seconds: Double { Double(value) / Double(timescale) }
}

extension MediaTime: Comparable, Hashable {
    /// Exact rational equality across timescales (`CMTimeCompare(a, b) == 0`).
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    /// Exact rational ordering across timescales (`CMTimeCompare(a, b) < 0`).
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }

    /// −1, 0 or 1 as `lhs` is before, equal to or after `rhs`; mirrors `CMTimeCompare`.
    public static func compare(_ lhs: MediaTime, _ rhs: MediaTime) -> Int {
        // |value| < 2^63 and timescale < 2^31, so each product is < 2^94: no overflow.
        let left = Int128(lhs.value) * Int128(rhs.timescale)
        let right = Int128(rhs.value) * Int128(lhs.timescale)
        return left < right ? -1 : (left == right ? 0 : 1)
    }

    /// Hashes the reduced fraction, so equal times hash equally whatever their timescales.
    public func hash(into hasher: inout Hasher) {
        let divisor = ExactArithmetic.gcd(Int128(value), Int128(timescale))
        hasher.combine(Int128(value) / divisor)
        hasher.combine(Int128(timescale) / divisor)
    }
}

extension MediaTime: Codable {
    private enum CodingKeys: String, CodingKey { case value, timescale }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let value = try container.decode(Int64.self, forKey: .value)
        let timescale = try container.decode(Int64.self, forKey: .timescale)
        do { try self.init(validatingValue: value, timescale: timescale) } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .timescale, in: container, debugDescription: "timescale must be in 1...\(Int32.max), got \(timescale)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(timescale, forKey: .timescale)
    }
}

extension MediaTime: CustomStringConvertible {
    /// `value/timescale` followed by the seconds, e.g. `3033333333/1000000000 (3.033333333 s)`.
    public var description: String { "\(value)/\(timescale) (\(seconds) s)" }
}
