import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: SegmentWriter HEVC, B-frames, rotation, timescales", .tags(.media)) struct MediaSegmentWriterCodecTests {
    @Test func hevcIsTaggedHvc1AndKeepsStamps() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("hevc.mp4")
        let pts: [Int64] = (0..<6).map { Int64($0) * 40_000_000 }
        let summary = try MediaTestSupport.writeSegment(to: url, width: 640, height: 360, pts: pts, end: 240_000_000, settings: EncoderSettings(codec: .hevc))
        #expect(summary.frameCount == 6)
        let reader = try MediaFileReader(url: url)
        let info = try reader.streamInfo()
        #expect(info.codecName == "hevc")
        #expect(info.codecTag == "hvc1")
        #expect(info.width == 640 && info.height == 360)
        #expect(info.packets.map(\.pts) == pts)
        #expect(info.packets.map(\.duration) == Array(repeating: 40_000_000, count: 6))
        #expect(info.duration == 240_000_000)
        #expect(info.packets.first?.isKeyframe == true)
        var stamps: [UInt32?] = []
        try reader.decodeFrames { stamps.append($0.stampedIndex) }
        #expect(stamps == (0..<6).map { UInt32($0) })
        if MediaTestSupport.ffprobePath != nil {
            let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "stream=codec_tag_string"], file: url)
            let stream = (json?["streams"] as? [[String: Any]])?.first
            #expect(stream?["codec_tag_string"] as? String == "hvc1")
        }
    }

    /// "medium" uses B-frames, so packets come out reordered; durations must still be exact
    /// per frame with an irregular cadence and a last frame ending at exactly `end`.
    @Test(arguments: [VideoCodec.h264, .hevc]) func reorderedFramesKeepExactDurations(codec: VideoCodec) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("bframes.mp4")
        var pts: [Int64] = [0]
        for i in 1..<30 { pts.append(pts.last! + 30_000_000 + Int64(i % 4) * 5_000_000 + Int64(i % 3)) }
        let end = pts.last! + 20_000_007
        try MediaTestSupport.writeSegment(to: url, width: 640, height: 360, pts: pts, end: end, settings: EncoderSettings(codec: codec, preset: "medium"))
        let reader = try MediaFileReader(url: url)
        let info = try reader.streamInfo()
        // Decode order differs from presentation order: B-frames were really used.
        let decodeOrder = info.packets.sorted { $0.dts < $1.dts }.map(\.pts)
        #expect(decodeOrder != pts)
        #expect(info.packets.map(\.pts) == pts)
        let expected = zip(pts, pts.dropFirst() + [end]).map { $1 - $0 }
        #expect(info.packets.map(\.duration) == expected)
        #expect(info.packets.last?.duration == 20_000_007)
        #expect(info.duration == end)
        #expect(info.presentationEnd == end)
        var stamps: [UInt32?] = []
        try reader.decodeFrames { stamps.append($0.stampedIndex) }
        #expect(stamps == (0..<30).map { UInt32($0) })
        if MediaTestSupport.ffprobePath != nil {
            let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "stream=duration_ts"], file: url)
            #expect((json?["streams"] as? [[String: Any]])?.first?["duration_ts"] as? Int == Int(end))
        }
    }

    @Test func rotationIsStoredAndReadBack() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("rotated.mp4")
        try MediaTestSupport.writeSegment(to: url, width: 320, height: 240, pts: [0, 33_333_333], end: 66_666_666, rotation: 90)
        #expect(try MediaFileReader(url: url).streamInfo().rotationDegrees == 90)
    }

    @Test(.enabled(if: MediaTestSupport.ffprobePath != nil, "ffprobe is not on PATH: independent check skipped")) func ffprobeShowsRotation() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("rotated.mp4")
        try MediaTestSupport.writeSegment(to: url, width: 320, height: 240, pts: [0, 33_333_333], end: 66_666_666, rotation: 90)
        let json = try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "stream_side_data=rotation"], file: url)
        let stream = (json?["streams"] as? [[String: Any]])?.first
        let sideData = stream?["side_data_list"] as? [[String: Any]]
        #expect(sideData?.first?["rotation"] as? Int == 90)
    }

    /// Presentation times at another timescale are converted to the writer's tick: exactly
    /// when they fall on one, else rounded once (half away from zero); a time that rounds onto
    /// the previous frame's tick gets the next tick; a time not after the previous one is
    /// rejected.
    @Test func presentationTimesRoundToTheWriterTimescale() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("ts90k.mp4")
        let writer = try SegmentWriter(url: url, dimensions: VideoDimensions(width: 320, height: 240), timescale: 90_000, settings: EncoderSettings())
        let times = [
            MediaTime(value: 0, timescale: 30), MediaTime(value: 1, timescale: 30), MediaTime(value: 2, timescale: 30),
            // 0.1 s + 5 µs = 9 000.45 ticks → 9 000; + 1 ns more → still 9 000 → 9 001.
            MediaTime(value: 100_005_000, timescale: 1_000_000_000), MediaTime(value: 100_005_001, timescale: 1_000_000_000),
            // 35 999 / 180 000 s = 17 999.5 ticks → 18 000 (half away from zero).
            MediaTime(value: 35_999, timescale: 180_000)
        ]
        for (i, time) in times.enumerated() { try writer.append(MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: time) }
        #expect(throws: SegmentWriterError.nonIncreasingPresentationTime(previous: times[5], got: times[5])) {
            try writer.append(MediaTestSupport.stampedFrame(index: 6, width: 320, height: 240), presentationTime: times[5])
        }
        let summary = try writer.finish(endTime: MediaTime(value: 7, timescale: 30))
        #expect(summary.frameCount == 6)
        #expect(summary.duration == MediaTime(value: 21_000, timescale: 90_000))
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.timeBase == (1, 90_000))
        #expect(info.packets.map(\.pts) == [0, 3_000, 6_000, 9_000, 9_001, 18_000])
        #expect(info.packets.map(\.duration) == [3_000, 3_000, 3_000, 1, 8_999, 3_000])
        #expect(try RecorderTestSupport.stampedIndices(url) == [0, 1, 2, 3, 4, 5])
    }
}
