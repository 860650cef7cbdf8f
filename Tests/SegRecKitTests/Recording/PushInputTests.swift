import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The push input: an app's own frames, its own announcements (the Center Stage article's
/// `SegmentingRecorder` calls), the same files and manifest as `segrec record`.
@Suite("Recording: the Recorder records frames an app pushes", .tags(.recording)) struct PushInputTests {
    /// Frame `i` at 1000 s + i/30 s on the session clock, as the app stamps it.
    static func time(_ i: Int) -> MediaTime { MediaTime(value: 1_000, timescale: 1) + MediaTime(value: Int64(i), timescale: 30) }
    /// The same time on the session clock's nanosecond timescale (rounded once, half away
    /// from zero): what the recorder keeps.
    static func ns(_ i: Int) -> MediaTime { try! time(i).converted(toTimescale: 1_000_000_000) }

    /// Records 40 frames, 640x480 before `changeFrame` and 480x640 from it, announcing the
    /// change at frame `announcedFrame`'s time (nil: no announcement).
    static func record(mode: RecordingMode = .segment, changeFrame: Int = 20, announcedFrame: Int?, announcedTime: Int? = nil) async throws -> (
        URL, RecordingManifest
    ) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var configuration = RecordingConfiguration(output: dir)
        configuration.mode = mode
        configuration.encoder = RecorderTestSupport.settings
        configuration.encoder.frameRate = try FrameRate(30)
        configuration.stampsFrameIndex = true
        let recorder = try Recorder(configuration, input: .push(PushInput()))
        for i in 0..<40 {
            if i == announcedFrame {
                try await recorder.finishCurrentSegment(atSessionTime: time(announcedTime ?? i))
                try await recorder.startNextSegment(afterSessionTime: time(announcedTime ?? i))
            }
            let (w, h) = i < changeFrame ? (640, 480) : (480, 640)
            try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: w, height: h), withPresentationTime: time(i))
        }
        return (dir, try await recorder.finishWriting())
    }

    @Test("an announced change cuts exactly at its session time; every frame is in one file, read back by ffprobe") func announcedChange() async throws {
        let (dir, manifest) = try await Self.record(announcedFrame: 20)
        #expect(manifest.segments.map(\.file) == ["segment-000.mp4", "segment-001.mp4"])
        #expect(manifest.segments.map { "\($0.width)x\($0.height)" } == ["640x480", "480x640"])
        #expect(manifest.segments.map(\.frameCount) == [20, 20])
        #expect(manifest.segments[0].sessionEnd == Self.ns(20))
        #expect(manifest.segments[1].sessionStart == Self.ns(20))
        #expect(manifest.segments[1].sessionEnd == Self.ns(40))
        let change = try #require(manifest.segments[1].change)
        #expect(change.announced && change.sessionTime == Self.ns(20) && change.aspectRatio == "3x4")
        #expect(manifest.warnings.isEmpty)
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-000.mp4")) == Array(0..<20))
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-001.mp4")) == Array(20..<40))
        if let probe = try RecorderTestSupport.probe(dir.appendingPathComponent("segment-001.mp4")) { #expect(probe == (480, 640, 20)) }
    }

    @Test("the buffers win over an announced time that disagrees: the cut follows the frames, with a warning") func buffersWin() async throws {
        let (_, manifest) = try await Self.record(changeFrame: 22, announcedFrame: 20)
        #expect(manifest.segments.map(\.frameCount) == [22, 18])
        #expect(manifest.segments[1].sessionStart == Self.ns(22))
        #expect(manifest.warnings.count == 1)
        #expect(manifest.warnings.count == 1)
        #expect(
            manifest.warnings.first?.hasSuffix("but the buffers changed to 480x640 at session time \(Self.ns(22)); the segment boundary follows the buffers")
                == true)
        #expect(manifest.segments[1].change?.announced == true)
    }

    @Test("a change nobody announced still cuts, recorded as not announced") func unannounced() async throws {
        let (_, manifest) = try await Self.record(announcedFrame: nil)
        #expect(manifest.segments.map(\.frameCount) == [20, 20])
        let change = try #require(manifest.segments[1].change)
        #expect(!change.announced && change.sessionTime == Self.ns(20))
    }

    @Test("stop-on-change: the first frame of new dimensions ends the one movie file") func stopOnChange() async throws {
        let (_, manifest) = try await Self.record(mode: .stopOnChange, announcedFrame: 20)
        #expect(manifest.segments.map(\.frameCount) == [20])
        #expect(manifest.segments[0].sessionEnd == Self.ns(20))
        #expect(manifest.stopReason == .dimensionsChanged)
    }

    @Test("an announced time later than the first frame of the new size: the buffers win, with a warning") func lateAnnouncement() async throws {
        let (_, manifest) = try await Self.record(changeFrame: 20, announcedFrame: 23)
        #expect(manifest.segments.map(\.frameCount) == [20, 20])
        #expect(manifest.segments[1].sessionStart == Self.ns(20))
        #expect(manifest.warnings.count == 1)
        #expect(
            manifest.warnings.first?.hasSuffix("but the buffers changed to 480x640 at session time \(Self.ns(20)); the segment boundary follows the buffers")
                == true)
        #expect(manifest.segments[1].change?.announced == true)
    }

    @Test("announced before the change for a later time: the buffers win, with a warning") func announcedAheadForLaterTime() async throws {
        let (_, manifest) = try await Self.record(changeFrame: 20, announcedFrame: 19, announcedTime: 23)
        #expect(manifest.segments.map(\.frameCount) == [20, 20])
        #expect(manifest.segments[1].sessionStart == Self.ns(20))
        #expect(manifest.warnings.count == 1)
        #expect(
            manifest.warnings.first?.hasSuffix("but the buffers changed to 480x640 at session time \(Self.ns(20)); the segment boundary follows the buffers")
                == true)
        #expect(manifest.segments[1].change?.announced == true)
    }

    @Test("after finishWriting every push throws, finishWriting answers the same manifest, and the recording on disk stays as it was")
    func finishedRecorderRefusesCalls() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var configuration = RecordingConfiguration(output: dir)
        configuration.encoder = RecorderTestSupport.settings
        let recorder = try Recorder(configuration, input: .push(PushInput()))
        for i in 0..<10 { try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), withPresentationTime: Self.time(i)) }
        let manifest = try await recorder.finishWriting()
        let onDisk = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        #expect(try await recorder.finishWriting() == manifest)
        await #expect(throws: RecordingError.self) {
            try await recorder.append(MediaTestSupport.stampedFrame(index: 10, width: 320, height: 240), withPresentationTime: Self.time(10))
        }
        await #expect(throws: RecordingError.self) { try await recorder.finishCurrentSegment(atSessionTime: Self.time(11)) }
        #expect(try Data(contentsOf: dir.appendingPathComponent("manifest.json")) == onDisk)
        #expect(manifest.stopReason == .endOfStream && manifest.segments.map(\.frameCount) == [10])
    }
}

