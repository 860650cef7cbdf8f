import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Segment mode on real encoded files", .tags(.recording)) struct SegmentModeTests {
    let script = EventScript()

    /// Tap-to-rotate: 9x16 for frames 0–6, 16x9 for 7–13, 1x1 for 14–19, with the
    /// completion arriving before (−1), with (0) and after (+2) the first new-size frame.
    @Test(arguments: [Int64(-1), 0, 2]) func tapToRotate(completionDelay: Int64) async throws {
        let events = script.events(count: 20, initial: .ratio9x16, changes: [(7, .ratio16x9), (14, .ratio1x1)], completionDelay: completionDelay)
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        let segments = manifest.segments
        #expect(segments.map(\.file) == ["segment-000.mp4", "segment-001.mp4", "segment-002.mp4"])
        #expect(segments.map { "\($0.width)x\($0.height)" } == ["180x320", "320x180", "320x320"])
        #expect(segments.map(\.frameCount) == [7, 7, 6])
        #expect(segments.map(\.firstFrameIndex) == [0, 7, 14])
        #expect(segments.map(\.aspectRatio) == ["9x16", "16x9", "1x1"])
        #expect(segments.map(\.startReason) == [.recordingStarted, .dimensionsChanged, .dimensionsChanged])
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        #expect(manifest.frames == FrameCounts(received: 20, written: 20, dropped: 0, droppedReasons: [:]))
        // Boundaries: the converted change time is frame 7's / 14's session time, exactly.
        #expect(segments[0].sessionStart == script.sessionTime(0))
        #expect(segments[0].sessionEnd == segments[1].sessionStart)
        #expect(segments[1].sessionEnd == segments[2].sessionStart)
        #expect(segments[1].sessionStart == script.sessionTime(7))
        #expect(segments[2].sessionStart == script.sessionTime(14))
        #expect(segments[2].sessionEnd == script.sessionTime(20))
        // The change records hold the device time D(k) and its conversion.
        #expect(segments[0].change == nil)
        #expect(segments[1].change?.deviceTime == script.deviceTime(7))
        #expect(segments[1].change?.sessionTime == (try convertTime(script.deviceTime(7), from: EventScript.front, to: .host)))
        #expect(segments[2].change?.deviceTime == script.deviceTime(14))
        // Frame 7: D = 324_016_200 + round(7 · 800_000) = 329_616_200 ticks.
        #expect(segments[1].change?.deviceTime.value == 329_616_200)
        // Read back: stamps per file, keyframes, single size, and ffprobe agrees.
        for (segment, expected) in zip(segments, [Array(0...6), Array(7...13), Array(14...19)] as [[Int64]]) {
            let url = dir.appendingPathComponent(segment.file)
            #expect(try RecorderTestSupport.stampedIndices(url) == expected)
            let info = try MediaFileReader(url: url).streamInfo()
            #expect(info.packets.first?.isKeyframe == true)
            #expect(info.width == segment.width && info.height == segment.height)
            // The file's own timeline: 0 to sessionEnd − sessionStart, at the track's tick
            // (the 30 fps rate's 1/15360 s), rounded once.
            #expect(info.timeBase == (1, 15_360))
            #expect(info.packets.first?.pts == 0)
            #expect(info.presentationEnd == (try (segment.sessionEnd - segment.sessionStart).converted(toTimescale: 15_360)).value)
            if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == segment.width && h == segment.height && n == segment.frameCount) }
        }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// Flips every 2 frames: 10 segments of 2 frames, tiling exactly.
    @Test func rapidFlips() async throws {
        let ratios: [DynamicAspectRatio] = [.ratio16x9, .ratio9x16]
        let changes = stride(from: Int64(2), to: 20, by: 2).map { ($0, ratios[Int($0 / 2 - 1) % 2]) }
        let events = script.events(count: 20, initial: .ratio9x16, changes: changes, completionDelay: 1)
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.count == 10)
        #expect(manifest.segments.allSatisfy { $0.frameCount == 2 })
        #expect(manifest.segments.map(\.firstFrameIndex) == Array(stride(from: Int64(0), to: 20, by: 2)))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        for (a, b) in zip(manifest.segments, manifest.segments.dropFirst()) {
            #expect(a.sessionEnd == b.sessionStart)
            #expect(a.width != b.width)
        }
        for segment in manifest.segments {
            let i = segment.firstFrameIndex
            #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent(segment.file)) == [i, i + 1])
        }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// The completion says frame 9 but the buffers change at frame 7: the buffers win, the
    /// manifest warns, and the announced times are kept in the change record.
    @Test(arguments: [Int64(-3), 4]) func buffersWinOverTheAnnouncement(placement: Int64) async throws {
        var events: [CaptureOutputEvent] = []
        for i in Int64(0)..<12 {
            if i == 7 + placement { events.append(script.change(.ratio16x9, atFrame: 9)) }
            events.append(script.frame(i, i < 7 ? .ratio9x16 : .ratio16x9))
        }
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.map(\.frameCount) == [7, 5])
        #expect(manifest.segments[1].sessionStart == script.sessionTime(7))
        #expect(manifest.segments[0].sessionEnd == script.sessionTime(7))
        #expect(manifest.segments[1].change?.deviceTime == script.deviceTime(9))
        #expect(manifest.warnings.count == 1)
        #expect(manifest.warnings.first?.contains("the segment boundary follows the buffers") == true)
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// A completion for the ratio already active makes no segment and no warning.
    @Test func sameRatioRequestMakesNoSegment() async throws {
        var events = script.events(count: 10, initial: .ratio9x16, changes: [(6, .ratio16x9)], completionDelay: 0)
        events.insert(script.change(.ratio9x16, atFrame: 3), at: 3)
        let (_, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.map(\.frameCount) == [6, 4])
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
    }

    @Test func zeroFramesGiveNoFileAndAManifestThatSaysSo() async throws {
        let (dir, manifest) = try await RecorderTestSupport.record([], mode: .segment)
        #expect(manifest.segments.isEmpty)
        #expect(manifest.frames.received == 0)
        #expect(manifest.stopTime == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["manifest.json"])
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    @Test func oneFrameGivesAOneFrameFile() async throws {
        let (dir, manifest) = try await RecorderTestSupport.record([script.frame(0, .ratio1x1)], mode: .segment)
        #expect(manifest.segments.count == 1)
        #expect(manifest.segments[0].frameCount == 1)
        #expect(manifest.segments[0].sessionEnd == script.sessionTime(1))
        let url = dir.appendingPathComponent("segment-000.mp4")
        #expect(try RecorderTestSupport.stampedIndices(url) == [0])
        if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == 320 && h == 320 && n == 1) }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// A frame whose timestamp repeats is dropped and counted, never written out of order.
    @Test func nonMonotonicFrameIsDropped() async throws {
        let events = [script.frame(0, .ratio9x16), script.frame(1, .ratio9x16), script.frame(1, .ratio9x16), script.frame(2, .ratio9x16)]
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.frames == FrameCounts(received: 4, written: 3, dropped: 1, droppedReasons: ["nonMonotonicTimestamp": 1]))
        #expect(manifest.warnings.count == 1)
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-000.mp4")) == [0, 1, 2])
    }

    /// The manifest on disk is what `run` returned, with `change: null` spelled out.
    @Test func manifestOnDiskMatches() async throws {
        let events = script.events(count: 4, initial: .ratio9x16, changes: [(2, .ratio16x9)], completionDelay: 0)
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(try ManifestReader.read(from: dir) == manifest)
        let text = try String(contentsOf: dir.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(text.contains("\"change\" : null"))
        #expect(text.contains("\"formatVersion\" : 1"))
        #expect(text.contains("\"stopReason\" : \"endOfStream\""))
    }
}

