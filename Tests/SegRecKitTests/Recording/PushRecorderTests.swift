import Foundation
import Testing
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The push API: an app's own frames, its own announcements (the Center Stage article's
/// `SegmentingRecorder` calls), the same files and manifest as `segrec record`.
@Suite("Recording: PushRecorder records frames an app appends")
struct PushRecorderTests {
    /// Frame `i` at 1000 s + i/30 s on the session clock, as the app stamps it.
    static func time(_ i: Int) -> MediaTime { MediaTime(value: 1_000, timescale: 1) + MediaTime(value: Int64(i), timescale: 30) }
    /// The same time on the session clock's nanosecond timescale (rounded once, half away
    /// from zero): what the recorder keeps.
    static func ns(_ i: Int) -> MediaTime { try! time(i).converted(toTimescale: 1_000_000_000) }

    /// Records 40 frames, 640x480 before `changeFrame` and 480x640 from it, announcing the
    /// change at frame `announcedFrame`'s time (nil: no announcement).
    static func record(mode: RecordingMode = .segment, changeFrame: Int = 20,
                       announcedFrame: Int?) async throws -> (URL, RecordingManifest) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var configuration = PushRecorder.Configuration(output: dir)
        configuration.mode = mode
        configuration.encoder = RecorderTestSupport.settings
        configuration.encoder.frameRate = try FrameRate(30)
        configuration.stampsFrameIndex = true
        let recorder = try PushRecorder(configuration)
        for i in 0..<40 {
            if i == announcedFrame {
                try await recorder.finishCurrentSegment(atSessionTime: time(i))
                try await recorder.startNextSegment(afterSessionTime: time(i))
            }
            let (w, h) = i < changeFrame ? (640, 480) : (480, 640)
            try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: w, height: h),
                                      withPresentationTime: time(i))
        }
        return (dir, try await recorder.finishWriting())
    }

    @Test("an announced change cuts exactly at its session time; every frame is in one file, read back by ffprobe")
    func announcedChange() async throws {
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
        if let probe = try RecorderTestSupport.probe(dir.appendingPathComponent("segment-001.mp4")) {
            #expect(probe == (480, 640, 20))
        }
    }

    @Test("the buffers win over an announced time that disagrees: the cut follows the frames, with a warning")
    func buffersWin() async throws {
        let (_, manifest) = try await Self.record(changeFrame: 22, announcedFrame: 20)
        #expect(manifest.segments.map(\.frameCount) == [22, 18])
        #expect(manifest.segments[1].sessionStart == Self.ns(22))
        #expect(manifest.warnings.count == 1)
        #expect(manifest.warnings.count == 1)
        #expect(manifest.warnings.first?.hasSuffix("but the buffers changed to 480x640 at session time \(Self.ns(22)); the segment boundary follows the buffers") == true)
        #expect(manifest.segments[1].change?.announced == true)
    }

    @Test("a change nobody announced still cuts, recorded as not announced")
    func unannounced() async throws {
        let (_, manifest) = try await Self.record(announcedFrame: nil)
        #expect(manifest.segments.map(\.frameCount) == [20, 20])
        let change = try #require(manifest.segments[1].change)
        #expect(!change.announced && change.sessionTime == Self.ns(20))
    }

    @Test("stop-on-change: the first frame of new dimensions ends the one movie file")
    func stopOnChange() async throws {
        let (_, manifest) = try await Self.record(mode: .stopOnChange, announcedFrame: 20)
        #expect(manifest.segments.map(\.frameCount) == [20])
        #expect(manifest.segments[0].sessionEnd == Self.ns(20))
        #expect(manifest.stopReason == .dimensionsChanged)
    }
}
