import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The seeds' apply(): keep the active format if it supports the ratio, else the first
/// format in the camera's list that does; an explicit activeFormat switch; exact
/// dimensions and frame rates before and after.
@Suite("Capture: active format selection", .tags(.capture)) struct ActiveFormatSelectionTests {
    typealias Format = CaptureDevice.Format
    let formats = Format.frontCenterStageFormats  // 1280, 1920, 3840, 4032 photo
    func format(_ side: Int) -> Format { Format.frontCenterStage(squareSide: side)! }
    func fps(_ n: Int64, _ d: Int64 = 1) throws -> FrameRate { try FrameRate(n, d) }

    @Test("16x9 asked on the 4032 photo format: switches to 1280, the first format listing 16x9") func switchesFromPhoto() throws {
        let s = try ActiveFormatSelection.apply(
            .ratio16x9, formats: formats, activeFormat: format(4032), currentAspectRatio: .ratio3x4, currentFrameRate: try fps(30))
        #expect(s.format == format(1280) && s.formatIndex == 0)
        #expect(s.dimensions == VideoDimensions(width: 1280, height: 720))
        #expect(s.formatChanged && s.aspectRatioChanged && s.dimensionsChanged && !s.frameRateChanged)
        #expect(s.frameRate.numerator == 30 && s.frameRate.denominator == 1)
        #expect(s.startsSegment)
    }

    @Test("3x4 on 4032 keeps the format: no reconfiguration, no segment") func staysOnPhoto() throws {
        let s = try ActiveFormatSelection.apply(
            .ratio3x4, formats: formats, activeFormat: format(4032), currentAspectRatio: .ratio4x3, currentFrameRate: try fps(30))
        #expect(s.format == format(4032) && s.formatIndex == 3 && !s.formatChanged)
        #expect(s.dimensions == VideoDimensions(width: 3024, height: 4032))
        #expect(s.aspectRatioChanged && s.dimensionsChanged && !s.startsSegment)  // an ordinary ratio change
        let same = try ActiveFormatSelection.apply(
            .ratio4x3, formats: formats, activeFormat: format(4032), currentAspectRatio: .ratio4x3, currentFrameRate: try fps(30))
        #expect(!same.formatChanged && !same.aspectRatioChanged && !same.dimensionsChanged && !same.startsSegment)
    }

    @Test("frame rate clamped to the new format's maximum, and restored where allowed") func frameRates() throws {
        let f30 = try fps(30)
        let f60 = try fps(60)
        // 60 fps on 1920, 16x9 → 3840 is not chosen (1920 supports 16x9): stays.
        let stay = try ActiveFormatSelection.apply(
            .ratio16x9, formats: formats, activeFormat: format(1920), currentAspectRatio: .ratio9x16, currentFrameRate: try fps(60))
        #expect(!stay.formatChanged && stay.frameRate == f60 && stay.dimensions == VideoDimensions(width: 1920, height: 1080))
        // Explicit switch 1920 @ 60 → 3840 (≤ 30): clamped to 30, same ratio, new dimensions.
        let up = try ActiveFormatSelection.switchFormat(
            to: "3840", formats: formats, activeFormat: format(1920), currentAspectRatio: .ratio9x16, currentFrameRate: try fps(60))
        #expect(up.format == format(3840) && up.frameRate == f30 && up.frameRateChanged)
        #expect(up.dimensions == VideoDimensions(width: 2160, height: 3840) && up.dimensionsChanged && up.startsSegment)
        // Back to 1920 with the app's preferred 60: restored.
        let down = try ActiveFormatSelection.switchFormat(
            to: "1920", formats: formats, activeFormat: format(3840), currentAspectRatio: .ratio9x16, currentFrameRate: try fps(30),
            preferredFrameRate: try fps(60))
        #expect(down.frameRate == f60 && down.frameRateChanged && down.startsSegment)
        // 30000/1001 stays under any maximum; exact comparison.
        #expect(ActiveFormatSelection<Format>.clamped(try fps(30000, 1001), to: try fps(30)) == (try fps(30000, 1001)))
        #expect(ActiveFormatSelection<Format>.clamped(try fps(60000, 1001), to: try fps(30)) == f30)
        // A switch to the same-size format at the same rate changes nothing visible: no segment.
        let same = try ActiveFormatSelection.switchFormat(
            to: "1920", formats: formats, activeFormat: format(1920), currentAspectRatio: .ratio1x1, currentFrameRate: try fps(30))
        #expect(!same.formatChanged && !same.startsSegment)
    }

    @Test("a format the camera lacks, a ratio no format lists, a switch losing the ratio: errors naming what is allowed") func errors() throws {
        #expect(throws: CameraControlError.formatUnavailable("2560", available: ["1280", "1920", "3840", "4032"])) {
            _ = try ActiveFormatSelection.switchFormat(
                to: "2560", formats: formats, activeFormat: format(1920), currentAspectRatio: .ratio1x1, currentFrameRate: try fps(30))
        }
        #expect(throws: CameraControlError.formatLacksRatio(format: "4032", ratio: .ratio16x9, supported: [.ratio3x4, .ratio4x3])) {
            _ = try ActiveFormatSelection.switchFormat(
                to: "4032", formats: formats, activeFormat: format(1920), currentAspectRatio: .ratio16x9, currentFrameRate: try fps(30))
        }
        let photoOnly = [format(4032)]
        #expect(throws: CameraControlError.noFormatSupports(.ratio1x1, formats: ["4032"])) {
            _ = try ActiveFormatSelection.apply(
                .ratio1x1, formats: photoOnly, activeFormat: format(4032), currentAspectRatio: .ratio4x3, currentFrameRate: try fps(30))
        }
        #expect(
            CameraControlError.formatUnavailable("2560", available: ["1280", "1920"]).description
                == "format 2560 is not one of the camera's formats; available: 1280, 1920")
    }
}
