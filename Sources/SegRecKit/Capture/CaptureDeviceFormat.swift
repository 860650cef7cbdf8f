extension CaptureDevice {
    /// One square-sensor format of the Center Stage front camera: the analog of
    /// `AVCaptureDevice.Format` (Docs/cameras.md, "Dynamic aspect ratio").
    ///
    /// | square side | max fps | dynamic aspect ratios      | smart framing |
    /// |-------------|---------|----------------------------|---------------|
    /// | 1280        | 60      | 3x4, 4x3, 9x16, 16x9, 1x1  | no            |
    /// | 1920        | 60      | 3x4, 4x3, 9x16, 16x9, 1x1  | no            |
    /// | 3840        | 30      | 3x4, 4x3, 9x16, 16x9, 1x1  | no            |
    /// | 4032 photo  | 30      | 3x4, 4x3                   | yes           |
    package struct Format: Sendable, Hashable, CustomStringConvertible {
        /// Side of the square sensor crop in pixels (1280, 1920, 3840 or 4032).
        package let squareSide: Int
        /// Highest frame rate the format delivers, frames per second.
        package let maxFrameRate: FrameRate
        /// The ratios `setDynamicAspectRatio` accepts on this format
        /// (`AVCaptureDevice.Format.supportedDynamicAspectRatios`).
        package let supportedDynamicAspectRatios: [DynamicAspectRatio]
        /// Whether the ``SmartFramingMonitor`` gives recommendations on this format.
        package let isSmartFramingSupported: Bool
        /// The sensor's fixed frame size for a camera without dynamic aspect ratio (the back
        /// camera's 16:9 landscape formats), else `nil` (a square sensor of ``squareSide``).
        /// For a fixed format ``squareSide`` is its width.
        package let fixedDimensions: VideoDimensions?

        /// Creates a format. Use ``frontCenterStageFormats`` for the modelled camera.
        package init(squareSide: Int, maxFrameRate: FrameRate, supportedDynamicAspectRatios: [DynamicAspectRatio], isSmartFramingSupported: Bool) {
            self.squareSide = squareSide
            self.maxFrameRate = maxFrameRate
            self.supportedDynamicAspectRatios = supportedDynamicAspectRatios
            self.isSmartFramingSupported = isSmartFramingSupported
            self.fixedDimensions = nil
        }

        /// A fixed-size (non-square) format: `dimensions` at up to `maxFrameRate`, no dynamic
        /// aspect ratio, no smart framing (the back camera's).
        package init(fixed dimensions: VideoDimensions, maxFrameRate: FrameRate) {
            self.squareSide = dimensions.width
            self.maxFrameRate = maxFrameRate
            self.supportedDynamicAspectRatios = []
            self.isSmartFramingSupported = false
            self.fixedDimensions = dimensions
        }

        /// The scenario spelling: `1920` for a square format, `1920x1080` for a fixed one.
        package var name: String { fixedDimensions.map { "\($0.width)x\($0.height)" } ?? "\(squareSide)" }

        /// iPhone Duo's outer front camera: square 1280, 1920, 3840, each up to 120 fps, all five ratios.
        package static let outerUltraWideFormats: [Format] = squareFormats([1280, 1920, 3840], maxFPS: 120)
        /// iPhone Duo's inner front camera: square 1280, 1920, up to 60 fps, all five ratios.
        package static let innerUltraWideFormats: [Format] = squareFormats([1280, 1920], maxFPS: 60)
        /// The Virtual Front Camera: what inner and outer share, square 1280 and 1920 up to 60 fps.
        package static let virtualFrontFormats: [Format] = squareFormats([1280, 1920], maxFPS: 60)
        /// The back camera: 16:9 landscape 1920x1080 and 3840x2160, up to 60 fps, fixed size.
        package static let dualWideFormats: [Format] = [
            Format(fixed: VideoDimensions(width: 1920, height: 1080), maxFrameRate: rate(60)),
            Format(fixed: VideoDimensions(width: 3840, height: 2160), maxFrameRate: rate(60))
        ]

        /// The earlier front camera's fixed 4:3 formats (the model's assumption: 1280x960 up
        /// to 60 fps, 1920x1440 up to 30 fps).
        package static let earlierFrontFormats: [Format] = [
            Format(fixed: VideoDimensions(width: 1280, height: 960), maxFrameRate: rate(60)),
            Format(fixed: VideoDimensions(width: 1920, height: 1440), maxFrameRate: rate(30))
        ]

        private static func rate(_ fps: Int64) -> FrameRate { do { return try FrameRate(fps) } catch { preconditionFailure("\(error)") } }

        private static func squareFormats(_ sides: [Int], maxFPS: Int64) -> [Format] {
            let all: [DynamicAspectRatio] = [.ratio3x4, .ratio4x3, .ratio9x16, .ratio16x9, .ratio1x1]
            return sides.map { Format(squareSide: $0, maxFrameRate: rate(maxFPS), supportedDynamicAspectRatios: all, isSmartFramingSupported: false) }
        }

        /// The front Center Stage camera's formats, smallest first (table above).
        package static let frontCenterStageFormats: [Format] = {
            let all: [DynamicAspectRatio] = [.ratio3x4, .ratio4x3, .ratio9x16, .ratio16x9, .ratio1x1]
            func rate(_ fps: Int64) -> FrameRate { do { return try FrameRate(fps) } catch { preconditionFailure("\(error)") } }
            return [
                Format(squareSide: 1280, maxFrameRate: rate(60), supportedDynamicAspectRatios: all, isSmartFramingSupported: false),
                Format(squareSide: 1920, maxFrameRate: rate(60), supportedDynamicAspectRatios: all, isSmartFramingSupported: false),
                Format(squareSide: 3840, maxFrameRate: rate(30), supportedDynamicAspectRatios: all, isSmartFramingSupported: false),
                Format(squareSide: 4032, maxFrameRate: rate(30), supportedDynamicAspectRatios: [.ratio3x4, .ratio4x3], isSmartFramingSupported: true)
            ]
        }()

        /// The front camera format with square side `side`, or `nil` if there is none.
        package static func frontCenterStage(squareSide side: Int) -> Format? { frontCenterStageFormats.first { $0.squareSide == side } }

        /// Frame dimensions in pixels for `ratio` on this format.
        /// - Throws: ``CaptureError/unsupportedRatio(_:formatSide:supported:)`` when the
        ///   format does not list `ratio`.
        package func dimensions(for ratio: DynamicAspectRatio) throws(CaptureError) -> VideoDimensions {
            try validate(ratio)
            return ratio.dimensions(squareSide: squareSide)
        }

        /// Throws ``CaptureError/unsupportedRatio(_:formatSide:supported:)`` unless the format
        /// lists `ratio`.
        package func validate(_ ratio: DynamicAspectRatio) throws(CaptureError) {
            guard supportedDynamicAspectRatios.contains(ratio) else {
                throw .unsupportedRatio(ratio, formatSide: squareSide, supported: supportedDynamicAspectRatios)
            }
        }

        /// Whether `rate` is at most ``maxFrameRate`` (exact rational comparison).
        package func supports(frameRate rate: FrameRate) -> Bool {
            Int128(rate.numerator) * Int128(maxFrameRate.denominator) <= Int128(maxFrameRate.numerator) * Int128(rate.denominator)
        }

        /// `"1920 (≤60 fps; 3x4, 4x3, 9x16, 16x9, 1x1)"`; `"1920x1080 (≤60 fps; fixed size)"`.
        package var description: String {
            if fixedDimensions != nil { return "\(name) (≤\(maxFrameRate) fps; fixed size)" }
            return "\(squareSide) (≤\(maxFrameRate) fps; \(supportedDynamicAspectRatios.map(\.rawValue).joined(separator: ", "))"
                + (isSmartFramingSupported ? "; smart framing)" : ")")
        }
    }
}
