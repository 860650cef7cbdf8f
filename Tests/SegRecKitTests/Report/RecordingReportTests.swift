import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `segrec report`: the timeline's layout, the page's bars and players, the posters.
@Suite("Report", .tags(.export), .serialized) struct RecordingReportTests {
    @Test func timelineIsToScale() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (_, manifest) = try await ExportTestSupport.record(preset: "ultrafast")
        let timeline = ReportTimeline(manifest: manifest, width: 1000, margin: 10)
        let durations = manifest.segments.map { ($0.sessionEnd - $0.sessionStart).seconds }
        let total = durations.reduce(0, +)
        #expect(timeline.bars.count == 3)
        for (bar, duration) in zip(timeline.bars, durations) { #expect(abs(bar.width - duration / total * 1000) < 1e-6) }
        #expect(abs(timeline.bars[0].x - 10) < 1e-9)
        #expect(abs(timeline.bars[2].x + timeline.bars[2].width - 1010) < 1e-6)
        // Portrait and square bars are full height, 16x9 is 720/1280 of it.
        #expect(timeline.bars.map(\.height) == [80, 45, 80])
        // Every change has its first-new-buffer marker at the segment's start, and announced
        // ones their announced time; plus the stop marker.
        let firsts = timeline.markers.filter { $0.kind == .firstNewBuffer }
        #expect(firsts.map(\.time) == manifest.segments.dropFirst().map(\.sessionStart))
        #expect(
            timeline.markers.filter { $0.kind == .announced }.map(\.time)
                == manifest.segments.compactMap { $0.change?.announced == true ? $0.change?.sessionTime : nil })
        #expect(timeline.markers.last?.kind == .stop)
    }

    @Test func pageHasABarPlayerAndPosterPerSegment() async throws {
        guard ExportTestSupport.ready else {
            print("skipped: ffmpeg/ffprobe not installed")
            return
        }
        let (dir, manifest) = try await ExportTestSupport.record(preset: "ultrafast")
        let result = try RecordingReport.write(for: dir)
        let html = try String(contentsOf: result.page, encoding: .utf8)
        for (index, s) in manifest.segments.enumerated() {
            #expect(
                html.contains(
                    "data-index=\"\(index)\" data-file=\"\(s.file)\" data-width=\"\(s.width)\" data-height=\"\(s.height)\" data-frames=\"\(s.frameCount)\""))
            #expect(html.contains("<source src=\"\(s.file)\" type=\"video/mp4; codecs=&quot;avc1."))
            #expect(html.contains("session \(DecimalSeconds.text(s.sessionStart)) s"))
        }
        #expect(html.components(separatedBy: "<rect class=\"segment").count - 1 == 3)
        // A player per segment and one for the whole recording (its HLS export), none preloading.
        #expect(html.components(separatedBy: "<video ").count - 1 == 4)
        #expect(html.components(separatedBy: "preload=\"none\"").count - 1 == 4 && !html.contains("preload=\"auto\""))
        #expect(html.contains("<source src=\"report-hls/index.m3u8\" type=\"application/vnd.apple.mpegurl\">"))
        #expect(result.hls.files == 3 && result.hls.frames == manifest.segments.reduce(0) { $0 + $1.frameCount })
        #expect(!html.contains("https://") && !html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
        // Posters: JPEGs written by libavcodec, in the segment's aspect ratio, ≤ 320 px.
        #expect(result.posters.map(\.lastPathComponent) == ["segment-000.jpg", "segment-001.jpg", "segment-002.jpg"])
        for (poster, expected) in zip(result.posters, ["mjpeg,180,320", "mjpeg,320,180", "mjpeg,320,320"]) {
            let (_, data) = try ExportTestSupport.run(
                "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", poster.path])
            #expect(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == expected)
            let bytes = try Data(contentsOf: poster)
            #expect(bytes.prefix(2) == Data([0xFF, 0xD8]))
        }
        #expect(throws: RecordingError.outputExists(path: result.page.path)) { try RecordingReport.write(for: dir) }
        #expect(try RecordingReport.write(for: dir, force: true).posters.count == 3)
    }

    @Test func htmlEscaping() {
        #expect(HTMLText.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTMLText.url("a b#1/é.mp4") == "a%20b%231/%C3%A9.mp4")
        #expect(AspectText.ratio(width: 160, height: 90) == "16x9")
    }
}
