import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Streams the tests build with ffmpeg: size changes, damage, bad timestamps, odd sizes,
/// and inputs that cannot be recorded.
@Suite(
    "Footage: built streams and bad input", .tags(.footage), .serialized,
    .enabled(if: FootageTestSupport.ready, "../shared/samples/ or ffmpeg/ffprobe missing: real-footage tests skipped")) struct FootageInputErrorTests
{
    typealias T = FootageTestSupport

    /// ffmpeg input arguments for the bus sample.
    var bus: [String] {
        ["-f", "rawvideo", "-video_size", "352x288", "-pixel_format", "yuv420p", "-framerate", "30", "-i", T.sample("bus_352x288_i420_30fps.yuv").path]
    }

    @Test("Annex B H.264 at three sizes gives three segments (and a stop in stop-on-change mode)") func threeSizes() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        var pieces = Data()
        let sizes = [(640, 480, 6), (480, 360, 5), (320, 240, 4)]
        for (w, h, n) in sizes {
            let piece = dir.appendingPathComponent("\(w)x\(h).h264")
            try T.ffmpeg(bus + ["-frames:v", "\(n)", "-vf", "scale=\(w):\(h)", "-c:v", "libx264", "-preset", "ultrafast", "-f", "h264", piece.path])
            pieces.append(try Data(contentsOf: piece))
        }
        let stream = dir.appendingPathComponent("sizes.h264")
        try pieces.write(to: stream)
        #expect(try T.decodedFrameCount(stream) == 15)

        let (code, out, manifest) = try await T.record(["--source", stream.path, "--stamp-frame-index"])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.segments.map { "\($0.width)x\($0.height)" } == ["640x480", "480x360", "320x240"])
        #expect(m.segments.map(\.frameCount) == [6, 5, 4])
        #expect(m.segments.dropFirst().allSatisfy { $0.startReason == .dimensionsChanged })
        #expect(m.warnings.contains { $0.contains("no timestamp") })  // Annex B carries none
        #expect(!m.warnings.contains { $0.contains("announced") })
        for (segment, (w, h, n)) in zip(m.segments, sizes) {
            let probe = try T.probe(out.appendingPathComponent(segment.file))
            #expect(probe.width == w && probe.height == h && probe.frames == n)
        }
        let report = try RecordingVerifier.verify(out)
        #expect(report.passed, "\(report.segments.flatMap(\.problems) + report.problems)")

        let (stopCode, stopped, stopManifest) = try await T.record(["--source", stream.path, "--mode", "stop-on-change"])
        #expect(stopCode == 0)
        let s = try #require(stopManifest)
        #expect(s.stopReason == .dimensionsChanged)
        #expect(s.segments.count == 1 && s.frames.written == 6 && s.frames.droppedReasons["recordingStopped"] == 9)
        #expect(try T.probe(stopped.appendingPathComponent("segment-000.mp4")).frames == 6)
    }

    @Test("a truncated file keeps every frame before the damage, records the error, exits 65") func truncated() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let whole = dir.appendingPathComponent("whole.mp4")
        try T.ffmpeg(bus + ["-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+faststart", whole.path])
        let data = try Data(contentsOf: whole)
        let cut = dir.appendingPathComponent("cut.mp4")
        try data.prefix(data.count * 6 / 10).write(to: cut)

        let (code, out, manifest) = try await T.record(["--source", cut.path, "--stamp-frame-index"])
        #expect(code == 65)
        let m = try #require(manifest)
        #expect(m.stopReason == .error)
        #expect(m.error?.contains("truncated") == true)
        #expect(m.frames.written > 0 && m.frames.written < 17)
        let segment = try #require(m.segments.first)
        #expect(try T.probe(out.appendingPathComponent(segment.file)).frames == m.frames.written)
        #expect(try RecorderTestSupport.stampedIndices(out.appendingPathComponent(segment.file)) == Array(0..<Int64(m.frames.written)))
        // The last kept frame lasts one frame period (30 fps), not up to the length the
        // damaged header states: the span is N frames of 1/30 s, to within rounding.
        let span = (segment.sessionEnd - segment.sessionStart).value
        let expected = Int64(m.frames.written) * 1_000_000_000 / 30
        #expect(abs(span - expected) <= Int64(m.frames.written), "span \(span) ns for \(m.frames.written) frames")
    }

    @Test("frames whose timestamps go backwards or repeat are dropped and counted") func backwardsTimestamps() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let file = dir.appendingPathComponent("back.mkv")
        // pts (ms): 100 140 180 220 260 300 [220] 380 [380] 460
        try T.ffmpeg(
            bus + [
                "-frames:v", "10", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-bsf:v",
                "setts=dts=N:pts=100+40*if(eq(N\\,6)\\,3\\,if(eq(N\\,8)\\,7\\,N))", "-time_base", "1/1000", file.path
            ])
        let (code, out, manifest) = try await T.record(["--source", file.path, "--stamp-frame-index"])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 10 && m.frames.written == 8)
        #expect(m.frames.droppedReasons["nonMonotonicTimestamp"] == 2)
        #expect(m.warnings.filter { $0.contains("dropped") }.count == 2)
        let file0 = out.appendingPathComponent("segment-000.mp4")
        #expect(try RecorderTestSupport.stampedIndices(file0) == [0, 1, 2, 3, 4, 5, 7, 9])
        let info = try MediaFileReader(url: file0).streamInfo()
        #expect(zip(info.packets, info.packets.dropFirst()).allSatisfy { $0.pts < $1.pts })
        #expect(try RecordingVerifier.verify(out).passed)
    }

    @Test("an odd width and height are cropped to even, and the manifest says so") func oddSize() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let file = dir.appendingPathComponent("odd.y4m")
        try T.ffmpeg(["-i", T.sample("park_joy_160x90_50fps.y4m").path, "-vf", "scale=161:91", "-pix_fmt", "yuv420p", file.path])
        let (code, out, manifest) = try await T.record(["--source", file.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.segments.first.map { "\($0.width)x\($0.height)" } == "160x90")
        #expect(m.warnings.contains { $0.contains("161x91") && $0.contains("160x90") })
        let probe = try T.probe(out.appendingPathComponent("segment-000.mp4"))
        #expect(probe.width == 160 && probe.height == 90 && probe.frames == 10)
    }

    @Test("missing file 66, no video stream 65, not media 65, usage errors 64") func badInputs() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        #expect(try await T.record(["--source", dir.appendingPathComponent("missing.mp4").path]).0 == 66)
        let audio = dir.appendingPathComponent("tone.m4a")
        try T.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", audio.path])
        let (noVideo, _, noVideoManifest) = try await T.record(["--source", audio.path])
        #expect(noVideo == 65 && noVideoManifest == nil)
        #expect(try await T.record(["--source", T.sample("README.md").path]).0 == 65)
        #expect(throws: MediaInputError.self) { try VideoFileDecoder(path: audio.path) }
        let yuv = T.sample("bus_352x288_i420_30fps.yuv").path
        #expect(try await T.record(["--source", yuv]).0 == 64)  // raw needs --video-size
        #expect(try await T.record(["--source", yuv, "--video-size", "352"]).0 == 64)
        #expect(try await T.record(["--source", yuv, "--video-size", "352x288", "--pixel-format", "nope"]).0 == 64)
        #expect(try await T.record(["--source", yuv, "--video-size", "352x288", "--framerate", "0"]).0 == 64)
        #expect(try await T.record(["--source", "synthetic", "--video-size", "352x288"]).0 == 64)
    }
}
