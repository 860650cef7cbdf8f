import Foundation
import Synchronization
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `--stats`, `--realtime` and finishing segments in the background. No timing
/// assertions: only what the timings are attached to, and that files stay exact.
@Suite("Benchmark instrumentation and background finalization", .tags(.recording)) struct BenchmarkInstrumentationTests {
    let script = EventScript()

    private func jsonLines(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    /// Every segment's byte count is its file's size; no partial file is left; the files
    /// tile the session timeline and hold exactly their frames.
    private func expectExactFiles(_ dir: URL, _ manifest: RecordingManifest, frames: Int64) throws {
        var next: Int64 = 0
        for (a, b) in zip(manifest.segments, manifest.segments.dropFirst()) { #expect(a.sessionEnd == b.sessionStart) }
        for segment in manifest.segments {
            let url = dir.appendingPathComponent(segment.file)
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
            #expect(segment.byteCount > 0 && Int64(segment.byteCount) == size?.int64Value)
            let expected = Array(next..<(next + Int64(segment.frameCount)))
            #expect(segment.firstFrameIndex == next)
            #expect(try RecorderTestSupport.stampedIndices(url) == expected)
            #expect(try MediaFileReader(url: url).streamInfo().packets.first?.isKeyframe == true)
            next += Int64(segment.frameCount)
        }
        #expect(next == frames)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    @Test func statsFileHasOneRowPerWrittenFrame() async throws {
        let events = script.events(count: 20, initial: .ratio9x16, changes: [(7, .ratio16x9), (14, .ratio1x1)], completionDelay: 0)
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .segment, statistics: RecordingStatistics(expectedFrames: 20))
        var pipeline = RecordingPipeline(source: ScriptedSource(events), muxer: muxer)
        let statsURL = dir.deletingLastPathComponent().appendingPathComponent("stats.jsonl")
        pipeline.statisticsURL = statsURL
        let manifest = try await pipeline.run()

        let rows = try jsonLines(statsURL)
        let frames = rows.filter { $0["deliveredNs"] != nil }
        #expect(frames.map { $0["frame"] as? Int } == Array(0..<20))
        #expect(frames.map { $0["segment"] as? Int } == Array(repeating: 0, count: 7) + Array(repeating: 1, count: 7) + Array(repeating: 2, count: 6))
        for row in frames {
            let delivered = (row["deliveredNs"] as? NSNumber)?.uint64Value ?? .max
            let queued = (row["queuedNs"] as? NSNumber)?.uint64Value ?? .max
            let accepted = (row["acceptedNs"] as? NSNumber)?.uint64Value ?? 0
            #expect(delivered <= queued && queued <= accepted)
        }
        let switches = rows.filter { $0["switch"] != nil }
        #expect(switches.map { $0["switch"] as? Int } == [1, 2])
        #expect(switches.map { $0["frame"] as? Int } == [7, 14])
        #expect(switches.allSatisfy { $0["closeNs"] != nil && $0["openNs"] != nil })
        #expect(rows.filter { $0["finalize"] != nil }.compactMap { $0["finalize"] as? Int }.sorted() == [0, 1, 2])
        try expectExactFiles(dir, manifest, frames: 20)
    }

    /// Stop-on-change: rows only for the frames written, none for the dropped ones.
    @Test func statsSkipDroppedFrames() async throws {
        let events = script.events(count: 12, initial: .ratio9x16, changes: [(5, .ratio16x9)], completionDelay: 0)
        let statistics = RecordingStatistics()
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .stopOnChange, statistics: statistics)
        let manifest = try await RecordingPipeline(source: ScriptedSource(events), muxer: muxer).run()
        #expect(statistics.frames.map(\.index) == Array(0..<5))
        #expect(statistics.switches.isEmpty)
        #expect(manifest.frames == FrameCounts(received: 12, written: 5, dropped: 7, droppedReasons: ["recordingStopped": 7]))
        #expect(
            manifest.segments.first.map { Int64($0.byteCount) }
                == (try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("segment-000.mp4").path)[.size] as? NSNumber)?.int64Value)
    }

    /// Real-time pacing of a tiny stream (320-pixel frames at 30 fps) on a clock that only
    /// the pacer's own waits move (the recorder takes no time): nothing is dropped, every
    /// frame is delivered at its capture instant, exactly its session-time step after the
    /// one before, and the files are exactly those of an unpaced recording.
    @Test func realtimeTinyStreamDropsNothing() async throws {
        let events = script.events(count: 15, initial: .ratio16x9, changes: [(6, .ratio9x16)], completionDelay: 1)
        let statistics = RecordingStatistics()
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .segment, statistics: statistics)
        let clock = ManualPacingClock()
        let paced = RealtimePacer(wrapping: ScriptedSource(events), clock: clock)
        let manifest = try await RecordingPipeline(source: paced, muxer: muxer).run()
        #expect(paced.droppedFrameCount == 0)
        #expect(manifest.frames == FrameCounts(received: 15, written: 15, dropped: 0, droppedReasons: [:]))
        #expect(manifest.segments.map(\.frameCount) == [6, 9])
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        try expectExactFiles(dir, manifest, frames: 15)
        // Delivery times are the frames' capture times: each step is the session-time step.
        let delivered = statistics.frames.map(\.deliveredNs)
        let steps = zip(delivered, delivered.dropFirst()).map { Int64($1) - Int64($0) }
        let sessionSteps = try (1..<Int64(15)).map { try (script.sessionTime($0) - script.sessionTime($0 - 1)).converted(toTimescale: 1_000_000_000).value }
        #expect(steps == sessionSteps)
        #expect(sessionSteps.allSatisfy { (33_331_000...33_333_334).contains($0) })
    }

    /// The pacer's one-slot model, step by step, on a clock the test advances as the
    /// recorder's time per frame: a frame captured while the recorder was busy waits in the
    /// slot and is delivered at once; one captured before the recorder took the previous
    /// frame is dropped `late`; when nothing is waiting the pacer sleeps until the capture.
    @Test func pacerDropsWhatArrivedWhileTheSlotWasFull() async throws {
        let events = script.events(count: 6, initial: .ratio16x9, changes: [], completionDelay: 0)
        let clock = ManualPacingClock()
        let start = clock.now
        let paced = RealtimePacer(wrapping: ScriptedSource(events), clock: clock)
        func ns(_ i: Int64) throws -> Int64 { try (script.sessionTime(i) - script.sessionTime(0)).converted(toTimescale: 1_000_000_000).value }
        // The recorder's time on each event it takes: 80 ms on frame 0, then nothing.
        var busy: [Duration] = [.milliseconds(80)]
        let (outcome, deliveredAt) = try await Self.drain(paced, from: start) { if !busy.isEmpty { clock.advance(by: busy.removeFirst()) } }
        // Frame 1 (33 ms) waited in the slot while frame 0 was taken; frame 2 (67 ms) came
        // while frame 1 was held too: dropped. Frame 3 (100 ms) is awaited.
        #expect(outcome == ["frame 0", "frame 1", "dropped 2 late", "frame 3", "frame 4", "frame 5"])
        #expect(paced.droppedFrameCount == 1)
        #expect(deliveredAt == [0: 0, 1: try ns(1), 3: try ns(3), 4: try ns(4), 5: try ns(5)])
        #expect(clock.now == start + .nanoseconds(try ns(5)))
    }

    /// Takes every event of `paced`: the frames and drops in order (`frame 3`, `dropped 2
    /// late`) and each frame's delivery in nanoseconds after `start`; `afterEach` runs after
    /// each frame or drop (the recorder's time on it).
    static func drain(_ paced: RealtimePacer, from start: ContinuousClock.Instant, afterEach: () -> Void = {}) async throws -> (
        outcome: [String], deliveredAt: [Int64: Int64]
    ) {
        var outcome: [String] = []
        var deliveredAt: [Int64: Int64] = [:]
        while let event = try await paced.next() {
            switch event {
            case .frame(let frame):
                outcome.append("frame \(frame.index)")
                deliveredAt[frame.index] = (frame.deliveredAt.map { start.duration(to: $0) } ?? .zero).nanoseconds
            case .frameDropped(let drop): outcome.append("dropped \(drop.index ?? -1) \(drop.reason)")
            default: continue
            }
            afterEach()
        }
        return (outcome, deliveredAt)
    }

    /// A producer that pauses: the source itself waits 3 s before frame 3 (a live pipe
    /// without data) while the recorder is idle. The pace follows the producer: frame 3
    /// counts as captured when it arrived and frames 4 and 5 keep their spacing from it;
    /// nothing is dropped (the build before dropped frames 4 and 5 as late: it measured
    /// every capture from a clock started once).
    @Test func pacerFollowsAProducerThatPauses() async throws {
        let events = script.events(count: 6, initial: .ratio16x9, changes: [], completionDelay: 0)
        let clock = ManualPacingClock()
        let start = clock.now
        let paced = RealtimePacer(wrapping: PausingSource(events, clock: clock, pause: .seconds(3), beforeFrame: 3), clock: clock)
        func ns(_ i: Int64) throws -> Int64 { try (script.sessionTime(i) - script.sessionTime(0)).converted(toTimescale: 1_000_000_000).value }
        let (outcome, deliveredAt) = try await Self.drain(paced, from: start)
        #expect(outcome == ["frame 0", "frame 1", "frame 2", "frame 3", "frame 4", "frame 5"])
        #expect(paced.droppedFrameCount == 0)
        // Frame 3 arrived 3 s after frame 2 was taken; 4 and 5 follow it at the frame spacing.
        let arrived3 = try ns(2) + 3_000_000_000
        #expect(deliveredAt == [0: 0, 1: try ns(1), 2: try ns(2), 3: arrived3, 4: arrived3 + (try ns(4) - ns(3)), 5: arrived3 + (try ns(5) - ns(3))])
    }

    /// Many quick switches: finishing in the background keeps every segment exact, and the
    /// byte counts in the manifest match the files.
    @Test func backgroundFinalizationKeepsSegmentsExact() async throws {
        let ratios: [DynamicAspectRatio] = [.ratio16x9, .ratio9x16, .ratio1x1, .ratio4x3]
        let changes = stride(from: Int64(3), to: 36, by: 3).map { ($0, ratios[Int($0 / 3) % 4]) }
        let events = script.events(count: 36, initial: .ratio3x4, changes: changes, completionDelay: 0)
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.count == 12)
        #expect(manifest.segments.allSatisfy { $0.frameCount == 3 })
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        #expect(manifest.frames == FrameCounts(received: 36, written: 36, dropped: 0, droppedReasons: [:]))
        try expectExactFiles(dir, manifest, frames: 36)
        // The manifest on disk says the same.
        let onDisk = try JSONDecoder().decode(RecordingManifest.self, from: Data(contentsOf: dir.appendingPathComponent("manifest.json")))
        #expect(onDisk == manifest)
    }

    /// A segment whose final name is taken meanwhile fails in the background (when its
    /// writer opens, or when it renames its file at the finish, whichever comes after) and
    /// is reported: the recording stops with an error, the segment is left out
    /// of the manifest with its frames counted as `writeFailed`, and the other files stay.
    @Test func backgroundFailureIsReported() async throws {
        let events = script.events(count: 21, initial: .ratio9x16, changes: [(7, .ratio16x9), (14, .ratio1x1)], completionDelay: 0)
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .segment)
        try await muxer.process(events[0].detached())
        let squatter = dir.appendingPathComponent("segment-000.mp4")
        #expect(FileManager.default.createFile(atPath: squatter.path, contents: Data("not mine".utf8)))
        var failure: (any Error)?
        for event in events.dropFirst() where failure == nil { do { try await muxer.process(event.detached()) } catch { failure = error } }
        if failure == nil { do { _ = try await muxer.finishReleasingLock() } catch { failure = error } }
        #expect(failure is SegmentWriterError)
        let manifest = await muxer.abortReleasingLock(error: "\(failure.map { "\($0)" } ?? "none")")
        #expect(manifest.stopReason == .error)
        #expect(!manifest.segments.map(\.file).contains("segment-000.mp4"))
        #expect(manifest.frames.droppedReasons["writeFailed", default: 0] >= 1)
        #expect(manifest.frames.received == manifest.frames.written + manifest.frames.dropped)
        #expect(manifest.warnings.contains { $0.contains("segment-000.mp4") })
        #expect(try String(contentsOf: squatter, encoding: .utf8) == "not mine")
        for segment in manifest.segments {
            let size = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(segment.file).path)[.size] as? NSNumber
            #expect(Int64(segment.byteCount) == size?.int64Value)
        }
    }
}

