import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// What is converted, and said: alpha (p12), attached pictures (p13), interlace (p10),
/// pixel-format and bit-depth changes (case04), chroma filtered rather than point-sampled.
@Suite(
    "Cases: input conversions", .tags(.cases, .media), .serialized,
    .enabled(if: CasesTestSupport.ready, "../shared/cases/ or ffmpeg/ffprobe missing: case tests skipped")) struct CasesInputConversionTests
{
    typealias T = FootageTestSupport
    typealias C = CasesTestSupport

    @Test("p12: RGBA is composited over black with a warning; the hidden red stays hidden") func alphaOverBlack() async throws {
        let (code, out, manifest) = try await T.record(["--source", C.file("p12_rgba_png_160x120.mkv").path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(C.shapes(m) == [[160, 120, 10]])
        #expect(m.warnings.contains { $0.contains("alpha channel (rgba): composited over black") }, "\(m.warnings)")
        #expect(m.notes.contains { $0.contains("rgba") && $0.contains("alpha composited over black") }, "\(m.notes)")
        let yuv = try C.firstPictureYUV420P(out.appendingPathComponent("segment-000.mp4"))
        let expectedCount = 28_800
        try #require(yuv.count == expectedCount)
        // Left half transparent: black (Y 16, Cb = Cr = 128), not red (Y 81, Cr 240).
        let luma = (8..<112).flatMap { y in (4..<72).map { x in Int(yuv[y * 160 + x]) } }
        let cr = (4..<56).flatMap { y in (2..<34).map { x in Int(yuv[160 * 120 + 80 * 60 + y * 80 + x]) } }
        #expect(luma.max()! <= 24, "left-half luma up to \(luma.max()!)")
        #expect(cr.allSatisfy { abs($0 - 128) <= 8 }, "left-half Cr \(cr.min()!)...\(cr.max()!)")
    }

    @Test("p13: an MP3 with a cover picture has no video stream: exit 65 naming the attached picture") func attachedPictureIsNotVideo() async throws {
        #expect(throws: MediaInputError.self) { try VideoFileDecoder(path: C.file("p13_audio_with_cover.mp3").path) }
        do { _ = try VideoFileDecoder(path: C.file("p13_audio_with_cover.mp3").path) } catch {
            guard case .badInput(_, let field, let detail) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(field == "video stream")
            #expect(detail.contains("attached picture") && detail.contains("mjpeg"), "\(detail)")
        }
        let (code, _, manifest) = try await T.record(["--source", C.file("p13_audio_with_cover.mp3").path])
        #expect(code == 65)
        #expect(manifest == nil)
    }

    @Test("an MP4 with a video stream and a cover picture records the video and notes the cover") func attachedPictureBesideVideo() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let cover = dir.appendingPathComponent("cover.png")
        try T.ffmpeg(["-f", "lavfi", "-i", "color=red:size=64x64", "-frames:v", "1", cover.path])
        let movie = dir.appendingPathComponent("with-cover.mp4")
        try T.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=96x64:rate=30", "-i", cover.path, "-map", "0:v", "-map", "1:v", "-frames:v:0", "12", "-c:v:0", "libx264",
            "-preset", "ultrafast", "-c:v:1", "png", "-disposition:v:1", "attached_pic", movie.path
        ])
        let (code, _, manifest) = try await T.record(["--source", movie.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(C.shapes(m) == [[96, 64, 12]])
        #expect(m.notes.contains { $0.contains("attached picture") && $0.contains("ignored") }, "\(m.notes)")
    }

    @Test("p10: interlaced input is encoded interlaced with its field order, and the manifest says so") func interlacedKept() async throws {
        let decoder = try VideoFileDecoder(path: C.file("p10_interlaced_tff_720x480.ts").path)
        #expect(decoder.fieldOrder == .topFieldFirst)
        let (code, out, manifest) = try await T.record(["--source", C.file("p10_interlaced_tff_720x480.ts").path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(C.shapes(m) == [[720, 480, 30]])
        #expect(m.notes.contains { $0.contains("encoded interlaced (x264 MBAFF), field order top field first kept") }, "\(m.notes)")
        let json = try #require(try MediaTestSupport.ffprobeJSON(["-show_entries", "stream=field_order"], file: out.appendingPathComponent("segment-000.mp4")))
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["field_order"] as? String == "tt")
    }

    @Test("progressive input stays progressive") func progressiveStaysProgressive() async throws {
        let (code, out, manifest) = try await T.record(["--source", C.file("p01_ts_3_packets_lost.ts").path])
        #expect(code == 0)
        #expect(manifest?.notes.contains { $0.contains("interlaced") } == false)
        let json = try #require(try MediaTestSupport.ffprobeJSON(["-show_entries", "stream=field_order"], file: out.appendingPathComponent("segment-000.mp4")))
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["field_order"] as? String == "progressive")
    }

    @Test("case04: yuv420p → yuv444p → yuv420p10le: one segment, every conversion named") func pixelFormatChangesNamed() async throws {
        let (code, _, manifest) = try await T.record(["--source", C.file("case04_h264_420_to_444_to_420p10.ts").path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(C.shapes(m) == [[320, 240, 90]])
        // yuv420p reaches the encoder as decoded; the other formats are converted.
        #expect(m.notes.contains("input pixel format yuv420p (8-bit YUV 4:2:0): recorded as decoded, no conversion"), "\(m.notes)")
        #expect(m.notes.contains("input pixel format changed from yuv420p to yuv444p at picture 30"), "\(m.notes)")
        #expect(m.notes.contains { $0.contains("yuv444p (8-bit YUV 4:4:4)") && $0.contains("bicubic") && $0.contains("(from picture 30)") })
        #expect(m.notes.contains("input pixel format changed from yuv444p to yuv420p10le at picture 60"))
        #expect(m.notes.contains { $0.contains("yuv420p10le (10-bit YUV 4:2:0)") && $0.contains("reduced from 10 to 8 bits") })
    }

    /// Chroma alternating 16 / 240 along each axis 4:2:0 halves (columns and rows for
    /// 4:4:4, rows for 4:2:2): a filter averages it to about 128; point sampling would
    /// keep 16 or 240.
    @Test("4:4:4 and 4:2:2 chroma is filtered to 4:2:0, not point-sampled", arguments: ["yuv444p", "yuv422p"]) func chromaFiltered(_ format: String)
        async throws
    {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("stripes.y4m")
        let stripes: (Int, Int) -> Int = format == "yuv444p" ? { x, y in (x + y) % 2 == 0 ? 16 : 240 } : { _, y in y % 2 == 0 ? 16 : 240 }
        try C.writeY4M(to: url, width: 64, height: 32, format: format, frames: 2) { _ in
            C.y4mFrame(width: 64, height: 32, format: format, luma: { _, _ in 128 }, cb: stripes, cr: stripes)
        }
        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        #expect(manifest?.frames.written == 2)
        let yuv = try C.firstPictureYUV420P(out.appendingPathComponent("segment-000.mp4"))
        let expectedCount = 3_072
        try #require(yuv.count == expectedCount)
        let cb = yuv[(64 * 32)..<(64 * 32 + 32 * 16)].map(Int.init)
        // Away from the picture's edges (the filter sees no neighbour there).
        let inner = (2..<14).flatMap { y in (2..<30).map { x in cb[y * 32 + x] } }
        #expect(inner.allSatisfy { abs($0 - 128) <= 12 }, "Cb \(inner.min()!)...\(inner.max()!)")
    }

    @Test("NV12 raw input keeps its chroma (libswscale leaves a same-size NV12 copy's chroma unwritten)") func nv12Copied() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let raw = dir.appendingPathComponent("nv12.yuv")
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "3", "-pix_fmt", "nv12", "-f", "rawvideo", raw.path])
        let (code, out, _) = try await T.record(["--source", raw.path, "--video-size", "64x48", "--pixel-format", "nv12"])
        #expect(code == 0)
        let recorded = try C.firstPictureYUV420P(out.appendingPathComponent("segment-000.mp4"))
        let reference = dir.appendingPathComponent("reference.y4m")
        try T.ffmpeg([
            "-f", "rawvideo", "-video_size", "64x48", "-pixel_format", "nv12", "-i", raw.path, "-frames:v", "1", "-pix_fmt", "yuv420p", reference.path
        ])
        let expected = try C.firstPictureYUV420P(reference)
        let expectedCount = 4_608
        try #require(recorded.count == expectedCount)
        try #require(expected.count == expectedCount)
        let chroma = (64 * 48)..<recorded.count
        let worst = chroma.map { abs(Int(recorded[$0]) - Int(expected[$0])) }.max()!
        #expect(worst <= 24, "chroma differs by up to \(worst) from ffmpeg's (encoding loss only)")
    }
}
