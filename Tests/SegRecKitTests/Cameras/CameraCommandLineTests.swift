import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Cameras: command line and verify", .tags(.cameras)) struct CameraCommandLineTests {
    typealias F = DuoFixtures

    @Test("formats --camera lists a camera's formats; bad id, missing format, virtual above the limits exit 65") func formatsExitCodes() async {
        #expect(await SegRecCommand.main(["formats", "--camera", "outer"]) == 0)
        #expect(await SegRecCommand.main(["formats", "--camera", "back", "--format", "3840x2160", "--fps", "60"]) == 0)
        #expect(await SegRecCommand.main(["formats", "--camera", "sideways"]) == 65)
        #expect(await SegRecCommand.main(["formats", "--camera", "inner", "--format", "3840"]) == 65)
        #expect(await SegRecCommand.main(["formats", "--camera", "virtualFront", "--format", "3840"]) == 65)
        #expect(await SegRecCommand.main(["formats", "--camera", "virtualFront", "--format", "1920", "--fps", "120"]) == 65)
        #expect(await SegRecCommand.main(["formats", "--format", "1920"]) == 64)
    }

    @Test("record: a virtual format above the limits exits 65 and creates nothing; a bad --camera-source id exits 64") func recordErrors() async throws {
        let folder = try CommandLineProcess.temporaryFolder("duo-errors")
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = F.individual(start: "1.0", events: "")
        let bad = folder.appendingPathComponent("virtual.json")
        try json.replacingOccurrences(of: "\"frontCamera\": \"individual\"", with: "\"frontCamera\": \"virtual\", \"virtual\": {\"format\": 3840, \"fps\": 30}")
            .write(to: bad, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        #expect(await SegRecCommand.main(["record", "--scenario", bad.path, "--output", out.path]) == 65)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let good = folder.appendingPathComponent("good.json")
        try json.write(to: good, atomically: true, encoding: .utf8)
        #expect(await SegRecCommand.main(["record", "--scenario", good.path, "--camera-source", "side=x.mp4", "--output", out.path]) == 64)
        #expect(await SegRecCommand.main(["record", "--camera-source", "inner=x.mp4", "--output", out.path]) == 64)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("verify fails when a file's frames come from another camera than the manifest says") func verifyCatchesWrongCamera() async throws {
        let json = F.individual(start: "1.0", events: #"{"atSeconds": 0.4, "posture": "open"}"#)
        let (dir, manifest) = try await CameraRecordingTests.record(json)
        #expect(manifest.segments.map(\.camera) == ["outer", "inner"])
        #expect(try RecordingVerifier.verify(dir).passed)
        var tampered = manifest
        tampered.segments[1].camera = "outer"
        try ManifestWriter.write(tampered, to: dir)
        let report = try RecordingVerifier.verify(dir)
        #expect(!report.passed)
        #expect(report.segments[1].problems.contains { $0.contains("made by camera inner") && $0.contains("the manifest says outer") })
    }
}

@Suite("Cameras: manifest fields", .tags(.cameras)) struct CameraManifestFieldTests {
    @Test("one-camera manifests keep their keys (no camera, facing, events); camera manifests add them") func additiveFields() async throws {
        let script = EventScript()
        let (oneDir, _) = try await RecorderTestSupport.record(script.events(count: 12, initial: .ratio9x16, changes: [(6, .ratio16x9)], completionDelay: 0))
        let one = try JSONSerialization.jsonObject(with: Data(contentsOf: oneDir.appendingPathComponent("manifest.json"))) as? [String: Any]
        #expect(one?["events"] == nil)
        let oneSegments = one?["segments"] as? [[String: Any]] ?? []
        #expect(oneSegments.count == 2 && oneSegments.allSatisfy { $0["camera"] == nil && $0["facing"] == nil })
        #expect((oneSegments.last?["change"] as? [String: Any])?.keys.sorted() == ["announced", "aspectRatio", "deviceTime", "sessionTime"])

        let json = DuoFixtures.individual(start: "1.0", events: #"{"atSeconds": 0.4, "posture": "open"}"#)
        let (dir, _) = try await CameraRecordingTests.record(json)
        let data = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let segments = manifest?["segments"] as? [[String: Any]] ?? []
        #expect(segments.map { $0["camera"] as? String } == ["outer", "inner"])
        #expect(segments.map { $0["facing"] as? String } == ["user", "user"])
        let change = segments.last?["change"] as? [String: Any]
        #expect(change?["camera"] as? String == "inner" && change?["previousCamera"] as? String == "outer")
        let events = manifest?["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["kind"] as? String } == ["postureChanged", "facingChanged", "facingChanged", "cameraSwitched"])
        #expect(events.last?["deviceClock"] as? String == "inner" && events.last?["frameIndex"] as? Int == 49)
        // Decodes back, and a manifest without the new keys still decodes.
        let decoded = try JSONDecoder().decode(RecordingManifest.self, from: data)
        #expect(decoded.events?.count == 4 && decoded.segments.last?.change?.previousCamera == "outer")
        let old = try JSONDecoder().decode(RecordingManifest.self, from: Data(contentsOf: oneDir.appendingPathComponent("manifest.json")))
        #expect(old.events == nil && old.segments.allSatisfy { $0.camera == nil })
    }
}
