import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The text formats on their own: exact decimals, the HLS playlist, the ffconcat list.
@Suite("Export text", .tags(.export)) struct ExportTextTests {
    @Test func decimalSecondsAreExact() {
        #expect(DecimalSeconds.text(MediaTime(value: 199_998_000, timescale: 1_000_000_000)) == "0.199998000")
        #expect(DecimalSeconds.text(MediaTime(value: 1, timescale: 3)) == "0.333333333")
        #expect(DecimalSeconds.text(MediaTime(value: 2, timescale: 3)) == "0.666666667")
        #expect(DecimalSeconds.text(MediaTime(value: 86_400 * 1001 + 1, timescale: 1001), digits: 6) == "86400.000999")
        #expect(DecimalSeconds.text(MediaTime(value: -1, timescale: 2), digits: 3) == "-0.500")
        #expect(DecimalSeconds.text(MediaTime(value: 7, timescale: 1), digits: 0) == "7")
        #expect(DecimalSeconds.ceilingSeconds(MediaTime(value: 2_000_000_001, timescale: 1_000_000_000)) == 3)
        #expect(DecimalSeconds.ceilingSeconds(MediaTime(value: 2_000_000_000, timescale: 1_000_000_000)) == 2)
        #expect(DecimalSeconds.ceilingSeconds(MediaTime(value: 1, timescale: 30)) == 1)
    }

    @Test func playlistHasMapPerFileAndDiscontinuitiesWhenAsked() {
        let durations = [
            MediaTime(value: 2_066_666_667, timescale: 1_000_000_000), MediaTime(value: 1001, timescale: 30000),
            MediaTime(value: 3_000_000_001, timescale: 1_000_000_000)
        ]
        let playlist = HLSPlaylist(
            entries: durations.enumerated().map {
                HLSPlaylist.Entry(
                    initURI: "s\($0.offset)-init.mp4", mediaURI: "s \($0.offset).m4s", duration: $0.element,
                    programDateTime: $0.offset == 0 ? "2026-11-30T08:00:00.000Z" : nil, title: "x")
            }, discontinuities: true)
        let lines = playlist.render().split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["#EXTM3U", "#EXT-X-VERSION:7"])
        #expect(lines.contains("#EXT-X-TARGETDURATION:4"))
        #expect(lines.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
        #expect(lines.last == "#EXT-X-ENDLIST")
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 2)
        #expect(lines.filter { $0.hasPrefix("#EXT-X-MAP:URI=\"s") }.count == 3)
        #expect(lines.filter { $0.hasPrefix("#EXTINF:") } == ["#EXTINF:2.066666667,x", "#EXTINF:0.033366667,x", "#EXTINF:3.000000001,x"])
        #expect(lines.contains("s%201.m4s"))
        // The discontinuity comes before the second file's map, and the map before its EXTINF.
        let map1 = lines.firstIndex(of: "#EXT-X-MAP:URI=\"s1-init.mp4\"")!
        #expect(lines[map1 - 1] == "#EXT-X-DISCONTINUITY")
        #expect(lines[map1 + 1].hasPrefix("#EXTINF:0.033366667"))
        #expect(lines.filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") } == ["#EXT-X-PROGRAM-DATE-TIME:2026-11-30T08:00:00.000Z"])
        // By default the same playlist without the tags: one continuous sequence of maps.
        var continuous = playlist
        continuous.discontinuities = false
        #expect(continuous.render().split(separator: "\n").map(String.init) == lines.filter { $0 != "#EXT-X-DISCONTINUITY" })
        #expect(HLSPlaylist(entries: playlist.entries).render() == continuous.render())
        // What a replacing export reads back: every map and media segment, decoded.
        #expect(HLSPlaylist.fileNames(in: playlist.render()) == ["s0-init.mp4", "s 0.m4s", "s1-init.mp4", "s 1.m4s", "s2-init.mp4", "s 2.m4s"])
    }

    @Test func concatListQuotesAndTimesExactly() {
        #expect(ConcatList.quote("it's a.mp4") == "'it'\\''s a.mp4'")
        let list = ConcatList(entries: [
            .init(path: "../rec/segment-000.mp4", duration: MediaTime(value: 199_998_000, timescale: 1_000_000_000)),
            .init(path: "x'y.mp4", duration: MediaTime(value: 1, timescale: 3))
        ])
        #expect(list.render() == "ffconcat version 1.0\nfile '../rec/segment-000.mp4'\nduration 0.199998000\nfile 'x'\\''y.mp4'\nduration 0.333333333\n")
    }

    @Test func concatListNamesInItsFilesFolderReadBack() {
        let list = ConcatList(entries: [
            .init(path: "l-files/it's.mp4", duration: MediaTime(value: 1, timescale: 3)),
            .init(path: "rec/segment-001.mp4", duration: MediaTime(value: 1, timescale: 3)),
            .init(path: "l-files/segment-002.mp4", duration: MediaTime(value: 1, timescale: 3))
        ])
        #expect(ConcatList.fileNames(in: list.render(), under: "l-files") == ["it's.mp4", "segment-002.mp4"])
        #expect(ConcatList.unquote(ConcatList.quote("a'b''c d")) == "a'b''c d")
    }

    @Test func relativePathsAndWallClock() throws {
        #expect(RecordingExporter.relativePath(from: URL(fileURLWithPath: "/a/x"), to: URL(fileURLWithPath: "/a/b/c")) == "../b/c")
        #expect(RecordingExporter.isSafeConcatPath("all-files/segment-000.mp4") && RecordingExporter.isSafeConcatPath("segment-000.mp4"))
        for unsafe in ["../rec/segment-000.mp4", "/a/segment-000.mp4", "my rec/x.mp4", ".x/y.mp4", "a//b.mp4", "caf\u{E9}/x.mp4", ""] {
            #expect(!RecordingExporter.isSafeConcatPath(unsafe), "\(unsafe)")
        }
        #expect(RecordingExporter.safeConcatName(".my rec\nday") == "_my_rec_day")
        #expect(RecordingExporter.relativePath(from: URL(fileURLWithPath: "/a/b"), to: URL(fileURLWithPath: "/a/b")) == "")
        let start = try #require(RecordingExporter.parseWallClock("2026-11-30T08:00:00Z"))
        #expect(RecordingExporter.parseWallClock("2026-11-30T09:00:00.250+01:00") == start.addingTimeInterval(0.25))
        #expect(RecordingExporter.parseWallClock("yesterday") == nil)
        #expect(RecordingExporter.programDateTime(start, after: MediaTime(value: 1_199_998_000, timescale: 1_000_000_000)) == "2026-11-30T08:00:01.200Z")
        let layout = RecordingExporter.HLSLayout(output: URL(fileURLWithPath: "/tmp/out/rec.m3u8"))
        #expect(layout.folder.path == "/tmp/out" && layout.playlistName == "rec.m3u8" && layout.prefix == "rec-")
        let folder = RecordingExporter.HLSLayout(output: URL(fileURLWithPath: "/tmp/out/hls"))
        #expect(folder.folder.path == "/tmp/out/hls" && folder.playlistName == "index.m3u8" && folder.prefix == "")
    }
}
