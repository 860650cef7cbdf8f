/// A clock on which media times are measured: the host clock or a camera's device clock.
///
/// The analog of CoreMedia's `CMClock`. Every clock is an exact affine function of the
/// host clock (Docs/clocks.md):
///
///     clock_seconds = (host_seconds + offsetNanoseconds / 1e9) · (1 + driftPartsPerBillion / 1e9)
///
/// The host clock (``host``) has timescale 1e9 (nanoseconds), zero offset and zero drift, and
/// is the capture session's `synchronizationClock`. Parameters are exact integers; the
/// scenario's `offsetSeconds` / `driftPPM` are rounded once by ``init(identifier:timescale:offsetSeconds:driftPPM:)``.
public struct MediaClock: Sendable, Hashable, Codable {
    /// A name for messages and the manifest, e.g. `"host"` or `"front"`.
    public let identifier: String
    /// Native ticks per second of this clock (e.g. 24_000_000 for 24 MHz sensor ticks).
    public let timescale: Int32
    /// Offset added to host time before drift, in nanoseconds.
    public let offsetNanoseconds: Int64
    /// Rate error in parts per billion: +50_000 means the clock runs 50 ppm fast.
    public let driftPartsPerBillion: Int64

    /// Largest accepted |offset|: 100 years, in nanoseconds.
    package static let maximumOffsetNanoseconds: Int64 = 100 * 366 * 86_400 * 1_000_000_000
    /// Largest accepted |drift|: 10⁶ ppb (1000 ppm).
    package static let maximumDriftPartsPerBillion: Int64 = 1_000_000

    /// The session's synchronization clock: host time in nanoseconds.
    public static let host = MediaClock(uncheckedIdentifier: "host", timescale: 1_000_000_000, offsetNanoseconds: 0, driftPartsPerBillion: 0)

    /// Creates a clock from exact integer parameters.
    /// - Throws: ``MediaTimeError/invalidClock(_:)`` when `timescale <= 0`, |offset| exceeds
    ///   `maximumOffsetNanoseconds` or |drift| exceeds `maximumDriftPartsPerBillion`.
    public init(identifier: String, timescale: Int32, offsetNanoseconds: Int64, driftPartsPerBillion: Int64) throws(MediaTimeError) {
        guard timescale > 0 else { throw .invalidClock("timescale \(timescale) must be > 0") }
        guard offsetNanoseconds.magnitude <= Self.maximumOffsetNanoseconds.magnitude else {
            throw .invalidClock("offset \(offsetNanoseconds) ns exceeds ±\(Self.maximumOffsetNanoseconds) ns")
        }
        guard driftPartsPerBillion.magnitude <= Self.maximumDriftPartsPerBillion.magnitude else {
            throw .invalidClock("drift \(driftPartsPerBillion) ppb exceeds ±\(Self.maximumDriftPartsPerBillion) ppb (±1000 ppm)")
        }
        self.init(uncheckedIdentifier: identifier, timescale: timescale, offsetNanoseconds: offsetNanoseconds, driftPartsPerBillion: driftPartsPerBillion)
    }

    /// Creates a clock from the scenario's decimal parameters, rounding each once, half away
    /// from zero: `offset_ns = round(offsetSeconds · 1e9)`, `drift_ppb = round(driftPPM · 1000)`.
    /// - Throws: ``MediaTimeError/invalidClock(_:)`` for non-finite or out-of-range values.
    public init(identifier: String, timescale: Int32, offsetSeconds: Double, driftPPM: Double) throws(MediaTimeError) {
        guard offsetSeconds.isFinite, driftPPM.isFinite, abs(offsetSeconds) <= Double(Self.maximumOffsetNanoseconds) / 1e9,
            abs(driftPPM) <= Double(Self.maximumDriftPartsPerBillion) / 1000
        else { throw .invalidClock("offsetSeconds \(offsetSeconds) / driftPPM \(driftPPM) out of range (|offset| ≤ 100 years, |drift| ≤ 1000 ppm)") }
        try self.init(
            identifier: identifier, timescale: timescale, offsetNanoseconds: Self.roundDecimal(offsetSeconds, scale: 9),
            driftPartsPerBillion: Self.roundDecimal(driftPPM, scale: 3))
    }

    private init(uncheckedIdentifier: String, timescale: Int32, offsetNanoseconds: Int64, driftPartsPerBillion: Int64) {
        self.identifier = uncheckedIdentifier
        self.timescale = timescale
        self.offsetNanoseconds = offsetNanoseconds
        self.driftPartsPerBillion = driftPartsPerBillion
    }

    /// `round(x · 10^scale)` half away from zero, taken from `x`'s shortest decimal text so
    /// that 12.5 s is exactly 12_500_000_000 ns and 0.1 ppm exactly 100 ppb.
    package static func roundDecimal(_ x: Double, scale: Int) -> Int64 {
        var text = "\(x.magnitude)"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        var digits = String(pieces[0]) + (pieces.count > 1 ? String(pieces[1]) : "")
        var pointShift = scale + exponent - (pieces.count > 1 ? pieces[1].count : 0)
        var roundUp = false
        if pointShift >= 0 {
            digits += String(repeating: "0", count: pointShift)
        } else {
            pointShift = -pointShift
            if pointShift > digits.count { digits = String(repeating: "0", count: pointShift - digits.count) + digits }
            let cut = digits.index(digits.endIndex, offsetBy: -pointShift)
            roundUp = digits[cut] >= "5"
            digits = String(digits[..<cut])
        }
        let magnitude = (Int64(digits.isEmpty ? "0" : digits) ?? Int64.max) + (roundUp ? 1 : 0)
        return x < 0 ? -magnitude : magnitude
    }

    /// The clock's rate relative to the host as the exact fraction `(1e9 + drift) / 1e9`.
    var rateNumerator: Int128 { 1_000_000_000 + Int128(driftPartsPerBillion) }
}