/// A ``PacingClock`` that stands still until the test advances it or the pacer sleeps
/// (a sleep moves it to the deadline at once).
/// A scripted source whose `next()` waits `pause` (on `clock`) before handing out frame
/// `beforeFrame`, as a live producer that stops sending for a while.
final class PausingSource: CaptureOutputEventSource {
    private let source: ScriptedSource
    private let clock: ManualPacingClock
    private let pause: Duration
    private let beforeFrame: Int64
    init(_ events: [CaptureOutputEvent], clock: ManualPacingClock, pause: Duration, beforeFrame: Int64) {
        source = ScriptedSource(events)
        (self.clock, self.pause, self.beforeFrame) = (clock, pause, beforeFrame)
    }
    func next() throws -> sending CaptureOutputEvent? {
        guard let event = try source.next() else { return nil }
        if case .frame(let frame) = event, frame.index == beforeFrame { clock.advance(by: pause) }
        return event
    }
    func stopRunning() { source.stopRunning() }
}

final class ManualPacingClock: PacingClock {
    private let instant = Mutex(ContinuousClock.now)

    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    func advance(by duration: Duration) { instant.withLock { $0 += duration } }

    func sleep(until deadline: ContinuousClock.Instant) async { instant.withLock { $0 = max($0, deadline) } }
}
