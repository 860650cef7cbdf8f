import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Defects a cold test of the iPhone Duo support found: report labels, verify's checks of
/// `change`/`camera`/`facing`, session events after a stop-on-change stop, input checks.
@Suite("Cameras: cold-test defects", .tags(.cameras), .serialized) struct DuoDefectTests {
    typealias F = DuoFixtures
    static let switchJSON = F.individual(start: "1.0", events: #"{"atSeconds": 0.4, "posture": "open"}"#)

    @Test("report: each bar, label and card names the segment's own camera and facing; the switch marker names both cameras and the clock")
    func reportLabelsPerSegmentCamera() async throws {
        let (_, manifest) = try await CameraRecordingTests.record(Self.switchJSON)
        #expect(manifest.segments.map(\.camera) == ["outer", "inner"])
        let svg = TimelineSVG.render(ReportTimeline(manifest: manifest), manifest: manifest, camera: "outer")
        #expect(svg.components(separatedBy: "data-camera=\"outer\"").count - 1 == 1)
        #expect(svg.components(separatedBy: "data-camera=\"inner\"").count - 1 == 1)
        let facing = manifest.segments[1].facing?.rawValue ?? "?"
        #expect(svg.contains("camera inner (\(facing))"))
        let change = try #require(manifest.segments[1].change)
        let marker = TimelineSVG.markerTitle(ReportTimeline.Marker(segment: 1, kind: .announced, time: change.sessionTime, x: 0), manifest: manifest)
        #expect(marker.contains("camera switched from outer to inner"))
        #expect(marker.contains("\(change.deviceTime.value)/\(change.deviceTime.timescale)"))
        #expect(marker.contains("on inner's device clock"))
        // One-camera recordings keep the recording-wide name.
        var one = manifest
        one.segments = one.segments.map {
            var s = $0
            s.camera = nil
            s.facing = nil
            return s
        }
        #expect(TimelineSVG.cameraLabel(of: one.segments[1], fallback: "front") == "front")
    }

    @Test("verify: the untampered recording passes") func verifyPasses() async throws {
        let (dir, _) = try await CameraRecordingTests.record(Self.switchJSON)
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.problems) \(report.segments.map(\.problems))")
    }

    @Test("verify: a change one device tick off, or a changed device timescale, fails naming the segment, field and expected value")
    func verifyChecksChangeClock() async throws {
        let (dir, manifest) = try await CameraRecordingTests.record(Self.switchJSON)
        let change = try #require(manifest.segments[1].change)
        var tick = manifest
        tick.segments[1].change?.deviceTime = MediaTime(value: change.deviceTime.value + 1, timescale: change.deviceTime.timescale)
        try ManifestWriter.write(tick, to: dir)
        var problems = try RecordingVerifier.verify(dir).problems
        #expect(problems.contains { $0.hasPrefix("segments[1].change.sessionTime: \(change.sessionTime.value)/1000000000, expected ") })

        var scale = manifest
        let inner = try #require(scale.devices.firstIndex { $0.id == "inner" })
        scale.devices[inner].timescale = 90001
        try ManifestWriter.write(scale, to: dir)
        problems = try RecordingVerifier.verify(dir).problems
        #expect(problems.contains { $0.hasPrefix("segments[1].change.deviceTime: timescale 90000, expected 90001") })
    }

    @Test("verify: camera switch fields, startReason and facing are checked against neighbours and events") func verifyChecksSwitchFields() async throws {
        let (dir, manifest) = try await CameraRecordingTests.record(Self.switchJSON)
        #expect(manifest.segments[1].startReason == .cameraSwitched)
        var previous = manifest
        previous.segments[1].change?.previousCamera = "back"
        try ManifestWriter.write(previous, to: dir)
        #expect(try RecordingVerifier.verify(dir).problems.contains("segments[1].change.previousCamera: back, expected outer (segments[0].camera)"))

        var camera = manifest
        camera.segments[1].change?.camera = "back"
        try ManifestWriter.write(camera, to: dir)
        #expect(try RecordingVerifier.verify(dir).problems.contains("segments[1].change.camera: back, expected inner (the segment's camera)"))

        var reason = manifest
        reason.segments[1].startReason = .dimensionsChanged
        try ManifestWriter.write(reason, to: dir)
        #expect(
            try RecordingVerifier.verify(dir).problems.contains("segments[1].startReason: dimensionsChanged, expected cameraSwitched (camera outer → inner)"))

        let facing = try #require(manifest.segments[1].facing)
        #expect((manifest.events ?? []).contains { $0.kind == .facingChanged && $0.camera == "inner" })
        var flipped = manifest
        flipped.segments[1].facing = facing == .user ? .away : .user
        try ManifestWriter.write(flipped, to: dir)
        #expect(
            try RecordingVerifier.verify(dir).problems.contains(
                "segments[1].facing: \(flipped.segments[1].facing!.rawValue), expected \(facing.rawValue) (events: inner's facing at sessionStart)"))
    }

    @Test("stop-on-change: no session event after the stop is recorded; a note counts them") func stopOnChangeIgnoresLaterEvents() async throws {
        let json = F.individual(start: "1.0", events: #"{"atSeconds": 0.2, "posture": "open"}, {"atSeconds": 0.6, "posture": "closed"}"#)
        let (_, manifest) = try await CameraRecordingTests.record(json, mode: .stopOnChange)
        #expect(manifest.stopReason == .cameraSwitched)
        let stop = try #require(manifest.stopTime)
        let late = (manifest.events ?? []).filter { $0.sessionTime > stop }
        #expect(late.isEmpty, "\(late.map(\.kind))")
        #expect(
            manifest.notes.contains {
                $0.hasSuffix("after the recording stopped taking frames are not in events")
                    || $0.hasSuffix("after the recording stopped taking frames is not in events")
            })
    }

    @Test("ManifestBuilder: a session event after .stopped is left out and counted") func builderIgnoresEventsAfterStop() throws {
        var builder = ManifestBuilder(
            mode: .stopOnChange, devices: [.host], encoder: RecorderTestSupport.settings, frameIndexStamp: false, recordsSessionEvents: true)
        let t = MediaTime(value: 5, timescale: 1_000_000_000)
        builder.apply(.sessionEvent(SessionEventRecord(kind: .postureChanged, sessionTime: t, from: "closed", to: "open")))
        builder.apply(.stopped(.cameraSwitched, at: t))
        builder.apply(.sessionEvent(SessionEventRecord(kind: .facingChanged, sessionTime: t, camera: "inner", from: "away", to: "user")))
        builder.apply(.sessionEvent(SessionEventRecord(kind: .postureChanged, sessionTime: t, from: "open", to: "closed")))
        builder.apply(.finished(.endOfStream, error: nil))
        #expect(builder.manifest.events?.map(\.kind) == [.postureChanged])
        #expect(builder.ignoredSessionEvents == 2)
        #expect(builder.manifest.notes.contains("2 session events after the recording stopped taking frames are not in events"))
        #expect(builder.manifest.stopReason == .cameraSwitched)
    }

    @Test("input checks: --camera-source id twice exits 64; a camera type twice exits 65 at cameras[1].type; formats --format 1280x1280") func inputChecks()
        async throws
    {
        let folder = try CommandLineProcess.temporaryFolder("duo-input")
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.json")
        try F.individual(start: "1.0", events: "").write(to: good, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        #expect(
            await SegRecCommand.main(["record", "--scenario", good.path, "--camera-source", "back=a.mp4", "--camera-source", "back=b.mp4", "--output", out.path]
            ) == 64)
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let twice = F.individual(start: "1.0", events: "").replacingOccurrences(
            of: #""id": "inner", "type": "builtInInnerUltraWideCamera""#, with: #""id": "inner", "type": "builtInOuterUltraWideCamera""#
        ).replacingOccurrences(
            of: #""id": "back", "type": "builtInDualWideCamera", "format": "1920x1080""#,
            with: #""id": "back", "type": "builtInInnerUltraWideCamera", "format": 1280"#)
        do {
            _ = try F.scenario(twice)
            Issue.record("two builtInOuterUltraWideCamera were accepted")
        } catch {
            #expect(error.key == "cameras[1].type")
            #expect(error.description.contains("used twice") && error.description.contains("each camera type once"))
        }
        let bad = folder.appendingPathComponent("twice.json")
        try twice.write(to: bad, atomically: true, encoding: .utf8)
        #expect(await SegRecCommand.main(["record", "--scenario", bad.path, "--output", out.path]) == 65)

        #expect(await SegRecCommand.main(["formats", "--camera", "outer", "--format", "1280x1280"]) == 0)
        #expect(await SegRecCommand.main(["formats", "--camera", "outer", "--format", "1280"]) == 0)
        #expect(await SegRecCommand.main(["formats", "--camera", "outer", "--format", "1280x720"]) == 65)
        #expect(FormatsCommand.table(CaptureDevice.DeviceType.builtInOuterUltraWideCamera.formats).contains("1280x1280"))
    }

    @Test("the --camera-source hint names a file that exists") func cameraSourceHintPath() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        do {
            let parsed = try ArgumentParser.parse(["--camera-source", "back=x.mp4"], command: "record", options: RecordCommand.options)
            var input = PullInput()
            input.cameraClips = try RecordCommand.cameraClips(parsed)
            _ = try Recorder(
                RecordingConfiguration(output: FileManager.default.temporaryDirectory.appendingPathComponent("never-created")), input: .pull(input))
            Issue.record("no error")
        } catch let error as RecordingInputError {
            #expect(error == .cameraClipsNeedCameras)
            let message = RecordCommand.commandLineError(error, try ArgumentParser.parse([], command: "record", options: RecordCommand.options)).message
            let path = try #require(
                message.split(separator: " ").first { $0.hasPrefix("SampleStreams/") }.map {
                    String($0.trimmingCharacters(in: CharacterSet(charactersIn: ")")))
                })
            #expect(path == "SampleStreams/duo/individual-open-close.json")
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path))
        }
    }
}
