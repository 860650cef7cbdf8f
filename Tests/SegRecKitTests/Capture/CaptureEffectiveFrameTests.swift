import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `setDynamicAspectRatio` answers with D(k) of the first frame with
/// `D(k) ≥ convertTime(s, host → device) + L · ts / fps`. Expected values below were worked
/// out by hand / exact rational arithmetic, independently of the library.
@Suite("Capture: effective frame of a dynamic aspect ratio request", .tags(.capture)) struct CaptureEffectiveFrameTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let timescale: Int32, offsetNanoseconds: Int64, driftPPB: Int64
        let fps: (Int64, Int64)
        let sessionStartNanoseconds: Int64, requestNanoseconds: Int64
        let latency: Int64
        let expectedFrame: Int64, expectedDeviceTicks: Int64, expectedSessionNanoseconds: Int64
        var testDescription: String { "\(name) L=\(latency)" }
    }

    // A: 30 fps, 24 MHz, no offset or drift. Start 1.0 s → D0 = 24_000_000; period = 24e6/30
    //    = 800_000 ticks. Request at host 2.0 s → 48_000_000 = D0 + 30 periods, so
    //    k = 30 + L and D(k) = 24_000_000 + 800_000·k; session = D(k)/24e6 s.
    // B: 60 fps, 24 MHz, offset 12.5 s, drift +50 ppm: device = (host + 12.5)·1.00005·24e6.
    //    D0 = 13.5 · 24_001_200 = 324_016_200; period = 400_000. Request at 1.25 s →
    //    13.75 · 24_001_200 = 330_016_500 = D0 + 6_000_300 (15.00075 periods), so
    //    k = ceil(15.00075 + L) = 16 + L; D(k) = 324_016_200 + 400_000·k;
    //    session = D(k)/24_001_200 − 12.5 s, e.g. L=2: 331_216_200/24_001_200 − 12.5
    //    = 1.2999850007… → 1_299_985_001 ns.
    // C: 30000/1001 fps, 90 kHz, offset −86400.25 s, drift −200 ppm, start 2_000_000 s:
    //    device = (host − 86400.25)·0.9998·90000. D0 = round(1_913_599.75 · 89_982)
    //    = round(172_189_532_704.5) = 172_189_532_705; period = 90000·1001/30000 = 3003.
    //    Request at 2_000_010 s → 1_913_609.75 · 89_982 = 172_190_432_524.5 → …525
    //    = D0 + 899_820 ticks = 299.64 periods, so k = 300 + L, D(k) = D0 + 3003·k;
    //    session = D(k)/89_982 + 86400.25 s rounded to ns.
    static let cases: [Case] = [
        Case(
            name: "A 30fps", timescale: 24_000_000, offsetNanoseconds: 0, driftPPB: 0, fps: (30, 1), sessionStartNanoseconds: 1_000_000_000,
            requestNanoseconds: 2_000_000_000, latency: 0, expectedFrame: 30, expectedDeviceTicks: 48_000_000, expectedSessionNanoseconds: 2_000_000_000),
        Case(
            name: "A 30fps", timescale: 24_000_000, offsetNanoseconds: 0, driftPPB: 0, fps: (30, 1), sessionStartNanoseconds: 1_000_000_000,
            requestNanoseconds: 2_000_000_000, latency: 1, expectedFrame: 31, expectedDeviceTicks: 48_800_000, expectedSessionNanoseconds: 2_033_333_333),
        Case(
            name: "A 30fps", timescale: 24_000_000, offsetNanoseconds: 0, driftPPB: 0, fps: (30, 1), sessionStartNanoseconds: 1_000_000_000,
            requestNanoseconds: 2_000_000_000, latency: 2, expectedFrame: 32, expectedDeviceTicks: 49_600_000, expectedSessionNanoseconds: 2_066_666_667),
        Case(
            name: "A 30fps", timescale: 24_000_000, offsetNanoseconds: 0, driftPPB: 0, fps: (30, 1), sessionStartNanoseconds: 1_000_000_000,
            requestNanoseconds: 2_000_000_000, latency: 5, expectedFrame: 35, expectedDeviceTicks: 52_000_000, expectedSessionNanoseconds: 2_166_666_667),
        Case(
            name: "B 60fps drift", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPPB: 50_000, fps: (60, 1),
            sessionStartNanoseconds: 1_000_000_000, requestNanoseconds: 1_250_000_000, latency: 0, expectedFrame: 16, expectedDeviceTicks: 330_416_200,
            expectedSessionNanoseconds: 1_266_653_334),
        Case(
            name: "B 60fps drift", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPPB: 50_000, fps: (60, 1),
            sessionStartNanoseconds: 1_000_000_000, requestNanoseconds: 1_250_000_000, latency: 1, expectedFrame: 17, expectedDeviceTicks: 330_816_200,
            expectedSessionNanoseconds: 1_283_319_167),
        Case(
            name: "B 60fps drift", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPPB: 50_000, fps: (60, 1),
            sessionStartNanoseconds: 1_000_000_000, requestNanoseconds: 1_250_000_000, latency: 2, expectedFrame: 18, expectedDeviceTicks: 331_216_200,
            expectedSessionNanoseconds: 1_299_985_001),
        Case(
            name: "B 60fps drift", timescale: 24_000_000, offsetNanoseconds: 12_500_000_000, driftPPB: 50_000, fps: (60, 1),
            sessionStartNanoseconds: 1_000_000_000, requestNanoseconds: 1_250_000_000, latency: 5, expectedFrame: 21, expectedDeviceTicks: 332_416_200,
            expectedSessionNanoseconds: 1_349_982_501),
        Case(
            name: "C NTSC long", timescale: 90_000, offsetNanoseconds: -86_400_250_000_000, driftPPB: -200_000, fps: (30_000, 1001),
            sessionStartNanoseconds: 2_000_000_000_000_000, requestNanoseconds: 2_000_010_000_000_000, latency: 0, expectedFrame: 300,
            expectedDeviceTicks: 172_190_433_605, expectedSessionNanoseconds: 2_000_010_012_007_957),
        Case(
            name: "C NTSC long", timescale: 90_000, offsetNanoseconds: -86_400_250_000_000, driftPPB: -200_000, fps: (30_000, 1001),
            sessionStartNanoseconds: 2_000_000_000_000_000, requestNanoseconds: 2_000_010_000_000_000, latency: 1, expectedFrame: 301,
            expectedDeviceTicks: 172_190_436_608, expectedSessionNanoseconds: 2_000_010_045_381_298),
        Case(
            name: "C NTSC long", timescale: 90_000, offsetNanoseconds: -86_400_250_000_000, driftPPB: -200_000, fps: (30_000, 1001),
            sessionStartNanoseconds: 2_000_000_000_000_000, requestNanoseconds: 2_000_010_000_000_000, latency: 2, expectedFrame: 302,
            expectedDeviceTicks: 172_190_439_611, expectedSessionNanoseconds: 2_000_010_078_754_640),
        Case(
            name: "C NTSC long", timescale: 90_000, offsetNanoseconds: -86_400_250_000_000, driftPPB: -200_000, fps: (30_000, 1001),
            sessionStartNanoseconds: 2_000_000_000_000_000, requestNanoseconds: 2_000_010_000_000_000, latency: 5, expectedFrame: 305,
            expectedDeviceTicks: 172_190_448_620, expectedSessionNanoseconds: 2_000_010_178_874_664)
    ]

    /// The case's camera, capturing; `locked`: inside the app's configuration lock, where
    /// requests may be made.
    static func device(_ c: Case, locked: Bool = true) throws -> CaptureDevice {
        let clock = try MediaClock(identifier: "front", timescale: c.timescale, offsetNanoseconds: c.offsetNanoseconds, driftPartsPerBillion: c.driftPPB)
        let format = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 1280))
        let device = try CaptureDevice(
            format: format, frameRate: try FrameRate(c.fps.0, c.fps.1), clock: clock, initialAspectRatio: .ratio9x16, changeLatencyFrames: c.latency)
        try device.startCapture(sessionStart: MediaTime(value: c.sessionStartNanoseconds, timescale: 1_000_000_000))
        if locked { device.lockForConfiguration() }
        return device
    }

    @Test("request → k, D(k) and its session time", arguments: cases) func effectiveFrame(_ c: Case) throws {
        let device = try Self.device(c)
        let request = try device.submitDynamicAspectRatio(.ratio16x9, atSessionTime: MediaTime(value: c.requestNanoseconds, timescale: 1_000_000_000))
        #expect(request.effectiveFrameIndex == c.expectedFrame)
        #expect(request.change.deviceTime == MediaTime(value: c.expectedDeviceTicks, timescale: c.timescale))
        #expect(request.change.deviceTime.timescale == c.timescale)
        #expect(request.change.sessionTime == MediaTime(value: c.expectedSessionNanoseconds, timescale: 1_000_000_000))
        #expect(request.change.dimensions == VideoDimensions(width: 1280, height: 720))
        #expect(request.changesDimensions)
        // The frame before k keeps the old size; k and later have the new one.
        #expect(device.dimensions(atFrame: c.expectedFrame - 1) == VideoDimensions(width: 720, height: 1280))
        #expect(device.dimensions(atFrame: c.expectedFrame) == VideoDimensions(width: 1280, height: 720))
        // D(k) is the device time the frame timing gives frame k.
        #expect(try device.frameTiming?.deviceTime(ofFrame: c.expectedFrame) == request.change.deviceTime)
    }

    @Test("the async setDynamicAspectRatio returns D(k) for a request made now") func asyncSet() async throws {
        let c = Self.cases[2]  // A, L = 2, request at session start + 1 s
        let device = try Self.device(c, locked: false)
        // At session start (host 1.0 s = D0) with L = 2: k = 2, D(2) = 24_000_000 + 1_600_000.
        device.lockForConfiguration()
        let deviceTime = try await device.setDynamicAspectRatio(.ratio1x1)
        device.unlockForConfiguration()
        #expect(deviceTime == MediaTime(value: 25_600_000, timescale: 24_000_000))
        #expect(device.dynamicAspectRatio == .ratio1x1)
        #expect(device.dimensions(atFrame: 1) == VideoDimensions(width: 720, height: 1280))
        #expect(device.dimensions(atFrame: 2) == VideoDimensions(width: 1280, height: 1280))
    }

    @Test("a later request wins from its own first frame; earlier frames keep the earlier ratio") func laterRequestWins() throws {
        let device = try Self.device(Self.cases[2])  // A, L = 2: request at start + n/30 s → k = n + 2
        let ns: Int64 = 1_000_000_000
        let a = try device.submitDynamicAspectRatio(.ratio16x9, atSessionTime: MediaTime(value: ns + ns / 3, timescale: 1_000_000_000))
        // 1/3 s after start = 10 periods (but 333_333_333 ns is just under): D0 + 7_999_999.992 ticks → …8_000_000
        // after rounding to device ticks → k = 10 + 2 = 12.
        #expect(a.effectiveFrameIndex == 12)
        let b = try device.submitDynamicAspectRatio(.ratio1x1, atSessionTime: MediaTime(value: 2 * ns, timescale: 1_000_000_000))
        #expect(b.effectiveFrameIndex == 32)
        #expect(device.aspectRatio(atFrame: 11) == .ratio9x16)
        #expect(device.aspectRatio(atFrame: 12) == .ratio16x9)
        #expect(device.aspectRatio(atFrame: 31) == .ratio16x9)
        #expect(device.aspectRatio(atFrame: 32) == .ratio1x1)
        #expect(device.requests.map(\.sequenceNumber) == [0, 1])
        // Requests are made in time order.
        #expect(
            throws: CaptureError.requestOutOfOrder(
                requested: MediaTime(value: ns, timescale: 1_000_000_000), current: MediaTime(value: 2 * ns, timescale: 1_000_000_000))
        ) { try device.requestDynamicAspectRatio(.ratio4x3, atSessionTime: MediaTime(value: ns, timescale: 1_000_000_000)) }
    }

    @Test("same ratio (also when pending) and zoom change no dimensions but the request completes") func sameRatioAndZoom() throws {
        let device = try Self.device(Self.cases[2])  // A, L = 2, initial 9x16
        let t = MediaTime(value: 2_000_000_000, timescale: 1_000_000_000)
        let same = try device.submitDynamicAspectRatio(.ratio9x16, atSessionTime: t)
        #expect(same.effectiveFrameIndex == 32 && !same.changesDimensions)
        #expect(same.change.deviceTime == MediaTime(value: 49_600_000, timescale: 24_000_000))
        let real = try device.submitDynamicAspectRatio(.ratio1x1, atSessionTime: t)
        let pending = try device.submitDynamicAspectRatio(.ratio1x1, atSessionTime: t)
        #expect(real.changesDimensions && !pending.changesDimensions)
        device.lockForConfiguration()
        try device.setVideoZoomFactor(2.5)
        #expect(device.videoZoomFactor == 2.5)
        #expect(device.dimensions(atFrame: 31) == VideoDimensions(width: 720, height: 1280))
        #expect(device.dimensions(atFrame: 32) == VideoDimensions(width: 1280, height: 1280))
        #expect(throws: CaptureError.zoomFactorOutOfRange(0.5, minimum: 1.0, maximum: 16.0)) { try device.setVideoZoomFactor(0.5) }
    }

    @Test("configuration outside lockForConfiguration/unlockForConfiguration throws; nothing changes") func configurationLock() async throws {
        let device = try Self.device(Self.cases[2], locked: false)  // A, L = 2, initial 9x16
        #expect(!device.isLockedForConfiguration)
        #expect(throws: CaptureError.notLockedForConfiguration(camera: device.uniqueID, operation: "videoZoomFactor")) { try device.setVideoZoomFactor(2) }
        await #expect(throws: CaptureError.notLockedForConfiguration(camera: device.uniqueID, operation: "setDynamicAspectRatio")) {
            try await device.setDynamicAspectRatio(.ratio1x1)
        }
        #expect(device.videoZoomFactor == 1 && device.requests.isEmpty && device.dynamicAspectRatio == .ratio9x16)
        device.lockForConfiguration()
        try device.setVideoZoomFactor(2)
        let deviceTime = try await device.setDynamicAspectRatio(.ratio1x1)
        device.unlockForConfiguration()
        #expect(device.videoZoomFactor == 2 && device.requests.count == 1 && deviceTime == MediaTime(value: 25_600_000, timescale: 24_000_000))
        #expect(throws: CaptureError.notLockedForConfiguration(camera: device.uniqueID, operation: "videoZoomFactor")) { try device.setVideoZoomFactor(3) }
        #expect(device.videoZoomFactor == 2)
        #expect(
            CaptureError.notLockedForConfiguration(camera: "front", operation: "videoZoomFactor").description
                == "videoZoomFactor on camera front needs the device locked: call lockForConfiguration() first and unlockForConfiguration() after")
    }

    @Test("the session's synchronizationClock is nil until it runs, then the host clock") func synchronizationClock() throws {
        let session = try CaptureSession(
            scenario: try Scenario.decode(Data(#"{"device": {"format": 1280, "fps": 30}, "durationSeconds": 0.1}"#.utf8), file: "clock.json"))
        #expect(session.synchronizationClock == nil)
        try session.startRunning()
        #expect(session.synchronizationClock == MediaClock.host)
        while try session.next() != nil {}
        #expect(session.synchronizationClock == MediaClock.host)
    }

    @Test("a request before startCapture throws notCapturing") func notCapturing() throws {
        let format = try #require(CaptureDevice.Format.frontCenterStage(squareSide: 1920))
        let device = try CaptureDevice(format: format, frameRate: try FrameRate(30), clock: .host, initialAspectRatio: .ratio9x16)
        device.lockForConfiguration()
        #expect(throws: CaptureError.notCapturing) { try device.requestDynamicAspectRatio(.ratio16x9, atSessionTime: .zero) }
    }
}
