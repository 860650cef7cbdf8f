import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `export --hls` and `--concat` of real recordings, read back with ffmpeg and ffprobe.
@Suite("Export recordings", .tags(.export), .serialized) struct RecordingExporterTests {
    @Test(arguments: ["h264", "hevc"]) func hlsDecodesEveryFrameInOrder(codec: String) async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (dir, manifest) = try await ExportTestSupport.record(codec: codec)
        #expect(manifest.segments.map { "\($0.width)x\($0.height)" } == ["720x1280", "1280x720", "1280x1280"])
        let out = dir.deletingLastPathComponent().appendingPathComponent("hls")
        let result = try RecordingExporter.exportHLS(from: dir, to: out, wallClock: RecordingExporter.parseWallClock("2026-11-30T08:00:00Z"))
        let total = manifest.segments.reduce(0) { $0 + $1.frameCount }
        #expect(result.segments == 3 && result.frames == total && result.discontinuities == 0)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(!lines.contains("#EXT-X-DISCONTINUITY") && lines.filter { $0.hasPrefix("#EXT-X-MAP:") }.count == 3)
        #expect(
            lines.filter { $0.hasPrefix("#EXTINF:") }
                == manifest.segments.map { "#EXTINF:\(DecimalSeconds.text($0.sessionEnd - $0.sessionStart)),\($0.width)x\($0.height) \($0.aspectRatio ?? "")" })
        #expect(lines.filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }.count == 3)
        let decoded = try ExportTestSupport.decodedFrames(result.playlist.path)
        let expected = ExportTestSupport.expectedFrames(manifest)
        #expect(decoded.count == total)
        #expect(
            decoded.map { "\($0.width)x\($0.height)#\($0.stamp.map(String.init) ?? "?")" }
                == expected.map { "\($0.width)x\($0.height)#\($0.stamp.map(String.init) ?? "?")" })
        // In-band parameter sets: the sample entry is avc3 / hev1.
        let (_, tag) = try ExportTestSupport.run(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", out.appendingPathComponent("segment-001-init.mp4").path])
        #expect(String(decoding: tag, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == (codec == "h264" ? "avc3" : "hev1"))
    }

    @Test(arguments: ["h264", "hevc"]) func concatDecodesEveryFrameInOrder(codec: String) async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (dir, manifest) = try await ExportTestSupport.record(codec: codec)
        let list = dir.deletingLastPathComponent().appendingPathComponent("lists/all.ffconcat")
        let result = try RecordingExporter.exportConcat(from: dir, to: list)
        // Outside the recording folder: safe paths (links for H.264, copies for HEVC).
        #expect(result.text.hasPrefix("ffconcat version 1.0\nfile 'all-files/segment-000.mp4'\n"))
        #expect(result.copies == (codec == "h264" ? 0 : 3))
        #expect(result.links == (codec == "h264" ? 3 : 0))
        let decoded = try ExportTestSupport.decodedFrames(list.path, inputArguments: ["-f", "concat"])
        let expected = ExportTestSupport.expectedFrames(manifest)
        #expect(
            decoded.map { "\($0.width)x\($0.height)#\($0.stamp.map(String.init) ?? "?")" }
                == expected.map { "\($0.width)x\($0.height)#\($0.stamp.map(String.init) ?? "?")" })
    }

    @Test func refusesToOverwriteWithoutForce() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (dir, _) = try await ExportTestSupport.record(preset: "ultrafast")
        let out = dir.deletingLastPathComponent().appendingPathComponent("hls.m3u8")
        let first = try RecordingExporter.exportHLS(from: dir, to: out)
        #expect(FileManager.default.fileExists(atPath: dir.deletingLastPathComponent().appendingPathComponent("hls-segment-002-0.m4s").path))
        #expect(throws: RecordingError.outputExists(path: out.path)) { try RecordingExporter.exportHLS(from: dir, to: out) }
        #expect(try String(contentsOf: out, encoding: .utf8) == first.text)
        let again = try RecordingExporter.exportHLS(from: dir, to: out, force: true)
        #expect(again.text == first.text)
        let list = dir.appendingPathComponent("all.ffconcat")
        _ = try RecordingExporter.exportConcat(from: dir, to: list)
        #expect(throws: RecordingError.outputExists(path: list.path)) { try RecordingExporter.exportConcat(from: dir, to: list) }
    }

    /// `--force` replaces earlier exports only: the recording's own manifest and segment
    /// files are never written, whichever spelling of the path names them.
    @Test func neverOverwritesTheRecordingItself() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (dir, manifest) = try await ExportTestSupport.record(preset: "ultrafast")
        let manifestBytes = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        let segmentBytes = try Data(contentsOf: dir.appendingPathComponent(manifest.segments[0].file))
        let aliases = [
            dir.appendingPathComponent("manifest.json"), dir.appendingPathComponent("x/../" + manifest.segments[0].file),
            dir.appendingPathComponent(manifest.segments[0].file)
        ]
        for list in aliases { #expect(throws: RecordingError.self) { try RecordingExporter.exportConcat(from: dir, to: list, force: true) } }
        // An HLS playlist named like the manifest beside it would write manifest.json.
        #expect(throws: RecordingError.self) { try RecordingExporter.exportHLS(from: dir, to: dir.appendingPathComponent("manifest.json"), force: true) }
        #expect(try Data(contentsOf: dir.appendingPathComponent("manifest.json")) == manifestBytes)
        #expect(try Data(contentsOf: dir.appendingPathComponent(manifest.segments[0].file)) == segmentBytes)
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    @Test func refusesUnfinishedOrIncompleteRecordings() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (dir, manifest) = try await ExportTestSupport.record(preset: "ultrafast")
        let out = dir.deletingLastPathComponent().appendingPathComponent("hls")
        var running = manifest
        running.stopReason = nil
        try JSONEncoder().encode(running).write(to: dir.appendingPathComponent("manifest.json"))
        #expect { try RecordingExporter.exportHLS(from: dir, to: out) } throws: { error in
            guard case RecordingError.badInput(_, let field, _) = error else { return false }
            return field == "stopReason"
        }
        try JSONEncoder().encode(manifest).write(to: dir.appendingPathComponent("manifest.json"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("segment-001.mp4"))
        #expect(throws: RecordingError.inputNotFound(path: dir.appendingPathComponent("segment-001.mp4").path)) {
            try RecordingExporter.exportConcat(from: dir, to: out.appendingPathComponent("x.ffconcat"))
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("index.m3u8").path))
    }
}
