/// How a rational time is rounded to an integer number of ticks.
///
/// Mirrors CoreMedia's `CMTimeRoundingMethod`. The default everywhere in segrec is
/// ``roundHalfAwayFromZero`` (CoreMedia's `kCMTimeRoundingMethod_Default`).
public enum RoundingMethod: String, Sendable, CaseIterable, Codable {
    /// Nearest tick; exact halves go away from zero (2.5 → 3, −2.5 → −3).
    /// `kCMTimeRoundingMethod_RoundHalfAwayFromZero`.
    case roundHalfAwayFromZero
    /// Truncate toward zero (2.7 → 2, −2.7 → −2). `kCMTimeRoundingMethod_RoundTowardZero`.
    case roundTowardZero
    /// Floor (2.7 → 2, −2.2 → −3). `kCMTimeRoundingMethod_RoundTowardNegativeInfinity`.
    case roundTowardNegativeInfinity
    /// Ceiling (2.2 → 3, −2.7 → −2). `kCMTimeRoundingMethod_RoundTowardPositiveInfinity`.
    case roundTowardPositiveInfinity

    /// CoreMedia's default rounding: half away from zero.
    public static let `default`: RoundingMethod = .roundHalfAwayFromZero
}