/// A recorder records once and honours a stop requested before it touches anything.
@Suite("Recording: a Recorder records once and honours an early stop", .tags(.recording)) struct RecorderUseTests {
    static func request(_ dir: URL) throws -> (RecordingConfiguration, PullInput) {
        var request = RecordingConfiguration(output: dir)
        var input = PullInput()
        input.scenario = try Scenario.decode(
            Data(
                """
                {"device": {"format": 1280, "fps": 30}, "durationSeconds": 0.5}
                """.utf8), file: "short.json")
        request.encoder = RecorderTestSupport.settings
        return (request, input)
    }

    @Test("a second run answers the first run's manifest and leaves the folder as it was") func secondRun() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let (configuration, input) = try Self.request(dir)
        let recorder = try Recorder(configuration, input: .pull(input))
        let first = try await recorder.run()
        #expect(first.segments.map(\.frameCount) == [15])
        let onDisk = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        #expect(try await recorder.run() == first)
        #expect(try Data(contentsOf: dir.appendingPathComponent("manifest.json")) == onDisk)
    }

    @Test("a stop requested before the session is made: stoppedBeforeStart for footage too, nothing written") func stopBeforeStart() throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let clip = dir.deletingLastPathComponent().appendingPathComponent("clip.y4m")
        try MediaTestSupport.writeY4M(to: clip, width: 64, height: 48, frames: 3)
        let stop = RecordingStopRequest()
        stop.request()
        var (request, input) = try Self.request(dir)
        input.scenario = nil
        input.source = .file(clip.path)
        #expect(throws: RecordingInputError.stoppedBeforeStart) { _ = try Recorder(request, input: .pull(input), stopRequest: stop) }
        #expect(!FileManager.default.fileExists(atPath: dir.path))
    }

    @Test("the library names settings by the configuration's fields; segrec record by its options") func settingNames() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var (configuration, input) = try Self.request(dir)
        configuration.fragmentInterval = nil
        let manifest = try await Recorder(configuration, input: .pull(input)).run()
        #expect(manifest.notes.contains("fragmentInterval nil: segments are written whole when they close; a crash loses the open segment"))
        #expect(throws: RecordingError.outputExists(path: dir.path)) { _ = try Recorder(configuration, input: .pull(input)) }
        #expect(RecordingError.outputExists(path: "/x").description == "/x: output already exists; set force to replace it")
        let parsed = try ArgumentParser.parse(["--fragment-interval", "0", "--output", dir.path], command: "record", options: RecordCommand.options)
        let (cli, _) = try RecordCommand.recordingRequest(parsed)
        #expect(cli.settingNames.noFragments == "--fragment-interval 0" && cli.settingNames.force == "--force")
        #expect(ErrorMapping.commandLineError(RecordingError.outputExists(path: "/x")).message == "/x: output already exists; pass --force to overwrite it")
    }
}
