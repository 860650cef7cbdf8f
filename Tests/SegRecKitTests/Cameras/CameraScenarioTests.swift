import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Cameras: scenarios, coordinator, formats", .tags(.cameras)) struct CameraScenarioTests {
    typealias F = DuoFixtures

    static func error(_ json: String) -> ScenarioError? {
        do throws(ScenarioError) {
            _ = try F.scenario(json)
            return nil
        } catch { return error }
    }

    @Test("every file in SampleStreams/duo decodes and builds a switching session") func duoSampleStreams() throws {
        let directory = CaptureScenarioFiles.directory.appendingPathComponent("duo")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 4)
        var strategies: Set<FrontCameraStrategy> = []
        for file in files {
            let scenario = try Scenario.load(contentsOf: directory.appendingPathComponent(file))
            strategies.insert(scenario.frontCamera)
            let frames = F.frames(try F.run(try CaptureSession(scenario: scenario)))
            #expect(frames.map(\.index) == Array(0..<Int64(frames.count)), "\(file)")
        }
        #expect(strategies == [.individual, .virtual])
    }

    @Test("bad camera scenarios name the file, the key path and what is allowed") func messages() {
        let base = F.individual(start: "1.0", events: "")
        let cases: [(String, String, String)] = [
            (base.replacingOccurrences(of: "\"format\": \"1920x1080\"", with: "\"format\": \"1280x720\""), "cameras[2].format", "1920x1080, 3840x2160"),
            (base.replacingOccurrences(of: "\"format\": 1280, \"fps\": 60", with: "\"format\": 3840, \"fps\": 60"), "cameras[1].format", "1280, 1920"),
            (base.replacingOccurrences(of: "\"format\": 1280, \"fps\": 60", with: "\"format\": 1280, \"fps\": 120"), "cameras[1].fps", "1 to 60 fps"),
            (base.replacingOccurrences(of: "\"id\": \"inner\"", with: "\"id\": \"outer\""), "cameras[1].id", "unique"),
            (
                base.replacingOccurrences(of: #",\s*\{"id": "back"[\s\S]*?\}\}"#, with: "", options: .regularExpression).replacingOccurrences(
                    of: "\"builtInInnerUltraWideCamera\", \"format\": 1280", with: "\"builtInDualWideCamera\", \"format\": \"3840x2160\""), "cameras",
                "builtInInnerUltraWideCamera"
            ),
            (
                base.replacingOccurrences(
                    of: "\"builtInInnerUltraWideCamera\", \"format\": 1280", with: "\"builtInDualWideCamera\", \"format\": \"3840x2160\""), "cameras[2].type",
                "each camera type once"
            ),
            (
                base.replacingOccurrences(of: "\"events\": []", with: "\"events\": [{\"atSeconds\": 0.1, \"posture\": \"upsideDown\"}]"), "events[0].posture",
                "closed, open, openOuterDisplay"
            ), (base.replacingOccurrences(of: "\"frontCamera\": \"individual\"", with: "\"frontCamera\": \"automatic\""), "frontCamera", "individual, virtual"),
            (base.replacingOccurrences(of: "\"switchGapSeconds\": 0.25", with: "\"switchGapSeconds\": -1"), "switchGapSeconds", "0...10"),
            (base.replacingOccurrences(of: "{\"cameras\"", with: "{\"device\": {}, \"cameras\""), "device", "never both")
        ]
        for (json, key, allowed) in cases {
            let error = Self.error(json)
            #expect(error?.key == key, "\(String(describing: error))")
            #expect(error?.allowed.contains(allowed) == true, "\(String(describing: error))")
            #expect(error?.description.hasPrefix("duo-test.json: ") == true)
        }
    }

    @Test("a posture event in a one-camera scenario names the key") func postureNeedsCameras() throws {
        let json = #"{"device": {"format": 1280}, "durationSeconds": 1, "events": [{"atSeconds": 0.5, "posture": "open"}]}"#
        // One-camera scenarios keep their action keys: posture is an unknown key there.
        let error = Self.error(json)
        #expect(error?.key == "events[0].posture")
        #expect(error?.allowed.contains("setDynamicAspectRatio") == true)
    }

    @Test("direction coordinator: each posture's facings and preferred camera; the handler gets descriptors") func coordinator() throws {
        let scenario = try F.scenario(F.individual(start: "1.0", events: ""))
        let cameras = try scenario.makeCameraDescriptors()
        var reports: [DirectionCoordinator.FacingChange] = []
        let coordinator = DirectionCoordinator(monitoring: cameras, posture: .closed) { reports.append($0) }
        #expect(cameras.map { coordinator.facing(of: $0) } == [.user, .away, .away])
        #expect(coordinator.preferredCamera(in: .closed)?.uniqueID == "outer")
        coordinator.update(posture: .open)
        #expect(cameras.map { coordinator.facing(of: $0) } == [.away, .user, .away])
        coordinator.update(posture: .openOuterDisplay)
        #expect(cameras.map { coordinator.facing(of: $0) } == [.user, .away, .user])
        #expect(coordinator.update(posture: .openOuterDisplay) == nil)
        #expect(reports.map { $0.preferredCamera?.uniqueID } == ["inner", "back"])
        #expect(reports.last?.facings.map(\.descriptor) == cameras)
        // Without a back camera, openOuterDisplay falls back to the outer camera.
        let fronts = DirectionCoordinator(monitoring: Array(cameras.prefix(2)), posture: .closed)
        #expect(fronts.preferredCamera(in: .openOuterDisplay)?.uniqueID == "outer")
        // Discovery by type and position.
        let discovered = CaptureDeviceDiscoverySession(
            deviceTypes: [.builtInInnerUltraWideCamera, .builtInOuterUltraWideCamera], position: .front, available: cameras)
        #expect(discovered.devices.map(\.uniqueID) == ["inner", "outer"])
        #expect(
            CaptureDeviceDiscoverySession(deviceTypes: CaptureDevice.DeviceType.allCases, position: .back, available: cameras).devices.map(\.uniqueID) == [
                "back"
            ])
    }

    @Test("camera formats follow the table") func formats() {
        #expect(CaptureDevice.DeviceType.builtInOuterUltraWideCamera.formats.map(\.name) == ["1280", "1920", "3840"])
        #expect(CaptureDevice.DeviceType.builtInOuterUltraWideCamera.formats.allSatisfy { $0.maxFrameRate == (try! FrameRate(120)) })
        #expect(CaptureDevice.DeviceType.builtInInnerUltraWideCamera.formats.map(\.name) == ["1280", "1920"])
        #expect(CaptureDevice.DeviceType.builtInDualWideCamera.formats.map(\.name) == ["1920x1080", "3840x2160"])
        #expect(CaptureDevice.DeviceType.builtInDualWideCamera.formats.allSatisfy { $0.supportedDynamicAspectRatios.isEmpty })
        #expect(CaptureDevice.DeviceType.builtInVirtualFrontCamera.formats.map(\.name) == ["1280", "1920"])
        #expect(CaptureDevice.DeviceType.builtInDualWideCamera.position == .back)
    }
}