@Suite("Segment mode: completions matched to the right change", .tags(.recording)) struct CompletionMatchingTests {
    let script = EventScript()

    /// Two requests at the same instant (1x1, then 9x16) take effect on the same frame 5,
    /// so 1x1 never appears; a third (1x1) takes effect at frame 17. With completions 4
    /// frames late, the overridden 1x1 completion (D(5)) must not be attached to the later
    /// 1x1 segment: that one's change is D(17), and nothing warns.
    @Test func overriddenRequestIsNotAttachedToALaterSegment() async throws {
        var events: [CaptureOutputEvent] = []
        for i in Int64(0)..<24 {
            if i == 9 {
                events.append(script.change(.ratio1x1, atFrame: 5))
                events.append(script.change(.ratio9x16, atFrame: 5))
            }
            if i == 21 { events.append(script.change(.ratio1x1, atFrame: 17)) }
            events.append(script.frame(i, i < 5 ? .ratio16x9 : (i < 17 ? .ratio9x16 : .ratio1x1)))
        }
        let (_, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.map(\.frameCount) == [5, 12, 7])
        #expect(manifest.segments[1].change?.deviceTime == script.deviceTime(5))
        #expect(manifest.segments[2].change?.deviceTime == script.deviceTime(17))
        #expect(manifest.segments[2].change?.sessionTime == manifest.segments[2].sessionStart)
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
    }

    /// A change that takes effect on the very first frame (announced before it) is realized
    /// by the first segment: no warning that the buffers never had that size.
    @Test func changeOnTheFirstFrameIsRealized() async throws {
        var events: [CaptureOutputEvent] = [script.change(.ratio3x4, atFrame: 0)]
        for i in Int64(0)..<6 { events.append(script.frame(i, i < 3 ? .ratio3x4 : .ratio4x3)) }
        events.insert(script.change(.ratio4x3, atFrame: 3), at: 3)
        let (_, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.map(\.frameCount) == [3, 3])
        #expect(manifest.segments[1].change?.deviceTime == script.deviceTime(3))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
    }

    /// A ratio change requested for every frame with completions 5 frames late: each
    /// segment gets its own change time, equal to its start, and nothing warns.
    @Test func everyFrameChangesWithLateCompletions() async throws {
        let ratios: [DynamicAspectRatio] = [.ratio16x9, .ratio1x1, .ratio9x16]
        let changes = (Int64(2)..<20).map { ($0, ratios[Int($0) % 3]) }
        let events = script.events(count: 20, initial: .ratio9x16, changes: changes, completionDelay: 5)
        let (_, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        // Frame 2's request asks for 9x16, already in effect: frames 0–2, then one per frame.
        #expect(manifest.segments.count == 18)
        for segment in manifest.segments.dropFirst() { #expect(segment.change?.sessionTime == segment.sessionStart) }
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
    }
}

@Suite("Recorders: frames longer than a file can hold", .tags(.recording)) struct LongFrameTests {
    let script = EventScript()

    /// A frame at `ns` nanoseconds of session time, lasting `durationNs`.
    func frame(_ index: Int64, at ns: Int64, lasting durationNs: Int64 = 33_333_333) -> CaptureOutputEvent {
        .frame(
            VideoFrame(
                pixelBuffer: MediaTestSupport.stampedFrame(index: Int(index), width: 320, height: 180), index: index,
                deviceTime: MediaTime(value: ns, timescale: 1_000_000_000), sessionTime: MediaTime(value: ns, timescale: 1_000_000_000),
                duration: MediaTime(value: durationNs, timescale: 1_000_000_000)))
    }

    /// The longest a frame lasts in these files: 2²⁸ − 2 ticks of the 30 fps track
    /// timescale (15 360), rounded down to session nanoseconds: ≈ 4 h 51 min.
    static let longest = MediaTime(value: 17_476_266_536_458, timescale: 1_000_000_000)

    @Test func longestFrameIsWhatTheTrackHolds() throws {
        #expect(TrackTiming.timescale(for: RecorderTestSupport.settings.frameRate) == 15_360)
        #expect(try TrackTiming.longestSample(atTimescale: 15_360).converted(toTimescale: 1_000_000_000, rounding: .roundTowardZero) == Self.longest)
    }

    /// A 70 s still period (no frame, as a screen capture sends nothing while nothing
    /// changes) is one long sample: one file, no hole, the still frame lasting until the next
    /// one, every frame decodes and the file's sample durations are the session intervals.
    @Test(arguments: [RecordingMode.segment, .stopOnChange]) func stillPeriodStaysInOneFile(mode: RecordingMode) async throws {
        let times: [Int64] = [1_000_000_000, 1_033_333_333, 71_033_333_333, 71_066_666_666]
        let events = times.enumerated().map { frame(Int64($0.offset), at: $0.element) }
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: mode)
        #expect(manifest.segments.count == 1)
        #expect(manifest.segments.map(\.startReason) == [.recordingStarted])
        #expect(manifest.segments[0].sessionEnd == MediaTime(value: 71_099_999_999, timescale: 1_000_000_000))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        let url = dir.appendingPathComponent(manifest.segments[0].file)
        #expect(try RecorderTestSupport.stampedIndices(url) == [0, 1, 2, 3])
        let info = try MediaFileReader(url: url).streamInfo()
        // 33 333 333 ns = 511.99 ticks → 512; 70 s = 1 075 200 ticks.
        #expect(info.packets.map(\.pts) == [0, 512, 1_075_712, 1_076_224])
        #expect(info.packets.map(\.duration) == [512, 1_075_200, 512, 512])
        if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == 320 && h == 180 && n == 4) }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// No frame for longer than a file can hold one (5 h): the first file ends after its
    /// last frame, the next starts at the late frame (`timestampGap`), no frame is lost,
    /// and every file plays (ffprobe) and verifies.
    @Test(arguments: [RecordingMode.segment, .stopOnChange]) func gapSplitsTheRecording(mode: RecordingMode) async throws {
        let late: Int64 = 1_033_333_333 + 5 * 3_600_000_000_000
        let events = [frame(0, at: 1_000_000_000), frame(1, at: 1_033_333_333), frame(2, at: late), frame(3, at: late + 33_333_333)]
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: mode)
        #expect(manifest.segments.map(\.frameCount) == [2, 2])
        #expect(manifest.segments.map(\.startReason) == [.recordingStarted, .timestampGap])
        #expect(manifest.segments[0].sessionEnd == MediaTime(value: 1_066_666_666, timescale: 1_000_000_000))
        #expect(manifest.segments[1].sessionStart == MediaTime(value: late, timescale: 1_000_000_000))
        #expect(manifest.frames.written == 4 && manifest.frames.dropped == 0)
        #expect(manifest.warnings.count == 1)
        for (segment, indices) in zip(manifest.segments, [[Int64(0), 1], [2, 3]]) {
            let url = dir.appendingPathComponent(segment.file)
            #expect(try RecorderTestSupport.stampedIndices(url) == indices)
            if let (w, h, n) = try RecorderTestSupport.probe(url) { #expect(w == 320 && h == 180 && n == 2) }
        }
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// A gap just below the limit stays in the file (no split).
    @Test func gapJustBelowTheLimitStays() async throws {
        let late = 1_033_333_333 + Self.longest.value
        let events = [frame(0, at: 1_000_000_000), frame(1, at: 1_033_333_333), frame(2, at: late)]
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.map(\.frameCount) == [3])
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
        let info = try MediaFileReader(url: dir.appendingPathComponent("segment-000.mp4")).streamInfo()
        #expect(info.packets.map(\.duration) == [512, TrackTiming.longestSampleTicks, 512])
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// A last frame claiming 5 h is capped at the longest a file holds, with a warning.
    @Test func longLastFrameIsCapped() async throws {
        let events = [frame(0, at: 1_000_000_000), frame(1, at: 1_033_333_333, lasting: 5 * 3_600_000_000_000)]
        let (dir, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.count == 1)
        #expect(manifest.segments[0].sessionEnd == MediaTime(value: 1_033_333_333 + Self.longest.value, timescale: 1_000_000_000))
        #expect(manifest.warnings.count == 1)
        #expect(try RecordingVerifier.verify(dir).passed)
    }
}

@Suite("Segment mode: completions before their frame", .tags(.recording)) struct EarlyCompletionMatchingTests {
    let script = EventScript()

    /// With completions before their frames: 16x9 then 9x16 (the ratio in effect) on the
    /// same frame 5 — 16x9 never reaches the buffers — and a real 16x9 at frame 17. The
    /// segment at 17 gets D(17), not the overridden request's D(5), and nothing warns.
    @Test func overriddenPendingRequestIsDropped() async throws {
        var events: [CaptureOutputEvent] = []
        for i in Int64(0)..<24 {
            if i == 3 {
                events.append(script.change(.ratio16x9, atFrame: 5))
                events.append(script.change(.ratio9x16, atFrame: 5))
            }
            if i == 15 { events.append(script.change(.ratio16x9, atFrame: 17)) }
            events.append(script.frame(i, i < 17 ? .ratio9x16 : .ratio16x9))
        }
        let (_, manifest) = try await RecorderTestSupport.record(events, mode: .segment)
        #expect(manifest.segments.map(\.frameCount) == [17, 7])
        #expect(manifest.segments[1].change?.deviceTime == script.deviceTime(17))
        #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
    }

    /// A last frame that claims no duration still ends one tick after it: the file is kept.
    @Test func lastFrameWithoutDurationIsKept() async throws {
        let frame = VideoFrame(
            pixelBuffer: MediaTestSupport.stampedFrame(index: 0, width: 320, height: 180), index: 0, deviceTime: MediaTime(value: 5, timescale: 1_000_000_000),
            sessionTime: MediaTime(value: 5, timescale: 1_000_000_000), duration: .zero)
        let (dir, manifest) = try await RecorderTestSupport.record([.frame(frame)], mode: .segment)
        #expect(manifest.segments.first?.sessionEnd == MediaTime(value: 6, timescale: 1_000_000_000))
        #expect(manifest.frames == FrameCounts(received: 1, written: 1, dropped: 0, droppedReasons: [:]))
        #expect(try RecordingVerifier.verify(dir).passed)
    }
}
