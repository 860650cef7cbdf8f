import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// preferredVideoStabilizationMode: default change latency per mode, support per camera,
/// errors naming the supported modes.
@Suite("Capture: video stabilization modes", .tags(.capture)) struct StabilizationModeTests {
    @Test("default changeLatencyFrames per mode; an explicit value wins") func latency() {
        let modes: [VideoStabilizationMode] = [.off, .lowLatency, .standard, .cinematic, .cinematicExtended, .cinematicExtendedEnhanced]
        #expect(modes.map(\.defaultChangeLatencyFrames) == [1, 1, 2, 3, 4, 5])
        #expect(modes.map { $0.changeLatencyFrames(explicit: nil) } == [1, 1, 2, 3, 4, 5])
        #expect(modes.map { $0.changeLatencyFrames(explicit: 0) } == [0, 0, 0, 0, 0, 0])
        #expect(VideoStabilizationMode.cinematicExtendedEnhanced.changeLatencyFrames(explicit: 2) == 2)
    }

    @Test("the latency moves the first new-size frame: request at 2.0 s on a 30 fps camera") func latencyOnTheDevice() throws {
        // Frame i at exactly (1 + i/30) s host; a request at 2.0 s host (= frame 30's instant)
        // takes effect on frame 30 + latency.
        let clock = try MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 0, driftPartsPerBillion: 0)
        var firstNewFrames: [Int64] = []
        for mode in VideoStabilizationMode.allCases {
            let device = try CaptureDevice(
                format: CaptureDevice.Format.frontCenterStage(squareSide: 1280)!, frameRate: try FrameRate(30), clock: clock, initialAspectRatio: .ratio9x16,
                changeLatencyFrames: mode.changeLatencyFrames(explicit: nil))
            try device.startCapture(sessionStart: MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
            device.lockForConfiguration()
            let request = try device.submitDynamicAspectRatio(.ratio16x9, atSessionTime: MediaTime(value: 2_000_000_000, timescale: 1_000_000_000))
            firstNewFrames.append(request.effectiveFrameIndex)
            #expect(request.change.deviceTime == MediaTime(value: 24_000_000 + 800_000 * request.effectiveFrameIndex, timescale: 24_000_000))
        }
        // off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced, lowLatency
        #expect(firstNewFrames == [31, 32, 33, 34, 35, 31])
    }

    @Test("lowLatency only on the Center Stage front cameras") func support() throws {
        let all = VideoStabilizationMode.allCases
        for type in ["builtInUltraWideCamera", "builtInOuterUltraWideCamera", "builtInInnerUltraWideCamera"] {
            #expect(try VideoStabilizationMode.supportedModes(deviceType: type) == all)
            try VideoStabilizationMode.lowLatency.validate(deviceType: type)
        }
        let back = try VideoStabilizationMode.supportedModes(deviceType: "builtInDualWideCamera")
        #expect(back == [.off, .standard, .cinematic, .cinematicExtended, .cinematicExtendedEnhanced])
        #expect(try !VideoStabilizationMode.lowLatency.isSupported(deviceType: "builtInDualWideCamera"))
        #expect(try VideoStabilizationMode.cinematicExtended.isSupported(deviceType: "builtInDualWideCamera"))
        #expect(throws: CameraControlError.unsupportedStabilizationMode(.lowLatency, deviceType: "builtInDualWideCamera", supported: back)) {
            try VideoStabilizationMode.lowLatency.validate(deviceType: "builtInDualWideCamera")
        }
        let message = CameraControlError.unsupportedStabilizationMode(.lowLatency, deviceType: "builtInDualWideCamera", supported: back).description
        #expect(
            message
                == "video stabilization mode lowLatency is not supported by builtInDualWideCamera; supported: off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced"
        )
    }

    @Test("unknown spellings name the allowed values") func names() throws {
        #expect(try VideoStabilizationMode(named: "cinematicExtendedEnhanced") == .cinematicExtendedEnhanced)
        #expect(
            throws: CameraControlError.unknownValue(
                name: "preferredVideoStabilizationMode", value: "auto",
                allowed: "off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced, lowLatency")
        ) { _ = try VideoStabilizationMode(named: "auto") }
        #expect(throws: CameraControlError.self) { _ = try VideoStabilizationMode.supportedModes(deviceType: "builtInTelephotoCamera") }
    }
}
