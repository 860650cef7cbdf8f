import Foundation
import Synchronization
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The muxer's async API from the places an app would call it: a `Task`, and two
/// recordings at once with `async let`. Every file is read back.
@Suite("SegmentMuxer driven from tasks", .tags(.recording)) struct SegmentMuxerConcurrencyTests {
    let script = EventScript()

    /// Events sent one by one from an unstructured `Task`; the muxer's observer tells
    /// the same story as the manifest: each segment opened, ended and closed, in order.
    @Test func drivenFromATask() async throws {
        let script = script
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .segment)
        // The observer runs on the muxer's owner (here the recording task) as events happen.
        let seen = Mutex<[String]>([])
        muxer.observer = { event, _ in
            switch event {
            case .segmentOpened(let record): seen.withLock { $0.append("open \(record.file) \(record.width)x\(record.height)") }
            case .segmentEnded(let file, _, _): seen.withLock { $0.append("end \(file)") }
            case .segmentClosed(let file, _, _, let frames, let bytes): seen.withLock { $0.append("closed \(file) \(frames) \(bytes > 0)") }
            case .finished(let reason, _): seen.withLock { $0.append("finished \(reason)") }
            default: break
            }
        }
        // The muxer (not Sendable) moves into the task that owns it from then on.
        let recording = Task {
            // Made in the task: the events (their frames are not Sendable) stay in its region.
            let events = script.events(count: 21, initial: .ratio9x16, changes: [(7, .ratio16x9), (14, .ratio1x1)], completionDelay: 1)
            for event in events { try await muxer.process(event.detached()) }
            let manifest = try await muxer.finishReleasingLock()
            // After the end the muxer refuses more work.
            await #expect(throws: RecordingError.self) { try await muxer.process(script.frame(0, .ratio9x16)) }
            return manifest
        }
        let manifest = try await recording.value
        // A closed segment is finished in the background; its outcome is collected when the
        // next segment closes (at most one is in flight) or at the end.
        let story = seen.withLock { $0 }
        #expect(
            story == [
                "open segment-000.mp4 180x320", "end segment-000.mp4", "open segment-001.mp4 320x180", "end segment-001.mp4", "closed segment-000.mp4 7 true",
                "open segment-002.mp4 320x320", "end segment-002.mp4", "closed segment-001.mp4 7 true", "closed segment-002.mp4 7 true", "finished endOfStream"
            ], "\(story)")
        #expect(manifest.segments.map(\.frameCount) == [7, 7, 7])
        #expect(manifest.segments.map(\.sessionStart) == [script.sessionTime(0), script.sessionTime(7), script.sessionTime(14)])
        #expect(manifest.segments.last?.sessionEnd == script.sessionTime(21))
        #expect(manifest.frames == FrameCounts(received: 21, written: 21, dropped: 0, droppedReasons: [:]))
        for (segment, first) in zip(manifest.segments, [Int64(0), 7, 14]) {
            let url = dir.appendingPathComponent(segment.file)
            #expect(try RecorderTestSupport.stampedIndices(url) == Array(first..<(first + 7)))
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
            #expect(segment.byteCount == size?.int64Value)
        }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// Two recordings at once (`async let`): a segmenting one over the fake camera and a
    /// stop-on-change one over scripted events. Each keeps its own files and accounting.
    @Test func twoRecordingsAtOnce() async throws {
        let session = try CaptureSession(
            device: try CaptureTestSupport.plainDevice(latency: 2, completionDelay: 1),
            output: VideoDataOutput(frameSource: SyntheticSensor(), stampFrameIndex: true), sessionStart: CaptureTestSupport.ns(1_000_000_000),
            duration: CaptureTestSupport.ns(1_000_000_000),
            events: [
                .init(hostTime: CaptureTestSupport.ns(1_300_000_000), action: .setDynamicAspectRatio(.ratio16x9)),
                .init(hostTime: CaptureTestSupport.ns(1_600_000_000), action: .setDynamicAspectRatio(.ratio1x1))
            ])
        let dirA = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("a")
        let muxerA = SegmentMuxer(
            SegmentMuxer.Configuration(
                output: try OutputDirectory(preparing: dirA, force: false), settings: RecorderTestSupport.settings, policy: .split,
                devices: [session.device.clock], frameIndexStamp: true))
        let eventsB = script.events(count: 12, initial: .ratio9x16, changes: [(5, .ratio16x9)], completionDelay: 0)
        let (dirB, muxerB) = try RecorderTestSupport.makeMuxer(mode: .stopOnChange)

        async let a = RecordingPipeline(source: session, muxer: muxerA).run()
        async let b = RecordingPipeline(source: ScriptedSource(eventsB), muxer: muxerB).run()
        let (manifestA, manifestB) = try await (a, b)

        // A: 16x9 from frame 11 (1.3 s + 2 frames), 1x1 from frame 20 (1.6 s + 2 frames).
        #expect(manifestA.segments.map(\.frameCount) == [11, 9, 10])
        #expect(manifestA.segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x720", "1280x1280"])
        #expect(manifestA.segments[1].change?.deviceTime == MediaTime(value: 24_000_000 + 11 * 800_000, timescale: 24_000_000))
        #expect(manifestA.warnings.isEmpty, "\(manifestA.warnings)")
        for (segment, range) in zip(manifestA.segments, [Int64(0)...10, 11...19, 20...29]) {
            #expect(try RecorderTestSupport.stampedIndices(dirA.appendingPathComponent(segment.file)) == Array(range))
        }
        #expect(try RecordingVerifier.verify(dirA).passed)

        // B: stops at the first new-size frame (5); frames 5–11 dropped.
        #expect(manifestB.mode == .stopOnChange && manifestB.stopReason == .dimensionsChanged)
        #expect(manifestB.segments.map(\.frameCount) == [5])
        #expect(manifestB.segments[0].sessionEnd == script.sessionTime(5))
        #expect(manifestB.frames == FrameCounts(received: 12, written: 5, dropped: 7, droppedReasons: ["recordingStopped": 7]))
        #expect(try RecorderTestSupport.stampedIndices(dirB.appendingPathComponent("segment-000.mp4")) == Array(0...4))
        #expect(try RecordingVerifier.verify(dirB).passed)
    }
}
