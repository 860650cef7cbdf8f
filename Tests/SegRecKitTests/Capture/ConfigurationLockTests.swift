import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Issue 43 item 9: every configuration change through the library goes through the
/// configuration lock (`lockForConfiguration()` … `unlockForConfiguration()`), as
/// AVFoundation raises `NSGenericException` ("must call lockForConfiguration") otherwise, and
/// `activeFormat` can be set through the library. A scenario's events are each one locked
/// change, as the seeds' code makes them.
@Suite("Capture: the configuration lock", .tags(.capture)) struct ConfigurationLockTests {
    typealias S = CaptureTestSupport

    /// A capturing 1280 camera (frame i at 1 + i/30 s, L = 2), unlocked.
    static func capturing(format side: Int = 1280, initial: DynamicAspectRatio = .ratio9x16) throws -> CaptureDevice {
        let device = try CaptureDevice(
            format: try #require(CaptureDevice.Format.frontCenterStage(squareSide: side)), frameRate: try FrameRate(30), clock: S.plainClock,
            initialAspectRatio: initial)
        try device.startCapture(sessionStart: S.ns(1_000_000_000))
        return device
    }

    @Test("each configuration change outside the lock throws naming it; nothing changes") func everyChangeNeedsTheLock() throws {
        let device = try Self.capturing()
        let at = S.ns(1_500_000_000)
        func refused(_ operation: String) -> CaptureError { .notLockedForConfiguration(camera: "front", operation: operation) }
        #expect(throws: refused("setDynamicAspectRatio")) { try device.submitDynamicAspectRatio(.ratio16x9, atSessionTime: at) }
        #expect(throws: refused("setDynamicAspectRatio")) { try device.requestDynamicAspectRatio(.ratio16x9, atSessionTime: at) }
        #expect(throws: refused("videoZoomFactor")) { try device.setVideoZoomFactor(2) }
        #expect(throws: refused("depthDataDeliveryEnabled")) { try device.setDepthDataDeliveryEnabled(true) }
        #expect(throws: refused("geometricDistortionCorrectionEnabled")) { try device.setGeometricDistortionCorrectionEnabled(true) }
        #expect(throws: refused("enabledFramings")) { try device.setEnabledFramings([.wide3x4]) }
        #expect(device.requests.isEmpty && device.dynamicAspectRatio == .ratio9x16 && device.videoZoomFactor == 1)
        #expect(!device.isDepthDataDeliveryEnabled && !device.isGeometricDistortionCorrectionEnabled && device.chosenFramings == nil)
        // Inside the lock each one takes.
        device.lockForConfiguration()
        let request = try device.submitDynamicAspectRatio(.ratio16x9, atSessionTime: at)
        try device.setVideoZoomFactor(2)
        try device.setDepthDataDeliveryEnabled(true)
        try device.setGeometricDistortionCorrectionEnabled(true)
        try device.setEnabledFramings([.wide3x4])
        device.unlockForConfiguration()
        #expect(request.effectiveFrameIndex == 17 && device.dynamicAspectRatio == .ratio16x9 && device.videoZoomFactor == 2)
        #expect(device.isDepthDataDeliveryEnabled && device.isGeometricDistortionCorrectionEnabled && device.chosenFramings == [.wide3x4])
        // and after unlockForConfiguration() they throw again.
        #expect(throws: refused("setDynamicAspectRatio")) { try device.submitDynamicAspectRatio(.ratio1x1, atSessionTime: at) }
        #expect(device.requests.count == 1)
    }

    @Test("enabledFramings on the 4032 format go to its monitor inside the lock") func enabledFramingsOnTheMonitor() throws {
        let device = try Self.capturing(format: 4032, initial: .ratio3x4)
        let monitor = try #require(device.smartFramingMonitor)
        #expect(throws: CaptureError.notLockedForConfiguration(camera: "front", operation: "enabledFramings")) { try device.setEnabledFramings([.narrow3x4]) }
        #expect(!monitor.areEnabledFramingsChosen)
        device.lockForConfiguration()
        try device.setEnabledFramings([.narrow3x4])
        device.unlockForConfiguration()
        #expect(monitor.enabledFramings == [.narrow3x4] && device.chosenFramings == [.narrow3x4])
    }

    /// 1 s at 30 fps from 1.0 s; after frame 9 (1.3 s) the app locks the camera, sets
    /// `activeFormat` 1920 and asks for 16x9, as the seeds' `apply()` does, and unlocks. The
    /// gap (0.25 s) ends at 1.55 s: the 1920 grid's frame 0; the request (made at 1.3 s,
    /// L = 2) lands on it, so every 1920 frame is 1920x1080.
    @Test("activeFormat through the library: only inside the lock, which the reconfigured camera keeps") func activeFormatThroughTheLibrary() async throws {
        let session = try CaptureSession(device: try S.plainDevice(), sessionStart: S.ns(1_000_000_000), duration: S.ns(1_000_000_000), events: [])
        var frames: [VideoFrame] = []
        while let event = try session.next() {
            if case .frame(let frame) = event { frames.append(frame) }
            if frames.count == 10 { break }
        }
        let before = session.device
        #expect(throws: CaptureError.notLockedForConfiguration(camera: "front", operation: "activeFormat")) { try session.setActiveFormat("1920") }
        #expect(session.device === before && session.device.activeFormat.squareSide == 1280)
        before.lockForConfiguration()
        try session.setActiveFormat("1920")
        let after = session.device
        #expect(after !== before && after.activeFormat.squareSide == 1920 && after.isLockedForConfiguration)
        let deviceTime = try await after.setDynamicAspectRatio(.ratio16x9)
        after.unlockForConfiguration()
        let firstFrameTime = try #require(after.frameTiming).deviceTime(ofFrame: 0)
        #expect(deviceTime == firstFrameTime)
        after.lockForConfiguration()
        #expect { try session.setActiveFormat("2000") } throws: { error in
            guard case .invalidParameter(let name, let value, _) = error as? CaptureError else { return false }
            return name == "activeFormat" && value == "2000"
        }
        after.unlockForConfiguration()
        while let event = try session.next() { if case .frame(let frame) = event { frames.append(frame) } }
        #expect(frames.prefix(10).allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(frames.count > 10 && frames.dropFirst(10).allSatisfy { $0.dimensions == VideoDimensions(width: 1920, height: 1080) })
        #expect(frames[10].sessionTime == S.ns(1_550_000_000))
    }

    @Test("a scenario's events are each one locked change: its cameras end unlocked") func scenarioEventsLockImplicitly() throws {
        let json = #"""
            {"device": {"format": 1280, "fps": 30}, "durationSeconds": 1,
             "events": [{"atSeconds": 0.2, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 0.3, "videoZoomFactor": 2},
                        {"atSeconds": 0.4, "depthDataDeliveryEnabled": true}, {"atSeconds": 0.5, "activeFormat": 1920}]}
            """#
        let session = try CaptureSession(scenario: try Scenario.decode(Data(json.utf8), file: "lock.json"))
        var sizes: Set<VideoDimensions> = []
        while let event = try session.next() {
            if case .frame(let frame) = event { sizes.insert(frame.dimensions) }
            #expect(!session.device.isLockedForConfiguration)
        }
        #expect(sizes == [VideoDimensions(width: 720, height: 1280), VideoDimensions(width: 1280, height: 720), VideoDimensions(width: 1920, height: 1080)])
        #expect(session.device.isDepthDataDeliveryEnabled && session.device.videoZoomFactor == 2)
    }
}
