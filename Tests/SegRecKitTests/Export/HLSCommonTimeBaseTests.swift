import CFFmpeg
import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `export --hls` of a recording whose files have different time bases (cameras at
/// different frame rates): FFmpeg's hls demuxer reads every file's ticks in the first
/// initialization section's time base, so every file must get the same one.
@Suite("Export: HLS common time base", .tags(.export), .serialized) struct HLSCommonTimeBaseTests {
    /// The repository's duo scenario: outer 120 fps (mp4 time base 1/15360), inner
    /// 29.97 fps (1/30000); five segments, two camera switches.
    static var scenario: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SampleStreams/duo/switches-ratio-late-completions.json")
    }

    @Test("common time base: LCM of the reduced denominators, raised to >= 90 kHz; 1/90000 when it overflows") func commonTimeBase() {
        let a = FragmentedRemuxer.commonTimeBase(of: [.init(num: 1, den: 15360), .init(num: 1, den: 30000)])
        #expect(a.timeBase.num == 1 && a.timeBase.den == 1_920_000 && a.exact)  // 2^10·3·5^4
        let b = FragmentedRemuxer.commonTimeBase(of: [.init(num: 1, den: 600), .init(num: 1, den: 1000)])
        #expect(b.timeBase.den == 90000 && b.exact)  // LCM 3000, ×30
        let c = FragmentedRemuxer.commonTimeBase(of: [.init(num: 1001, den: 30000), .init(num: 1, den: 24)])
        #expect(c.timeBase.den == 90000 && c.exact)  // reduced 1001/30000 needs 30000; LCM(30000, 24) = 30000 → ×3
        let d = FragmentedRemuxer.commonTimeBase(of: [.init(num: 1, den: 2_147_483_647), .init(num: 1, den: 2)])
        #expect(d.timeBase.den == 90000 && !d.exact)
    }

    @Test("every frame of the playlist plays at its file's pts + the segment's sessionStart offset; all decode") func framesAtManifestTimes() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let json = try String(contentsOf: Self.scenario, encoding: .utf8)
        let (dir, manifest) = try await CameraRecordingTests.record(json)
        let bases = try manifest.segments.map { try Self.timeBase(dir.appendingPathComponent($0.file).path) }
        #expect(Set(bases.map(\.1)).count > 1, "the files should have different time bases: \(bases)")
        let out = dir.deletingLastPathComponent().appendingPathComponent("hls")
        let result = try RecordingExporter.exportHLS(from: dir, to: out)
        let total = manifest.segments.reduce(0) { $0 + $1.frameCount }
        #expect(result.frames == total)

        let playlistBase = try Self.timeBase(out.appendingPathComponent("segment-000-init.mp4").path)
        for segment in manifest.segments {
            let initSegment = out.appendingPathComponent(segment.file.replacingOccurrences(of: ".mp4", with: "-init.mp4")).path
            let base = try Self.timeBase(initSegment)
            #expect(base.0 == playlistBase.0 && base.1 == playlistBase.1, "\(initSegment): \(base)")
        }
        let playlistDenominator = Int128(playlistBase.1)
        // Expected presentation times, exact: (sessionStart_k − sessionStart_0) + pts / den_k.
        let first = manifest.segments[0].sessionStart
        var expected: [(Int128, Int128)] = []  // numerator, denominator (seconds)
        for (k, segment) in manifest.segments.enumerated() {
            let offset = segment.sessionStart - first
            let pts = try Self.packetPTS(dir.appendingPathComponent(segment.file).path).sorted()
            #expect(pts.count == segment.frameCount)
            let (num, den) = bases[k]
            for p in pts {
                // offset.value/offset.timescale + p·num/den
                let d = Int128(offset.timescale) * Int128(den)
                expected.append((Int128(offset.value) * Int128(den) + Int128(p) * Int128(num) * Int128(offset.timescale), d))
            }
            // The segment's first frame is at its sessionStart on the playlist timeline.
            #expect(pts.first == 0)
        }
        let (_, data) = try ExportTestSupport.run(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts", "-of", "csv=p=0", result.playlist.path])
        let played = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int64($0.split(separator: ",").first ?? "") }
        #expect(played.count == total)
        let firstTick = played.first ?? 0
        var worst: Int128 = 0
        for (tick, e) in zip(played, expected) {
            // |(tick − firstTick)·den − num·D| ≤ den (1 tick of the common base)
            let diff = (Int128(tick - firstTick) * e.1 - e.0 * playlistDenominator)
            worst = max(worst, (diff < 0 ? -diff : diff) * 1000 / e.1)
            #expect(diff <= e.1 && -diff <= e.1, "frame at tick \(tick): expected \(e.0)/\(e.1) s")
        }
        #expect(worst <= 1000)
        // Every frame decodes, in order (frame-index stamps).
        let decoded = try ExportTestSupport.decodedFrames(result.playlist.path)
        #expect(decoded.map { $0.stamp.map(Int.init) ?? -1 } == Array(0..<total))
    }

    @Test("concat export of the same recording is unaffected: every frame in order") func concatUnaffected() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let json = try String(contentsOf: Self.scenario, encoding: .utf8)
        let (dir, manifest) = try await CameraRecordingTests.record(json)
        let list = dir.deletingLastPathComponent().appendingPathComponent("all.ffconcat")
        _ = try RecordingExporter.exportConcat(from: dir, to: list)
        let decoded = try ExportTestSupport.decodedFrames(list.path, inputArguments: ["-f", "concat", "-safe", "0"])
        let total = manifest.segments.reduce(0) { $0 + $1.frameCount }
        #expect(decoded.map { $0.stamp.map(Int.init) ?? -1 } == Array(0..<total))
    }

    /// (num, den) of the first video stream's time base, read by ffprobe.
    static func timeBase(_ path: String) throws -> (Int32, Int32) {
        let (_, data) = try ExportTestSupport.run(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base", "-of", "csv=p=0", path])
        let parts = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/")
        return (Int32(parts.first ?? "") ?? 0, Int32(parts.last ?? "") ?? 0)
    }

    /// Every packet's pts (decode order), read by ffprobe.
    static func packetPTS(_ path: String) throws -> [Int64] {
        let (_, data) = try ExportTestSupport.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "csv=p=0", path])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int64($0.split(separator: ",").first ?? "") }
    }
}
