/// An aspect ratio the Center Stage front camera can crop its square sensor to.
///
/// Mirrors `AVCaptureDevice.DynamicAspectRatio` (iOS 26): `.ratio3x4`, `.ratio4x3`,
/// `.ratio9x16`, `.ratio16x9`, `.ratio1x1`. The raw value is the scenario/manifest spelling
/// (`"16x9"`): width units `x` height units.
package enum DynamicAspectRatio: String, Sendable, Hashable, Codable, CaseIterable {
    case ratio3x4 = "3x4"
    case ratio4x3 = "4x3"
    case ratio9x16 = "9x16"
    case ratio16x9 = "16x9"
    case ratio1x1 = "1x1"

    /// Width units `a` of `a:b`.
    package var widthUnits: Int {
        switch self {
        case .ratio3x4: 3
        case .ratio4x3: 4
        case .ratio9x16: 9
        case .ratio16x9: 16
        case .ratio1x1: 1
        }
    }

    /// Height units `b` of `a:b`.
    package var heightUnits: Int {
        switch self {
        case .ratio3x4: 4
        case .ratio4x3: 3
        case .ratio9x16: 16
        case .ratio16x9: 9
        case .ratio1x1: 1
        }
    }

    /// The allowed spellings, for error messages: `3x4, 4x3, 9x16, 16x9, 1x1`.
    package static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Dimensions in pixels of a square sensor of side `side` cropped to this ratio
    /// (Docs/cameras.md): `width = side, height = even(side·b/a)` when a ≥ b, else
    /// `height = side, width = even(side·a/b)`, `even(x)` being the nearest multiple of 2
    /// (exact halves away from zero). 1920 → 16x9: 1920x1080; 9x16: 1080x1920.
    package func dimensions(squareSide side: Int) -> VideoDimensions {
        let a = widthUnits
        let b = heightUnits
        if a >= b {
            return VideoDimensions(width: side, height: Self.nearestEven(side * b, over: a))
        } else {
            return VideoDimensions(width: Self.nearestEven(side * a, over: b), height: side)
        }
    }

    /// The multiple of 2 nearest to `numerator / denominator`, halves rounded up.
    static func nearestEven(_ numerator: Int, over denominator: Int) -> Int {
        // nearest multiple of 2 to n/d = 2 · round(n / (2d)), half away from zero.
        2 * ((2 * numerator + 2 * denominator) / (4 * denominator))
    }
}

extension DynamicAspectRatio {
    /// The ratio whose crop of a square sensor of side `max(width, height)` gives exactly
    /// `dimensions`, or nil (e.g. 352x288 pass-through input).
    package init?(matching dimensions: VideoDimensions) {
        let side = max(dimensions.width, dimensions.height)
        guard let ratio = Self.allCases.first(where: { $0.dimensions(squareSide: side) == dimensions }) else { return nil }
        self = ratio
    }
}
