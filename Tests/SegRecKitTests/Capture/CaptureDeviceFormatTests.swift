import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Capture: device formats", .tags(.capture)) struct CaptureDeviceFormatTests {
    /// Every format × every ratio it supports, with the exact expected dimensions:
    /// a ≥ b → width S, height even(S·b/a); else height S, width even(S·a/b).
    static let expected: [(side: Int, ratio: DynamicAspectRatio, width: Int, height: Int)] = [
        (1280, .ratio3x4, 960, 1280), (1280, .ratio4x3, 1280, 960), (1280, .ratio9x16, 720, 1280), (1280, .ratio16x9, 1280, 720), (1280, .ratio1x1, 1280, 1280),
        (1920, .ratio3x4, 1440, 1920), (1920, .ratio4x3, 1920, 1440), (1920, .ratio9x16, 1080, 1920), (1920, .ratio16x9, 1920, 1080),
        (1920, .ratio1x1, 1920, 1920), (3840, .ratio3x4, 2880, 3840), (3840, .ratio4x3, 3840, 2880), (3840, .ratio9x16, 2160, 3840),
        (3840, .ratio16x9, 3840, 2160), (3840, .ratio1x1, 3840, 3840), (4032, .ratio3x4, 3024, 4032), (4032, .ratio4x3, 4032, 3024)
    ]

    @Test("dimensions for every format × supported ratio", arguments: 0..<17) func dimensions(row: Int) throws {
        let (side, ratio, width, height) = Self.expected[row]
        let format = try #require(CaptureDevice.Format.frontCenterStage(squareSide: side))
        #expect(try format.dimensions(for: ratio) == VideoDimensions(width: width, height: height))
    }

    @Test("the format table: sides, maximum rates, ratios, smart framing") func table() throws {
        let formats = CaptureDevice.Format.frontCenterStageFormats
        #expect(formats.map(\.squareSide) == [1280, 1920, 3840, 4032])
        #expect(formats.map(\.maxFrameRate.description) == ["60", "60", "30", "30"])
        #expect(formats.map(\.isSmartFramingSupported) == [false, false, false, true])
        for format in formats.prefix(3) { #expect(format.supportedDynamicAspectRatios == [.ratio3x4, .ratio4x3, .ratio9x16, .ratio16x9, .ratio1x1]) }
        #expect(formats[3].supportedDynamicAspectRatios == [.ratio3x4, .ratio4x3])
        #expect(formats[3].supports(frameRate: try FrameRate(30)))
        #expect(!formats[3].supports(frameRate: try FrameRate(30_001, 1000)))
        #expect(formats[1].supports(frameRate: try FrameRate(60_000, 1001)))
    }

    @Test("4032 rejects 16x9 with unsupportedRatio naming the ratio and the supported list", arguments: [DynamicAspectRatio.ratio16x9, .ratio9x16, .ratio1x1])
    func unsupportedRatioOn4032(ratio: DynamicAspectRatio) throws {
        let format = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 4032))
        #expect(throws: CaptureError.unsupportedRatio(ratio, formatSide: 4032, supported: [.ratio3x4, .ratio4x3])) { try format.dimensions(for: ratio) }
        let message = CaptureError.unsupportedRatio(ratio, formatSide: 4032, supported: [.ratio3x4, .ratio4x3]).description
        #expect(message == "dynamic aspect ratio \(ratio.rawValue) is not supported by the 4032 format; supported: 3x4, 4x3")
    }

    @Test("a device on 4032 rejects a 16x9 request and keeps its ratio (no fallback)") func deviceRejects() throws {
        let format = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 4032))
        let device = try CaptureDevice(format: format, frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio3x4)
        try device.startCapture(sessionStart: MediaTime(value: 1, timescale: 1))
        device.lockForConfiguration()
        #expect(throws: CaptureError.unsupportedRatio(.ratio16x9, formatSide: 4032, supported: [.ratio3x4, .ratio4x3])) {
            try device.requestDynamicAspectRatio(.ratio16x9, atSessionTime: MediaTime(value: 2, timescale: 1))
        }
        #expect(device.dynamicAspectRatio == .ratio3x4)
        #expect(device.requests.isEmpty)
        #expect(device.dimensions(atFrame: 100) == VideoDimensions(width: 3024, height: 4032))
    }

    /// `AVCaptureDevice.dynamicAspectRatio` is optional: nil on a camera whose active format
    /// has none (the back camera's and the earlier front camera's fixed sizes), the ratio on a
    /// square format.
    @Test("dynamicAspectRatio is nil on a fixed-size format, the ratio on a square one") func dynamicAspectRatioOptional() throws {
        for (formats, type) in [
            (CaptureDevice.Format.dualWideFormats, CaptureDevice.DeviceType.builtInDualWideCamera),
            (CaptureDevice.Format.earlierFrontFormats, .builtInWideAngleCamera)
        ] {
            let device = try CaptureDevice(
                format: formats[0], frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio16x9, formats: formats, deviceType: type)
            #expect(device.dynamicAspectRatio == nil)
        }
        let square = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 1920))
        let front = try CaptureDevice(format: square, frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio16x9)
        #expect(front.dynamicAspectRatio == .ratio16x9)
    }

    @Test("a device rejects an initial ratio or frame rate its format lacks") func deviceInitErrors() throws {
        let photo = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 4032))
        #expect(throws: CaptureError.unsupportedRatio(.ratio1x1, formatSide: 4032, supported: [.ratio3x4, .ratio4x3])) {
            _ = try CaptureDevice(format: photo, frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio1x1)
        }
        #expect(throws: CaptureError.unsupportedFrameRate(try FrameRate(60), formatSide: 4032, maximum: try FrameRate(30))) {
            _ = try CaptureDevice(format: photo, frameRate: try FrameRate(60), clock: .host, initialAspectRatio: .ratio3x4)
        }
    }
}
