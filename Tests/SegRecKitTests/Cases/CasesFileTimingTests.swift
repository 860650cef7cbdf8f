import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// File timing: every segment's frame count, frame rate and duration read
/// the same in MediaInfo, ffprobe and the manifest, with and without B-frames, and a still
/// period is one long sample, never a split.
@Suite(
    "Cases: file timing (track time base, last frame, still periods)", .tags(.cases, .media), .serialized,
    .enabled(if: TimingCases.ready, "../shared/cases/ or ffmpeg/ffprobe missing: file-timing case tests skipped")) struct CasesFileTimingTests
{
    typealias C = TimingCases

    /// case01: VP8 at 31 fps, 640x480 → 480x360 → 320x240, one second each. With veryfast
    /// (B-frames, reordered by 2) and ultrafast (none): 3 segments of 31 frames at exactly
    /// 31 fps, 1 s each, in MediaInfo (constant rate), ffprobe and the manifest; the track
    /// ticks 15 872 times a second (31 · 512), one `stts` entry of 512.
    @Test(arguments: ["veryfast", "ultrafast"]) func case01ThreeSizesAt31fps(preset: String) async throws {
        let (code, dir, manifest) = try await C.record(["--source", C.file("case01_vp8_3sizes_31fps.ivf").path], preset: preset)
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.segments.map(\.frameCount) == [31, 31, 31])
        #expect(m.segments.map { "\($0.width)x\($0.height)" } == ["640x480", "480x360", "320x240"])
        #expect(m.segments.map(\.startReason) == [.recordingStarted, .dimensionsChanged, .dimensionsChanged])
        #expect(m.warnings.isEmpty, "\(m.warnings)")
        var sawReordering = false
        for segment in m.segments {
            let url = dir.appendingPathComponent(segment.file)
            // The manifest: 31 frames over 1 s (the last segment ends with the last frame's
            // own 90 kHz duration: 2 904 ticks, 1.000002509 s rounded once to the ns).
            let span = segment.sessionEnd - segment.sessionStart
            #expect(abs(span.seconds - 1.0) < 0.00001, "\(span)")
            let probe = try C.probeStream(url)
            #expect(probe.frames == 31)
            #expect(probe.rFrameRate == "31/1" && probe.averageFrameRate == "31/1")
            #expect(probe.timeBase == "1/15872")
            #expect(probe.duration == "1.000000")
            #expect(probe.width == segment.width && probe.height == segment.height)
            if let info = try C.mediaInfo(url) { #expect(info == C.MediaInfoVideo(frameCount: 31, frameRate: "31.000", frameRateMode: "CFR", duration: 1000)) }
            // Every frame lasts 512 ticks (1/31 s), also the last; pts read back in order.
            let stream = try MediaFileReader(url: url).streamInfo()
            #expect(stream.packets.map(\.pts) == (0..<31).map { Int64($0) * 512 })
            #expect(stream.packets.map(\.duration) == Array(repeating: 512, count: 31))
            #expect(stream.presentationEnd == 15_872)
            if stream.packets.contains(where: { $0.pts != $0.dts + stream.packets[0].pts - stream.packets[0].dts }) { sawReordering = true }
        }
        #expect(sawReordering == (preset == "veryfast"), "B-frames with veryfast only")
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.segments.flatMap(\.problems) + report.problems)")
    }

    /// p16 (screen capture, 2.5 s and 10 s still periods, 90 frames) and case11 (a frame,
    /// 5 s of nothing, 16 frames, 5.5 s of nothing, a frame): one file each, every input
    /// frame, no gap, each frame lasting until the next one as the input's timestamps say
    /// (within half a track tick), the last one as the manifest says.
    @Test(arguments: [("p16_vfr_static_screen.mp4", 90, 15_360), ("case11_sparse.mkv", 18, 15_360)]) func stillPeriodsStayInOneFile(
        name: String, frames: Int, timescale: Int32
    ) async throws {
        let input = C.file(name)
        let (code, dir, manifest) = try await C.record(["--source", input.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.segments.count == 1)
        #expect(m.segments.first?.startReason == .recordingStarted)
        #expect(m.frames.written == frames && m.frames.dropped == 0)
        #expect(!m.warnings.contains { $0.contains("timestampGap") }, "\(m.warnings)")
        let segment = try #require(m.segments.first)
        #expect(segment.frameCount == frames)
        try Self.expectTiming(of: dir.appendingPathComponent(segment.file), segment: segment, matches: input, timescale: timescale)
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.segments.flatMap(\.problems) + report.problems)")
    }

    /// Not from the files: inputs made here with ffmpeg, a 70 s still period in Matroska at
    /// 25 fps (FFV1) and a 3 601 s one (over an hour) in MP4 at 24000/1001 fps (H.264): one
    /// file each, every frame, the still frame lasting until the next.
    @Test(arguments: [
        ("still70.mkv", "25", "70", ["-c:v", "ffv1"], 12_800 as Int32),
        ("still1h.mp4", "24000/1001", "3601", ["-c:v", "libx264", "-preset", "ultrafast", "-video_track_timescale", "24000"], 24_000)
    ]) func generatedStillPeriod(name: String, rate: String, stillSeconds: String, codec: [String], timescale: Int32) async throws {
        let input = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent(name)
        try FootageTestSupport.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=s=160x120:r=\(rate):d=0.4", "-vf", "setpts=PTS+gte(N\\,5)*\(stillSeconds)/TB", "-fps_mode", "passthrough"] + codec
                + [input.path])
        let (code, dir, manifest) = try await C.record(["--source", input.path], preset: "ultrafast")
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.segments.count == 1 && m.frames.written == 10 && m.frames.dropped == 0)
        let segment = try #require(m.segments.first)
        #expect(segment.sessionEnd.seconds > Double(stillSeconds)!)
        try Self.expectTiming(of: dir.appendingPathComponent(segment.file), segment: segment, matches: input, timescale: timescale)
        // The still sample lasts the whole pause: exactly the input's interval (both
        // timescales are multiples of the rate's), longer than the pause itself.
        let stream = try MediaFileReader(url: dir.appendingPathComponent(segment.file)).streamInfo()
        let source = try MediaFileReader(url: input).streamInfo()
        let interval = Int128(source.packets[5].pts - source.packets[4].pts) * Int128(source.timeBase.num) * Int128(timescale)
        #expect(interval % Int128(source.timeBase.den) == 0)
        #expect(Int128(stream.packets[4].duration) == interval / Int128(source.timeBase.den))
        #expect(stream.packets[4].duration > Int64(stillSeconds)! * Int64(timescale))
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.segments.flatMap(\.problems) + report.problems)")
    }

    /// The finished file `url` of `segment`: track timescale, frame count (ours, ffprobe,
    /// MediaInfo), each frame's file time equal to its input time relative to the first
    /// (within half a tick), the last frame ending where the manifest's span ends (rounded
    /// once), and MediaInfo's and ffprobe's durations equal to the manifest's span.
    static func expectTiming(of url: URL, segment: SegmentRecord, matches input: URL, timescale: Int32) throws {
        let stream = try MediaFileReader(url: url).streamInfo()
        #expect(stream.timeBase == (1, timescale))
        #expect(stream.frameCount == segment.frameCount)
        let source = try MediaFileReader(url: input).streamInfo()
        #expect(source.packets.count == segment.frameCount)
        let sourceStart = try #require(source.packets.first?.pts)
        for (file, original) in zip(stream.packets, source.packets) {
            // |file/ts − (original − start)·num/den| ≤ 1/(2·ts), in integers.
            let exact = Int128(original.pts - sourceStart) * Int128(source.timeBase.num) * Int128(timescale)
            let error = Int128(file.pts) * Int128(source.timeBase.den) - exact
            #expect(2 * abs(error) <= Int128(source.timeBase.den), "pts \(file.pts) vs input \(original.pts)")
        }
        let span = segment.sessionEnd - segment.sessionStart
        let end = try span.converted(toTimescale: timescale).value
        #expect(stream.presentationEnd == end)
        #expect(stream.packets.last.map { $0.pts + $0.duration } == end)
        let probe = try TimingCases.probeStream(url)
        #expect(probe.frames == segment.frameCount)
        #expect(abs((Double(probe.duration) ?? -1) - span.seconds) < 0.000_001, "ffprobe \(probe.duration) vs \(span)")
        if let info = try TimingCases.mediaInfo(url) {
            #expect(info.frameCount == segment.frameCount)
            #expect(abs(info.duration - Int((span.seconds * 1000).rounded())) <= 1, "MediaInfo \(info.duration) ms vs \(span)")
        }
    }
}
