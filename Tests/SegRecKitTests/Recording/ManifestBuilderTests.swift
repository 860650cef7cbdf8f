import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// ManifestBuilder and ChangeAnnouncementMatcher are pure values: these tests feed them
/// events by hand and check the manifest and decisions exactly (no files).
@Suite("ManifestBuilder and ChangeAnnouncementMatcher (pure)", .tags(.recording)) struct ManifestBuilderTests {
    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }

    static func record(_ file: String, start: Int64, width: Int = 320, height: Int = 180) -> SegmentRecord {
        SegmentRecord(
            file: file, width: width, height: height, aspectRatio: nil, frameCount: 0, firstFrameIndex: 0, sessionStart: ns(start),
            sessionStartSeconds: ns(start).seconds, sessionEnd: ns(start), sessionEndSeconds: ns(start).seconds, startReason: .recordingStarted, change: nil,
            byteCount: 0, rotationDegrees: nil)
    }

    /// Frames written then a failed segment: its frames move from written to dropped
    /// (`writeFailed`), its record leaves the manifest, stopTime falls back to the segment
    /// before, and received == written + dropped throughout.
    @Test func failedSegmentMovesItsFramesToWriteFailed() {
        var builder = ManifestBuilder(mode: .segment, devices: [.host], encoder: EncoderSettings(), frameIndexStamp: true)
        builder.apply(.segmentOpened(Self.record("segment-000.mp4", start: 1_000)))
        for _ in 0..<3 { builder.apply(.frameWritten(segment: 0)) }
        builder.apply(.segmentEnded(file: "segment-000.mp4", end: Self.ns(4_000)))
        builder.apply(.segmentOpened(Self.record("segment-001.mp4", start: 4_000)))
        for _ in 0..<2 { builder.apply(.frameWritten(segment: 1)) }
        builder.apply(.frameDropped(.late))
        builder.apply(.segmentEnded(file: "segment-001.mp4", end: Self.ns(6_000)))
        builder.apply(.segmentClosed(file: "segment-000.mp4", start: Self.ns(1_000), end: Self.ns(4_000), frames: 3, bytes: 1234))
        #expect(builder.manifest.stopTime == Self.ns(6_000))
        builder.apply(.segmentFailed(file: "segment-001.mp4", frames: 2, reason: "disk full"))
        let manifest = builder.manifest
        #expect(manifest.segments.map(\.file) == ["segment-000.mp4"])
        #expect(manifest.segments[0].frameCount == 3 && manifest.segments[0].byteCount == 1234)
        #expect(manifest.segments[0].sessionEnd == Self.ns(4_000))
        #expect(manifest.stopTime == Self.ns(4_000))
        #expect(manifest.frames == FrameCounts(received: 6, written: 3, dropped: 3, droppedReasons: ["late": 1, "writeFailed": 2]))
        #expect(manifest.warnings == ["segment-001.mp4 was removed: disk full"])
    }

    /// Audio counts with `buffers` received (one `audioReceived` each).
    static func counts(received: Int64, written: Int64, buffers: Int64) -> AudioCounts {
        var counts = AudioCounts(received: received, written: written)
        counts.buffers = buffers
        return counts
    }

    /// A segment's audio record says what its file holds: the writer's record, replaced by a
    /// rebuilt file's (counted once), and removed when the rebuilt file kept no sound (a disk
    /// that filled before a fragment's audio samples were written), `written` following.
    @Test func rebuiltSegmentWithoutSoundLosesItsAudioRecord() {
        var builder = ManifestBuilder(mode: .segment, devices: [.host], encoder: EncoderSettings(), frameIndexStamp: true)
        builder.apply(.segmentOpened(Self.record("segment-000.mp4", start: 0)))
        builder.apply(.segmentOpened(Self.record("segment-001.mp4", start: 1_000)))
        builder.apply(.audioReceived(samples: 96_000))
        builder.apply(.segmentAudioWritten(file: "segment-000.mp4", SegmentAudioRecord(sampleRate: 48_000, channels: 1, sampleCount: 48_000)))
        builder.apply(.segmentAudioWritten(file: "segment-001.mp4", SegmentAudioRecord(sampleRate: 48_000, channels: 1, sampleCount: 47_000)))
        #expect(builder.manifest.audio == Self.counts(received: 96_000, written: 95_000, buffers: 1))
        builder.apply(.segmentAudioWritten(file: "segment-001.mp4", SegmentAudioRecord(sampleRate: 48_000, channels: 1, sampleCount: 20_000)))
        #expect(builder.manifest.audio == Self.counts(received: 96_000, written: 68_000, buffers: 1))
        builder.apply(.segmentAudioWritten(file: "segment-001.mp4", nil))
        #expect(builder.manifest.segments.map(\.audio?.sampleCount) == [48_000, nil])
        #expect(builder.manifest.audio == Self.counts(received: 96_000, written: 48_000, buffers: 1))
        // A recording without sound gets no counts from a nil record.
        var silent = ManifestBuilder(mode: .segment, devices: [.host], encoder: EncoderSettings(), frameIndexStamp: true)
        silent.apply(.segmentOpened(Self.record("segment-000.mp4", start: 0)))
        silent.apply(.segmentAudioWritten(file: "segment-000.mp4", nil))
        #expect(silent.manifest.audio == nil && silent.manifest.segments[0].audio == nil)
    }

    /// A recording that stopped on a change keeps that reason when it finishes normally or
    /// on request, and takes `error` when it fails afterwards.
    @Test func stopReasonPrecedence() {
        for (finish, expected) in [(StopReason.endOfStream, StopReason.dimensionsChanged), (.requested, .dimensionsChanged), (.error, .error)] {
            var builder = ManifestBuilder(mode: .stopOnChange, devices: [], encoder: EncoderSettings(), frameIndexStamp: false)
            builder.apply(.stopped(.dimensionsChanged, at: Self.ns(5)))
            builder.apply(.finished(finish, error: finish == .error ? "boom" : nil))
            #expect(builder.manifest.stopReason == expected)
            #expect(builder.manifest.stopTime == Self.ns(5))
        }
    }

    /// A frame of `dims` at session time `ns` (device time = session time on the host clock).
    static func frame(_ index: Int64, at ns: Int64, _ dims: VideoDimensions) -> VideoFrame {
        VideoFrame(
            pixelBuffer: PixelBuffer(width: dims.width, height: dims.height), index: index, deviceTime: Self.ns(ns), sessionTime: Self.ns(ns),
            duration: Self.ns(10))
    }

    static func change(_ ratio: DynamicAspectRatio, _ dims: VideoDimensions, at ns: Int64) -> DynamicAspectRatioChange {
        DynamicAspectRatioChange(aspectRatio: ratio, dimensions: dims, deviceTime: Self.ns(ns), sessionTime: Self.ns(ns))
    }

    /// Late completions for a past instant: an earlier one whose size never appeared is
    /// overridden by a later one for the same instant (no warning); one that nothing
    /// overrides is warned about at the end; the unannounced segment gets its own first
    /// frame's time with `announced: false`.
    @Test func matcherDecisions() {
        let wide = VideoDimensions(width: 320, height: 180)
        let tall = VideoDimensions(width: 180, height: 320)
        let square = VideoDimensions(width: 320, height: 320)
        var matcher = ChangeAnnouncementMatcher()
        _ = matcher.segmentOpened(file: "a", firstFrame: Self.frame(0, at: 0, tall), newDimensions: false)
        matcher.frameWritten(at: Self.ns(0))
        let (none, warnings) = matcher.segmentOpened(file: "b", firstFrame: Self.frame(1, at: 10, wide), newDimensions: true)
        #expect(none == nil && warnings.isEmpty)
        matcher.frameWritten(at: Self.ns(10))
        // 1x1 announced for 10, overridden by 16x9 for the same instant: attached, no warning.
        #expect(matcher.completed(Self.change(.ratio1x1, square, at: 10)).isEmpty)
        #expect(
            matcher.completed(Self.change(.ratio16x9, wide, at: 10)) == [
                .attach(file: "b", ChangeRecord(deviceTime: Self.ns(10), sessionTime: Self.ns(10), aspectRatio: "16x9"))
            ])
        // A third segment that nobody announces, and a stray 1x1 for 5 that no frame had.
        _ = matcher.segmentOpened(file: "c", firstFrame: Self.frame(2, at: 20, tall), newDimensions: true)
        matcher.frameWritten(at: Self.ns(20))
        #expect(matcher.completed(Self.change(.ratio1x1, square, at: 5)).isEmpty)
        let end = matcher.finish(stopTime: Self.ns(30))
        #expect(end.count == 2)
        #expect(end.first == .attach(file: "c", ChangeRecord(deviceTime: Self.ns(20), sessionTime: Self.ns(20), aspectRatio: "9x16", announced: false)))
        if case .warn(let text) = end.last {
            #expect(text.contains("setDynamicAspectRatio(1x1)"))
        } else {
            Issue.record("expected a warning, got \(String(describing: end.last))")
        }
    }

    /// A completion that reaches the recorder before its first frame (completionDelayFrames
    /// below minus the frame's index) for the ratio already in effect makes no segment and no
    /// warning, as it does arriving later (found by Scripts/model-check, seed 24, scenario 128:
    /// "no frame had that size then" for a same-ratio request on a 15000/1001 fps camera);
    /// a real change announced before the first frame still attaches to its segment.
    @Test func completionBeforeTheFirstFrame() {
        let wide = VideoDimensions(width: 320, height: 180)
        let tall = VideoDimensions(width: 180, height: 320)
        var matcher = ChangeAnnouncementMatcher()
        // 9x16 (in effect) announced for 20, then 16x9 for 30, before any frame.
        #expect(matcher.completed(Self.change(.ratio9x16, tall, at: 20)).isEmpty)
        #expect(matcher.completed(Self.change(.ratio16x9, wide, at: 30)).isEmpty)
        _ = matcher.segmentOpened(file: "a", firstFrame: Self.frame(0, at: 10, tall), newDimensions: false)
        matcher.frameWritten(at: Self.ns(10))
        matcher.frameWritten(at: Self.ns(20))
        let (change, warnings) = matcher.segmentOpened(file: "b", firstFrame: Self.frame(2, at: 30, wide), newDimensions: true)
        #expect(warnings.isEmpty)
        #expect(change == ChangeRecord(deviceTime: Self.ns(30), sessionTime: Self.ns(30), aspectRatio: "16x9"))
        matcher.frameWritten(at: Self.ns(30))
        #expect(matcher.finish(stopTime: Self.ns(40)) == [])
    }

    /// The same after a camera switch: a request made in the switch gap for the ratio the new
    /// camera takes anyway, whose completion arrives before the new camera's first frame,
    /// makes no warning (Scripts/model-check, seed 24, scenario 775: outer → back → inner).
    @Test func completionBeforeTheSwitchedCamerasFirstFrame() {
        let wide = VideoDimensions(width: 320, height: 180)
        let fourByThree = VideoDimensions(width: 320, height: 240)
        var matcher = ChangeAnnouncementMatcher()
        _ = matcher.segmentOpened(file: "a", firstFrame: Self.frame(0, at: 0, wide), newDimensions: false)
        matcher.frameWritten(at: Self.ns(0))
        // In the gap: 4x3 announced for the new camera's second frame (40), before its first (30).
        #expect(matcher.completed(Self.change(.ratio4x3, fourByThree, at: 40)).isEmpty)
        let (change, warnings) = matcher.segmentOpened(file: "b", firstFrame: Self.frame(1, at: 30, fourByThree), newDimensions: true, cameraSwitched: true)
        #expect(change == nil && warnings.isEmpty)
        matcher.frameWritten(at: Self.ns(30))
        matcher.frameWritten(at: Self.ns(40))
        #expect(matcher.finish(stopTime: Self.ns(50)) == [])
    }

    /// A request made in a camera-switch gap for the old camera's ratio, answered (early) in
    /// the gap, while the new camera starts at the app's other ratio: its change on the new
    /// camera's second frame is announced (Scripts/model-check, seed 25, scenario 80: inner 3x4
    /// → outer 9x16, then 3x4; it was dropped as "already in effect" and said announced: false).
    @Test func completionInTheGapForTheOldCamerasRatio() {
        let fourByThree = VideoDimensions(width: 240, height: 320)
        let tall = VideoDimensions(width: 180, height: 320)
        var matcher = ChangeAnnouncementMatcher()
        _ = matcher.segmentOpened(file: "a", firstFrame: Self.frame(0, at: 0, fourByThree), newDimensions: false)
        matcher.frameWritten(at: Self.ns(0))
        // In the gap: 3x4 (the old camera's) announced for 40, the new camera's second frame.
        #expect(matcher.completed(Self.change(.ratio3x4, fourByThree, at: 40)).isEmpty)
        _ = matcher.segmentOpened(file: "b", firstFrame: Self.frame(1, at: 30, tall), newDimensions: true, cameraSwitched: true)
        matcher.frameWritten(at: Self.ns(30))
        let (change, warnings) = matcher.segmentOpened(file: "c", firstFrame: Self.frame(2, at: 40, fourByThree), newDimensions: true)
        #expect(warnings.isEmpty)
        #expect(change == ChangeRecord(deviceTime: Self.ns(40), sessionTime: Self.ns(40), aspectRatio: "3x4"))
        matcher.frameWritten(at: Self.ns(40))
        #expect(matcher.finish(stopTime: Self.ns(50)) == [])
    }
}
