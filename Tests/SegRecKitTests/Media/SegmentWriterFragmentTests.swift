import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Media: SegmentWriter fragmented partial files and faststart finish", .tags(.media, .crashSafety)) struct MediaSegmentWriterFragmentTests {
    static let size = VideoDimensions(width: 320, height: 240)

    /// A fragmented writer (B-frames, irregular cadence, rotation) finishes into an ordinary
    /// MP4: `moov` before `mdat`, no `moof`, every pts and duration exact, the end exactly
    /// `end`, rotation and codec tag kept, partial and temporary files gone.
    @Test(arguments: [VideoCodec.h264, .hevc]) func finishedFileIsFaststartWithExactTiming(codec: VideoCodec) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("frag.mp4")
        var pts: [Int64] = [0]
        for i in 1..<120 { pts.append(pts.last! + 30_000_000 + Int64(i % 4) * 5_000_000 + Int64(i % 3)) }
        let end = pts.last! + 20_000_007
        let writer = try SegmentWriter(
            url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(codec: codec, preset: "medium", keyframeInterval: 250),
            displayRotationDegrees: 90, fragmentInterval: MediaTime(value: 500, timescale: 1000))
        #expect(writer.fragmentInterval == MediaTime(value: 1, timescale: 2))
        for (i, time) in pts.enumerated() {
            try writer.append(MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), presentationTime: MediaTestSupport.ns(time))
        }
        // While open, the partial file is fragmented: several fragments inside one GOP.
        let partialBoxes = try FragmentTestSupport.topLevelBoxTypes(writer.partialURL)
        #expect(partialBoxes.filter { $0 == "moof" }.count >= 3, "\(partialBoxes)")
        let summary = try writer.finish(endTime: MediaTestSupport.ns(end))

        #expect(summary.frameCount == pts.count)
        #expect(summary.byteCount == Int64(try Data(contentsOf: url).count))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["frag.mp4"])
        try FragmentTestSupport.expectFaststart(url)
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.codecTag == (codec == .hevc ? "hvc1" : "avc1"))
        #expect(info.timeBase == (1, 1_000_000_000))
        #expect(info.rotationDegrees == 90)
        #expect(info.packets.map(\.pts) == pts)
        #expect(info.packets.sorted { $0.dts < $1.dts }.map(\.pts) != pts, "B-frames were used")
        #expect(info.packets.map(\.duration) == zip(pts, pts.dropFirst() + [end]).map { $1 - $0 })
        #expect(info.duration == end)
        #expect(info.presentationEnd == end)
        #expect(try FragmentTestSupport.stamps(url) == (0..<pts.count).map { UInt32($0) })
        if MediaTestSupport.ffprobePath != nil {
            #expect(try FragmentTestSupport.ffprobePacketCount(url) == pts.count)
            let json = try MediaTestSupport.ffprobeJSON(
                ["-select_streams", "v:0", "-show_entries", "stream=duration_ts,codec_tag_string:stream_side_data=rotation"], file: url)
            let stream = (json?["streams"] as? [[String: Any]])?.first
            #expect(stream?["duration_ts"] as? Int == Int(end))
            #expect(stream?["codec_tag_string"] as? String == (codec == .hevc ? "hvc1" : "avc1"))
            let sideData = stream?["side_data_list"] as? [[String: Any]]
            #expect(sideData?.first?["rotation"] as? Int == 90)
        }
    }

    /// While recording (long GOP, 1 s fragments), a copy of the partial file is readable by
    /// ffprobe and libavformat and holds at least every frame of the complete fragments.
    @Test func openPartialFileIsReadable() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("live.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(keyframeInterval: 600))
        #expect(writer.fragmentInterval == MediaTime(value: 1, timescale: 1))
        // 4.5 s at 30 fps; x264's lookahead holds back ~20 frames, so ≥ 3 fragments are cut.
        try FragmentTestSupport.append(0..<135, to: writer)
        let copy = directory.appendingPathComponent("copy.mp4")
        try FileManager.default.copyItem(at: writer.partialURL, to: copy)
        let boxes = try FragmentTestSupport.topLevelBoxTypes(copy)
        #expect(boxes.filter { $0 == "moof" }.count >= 3, "\(boxes)")
        let info = try MediaFileReader(url: copy).streamInfo()
        #expect(info.frameCount >= 90)  // three 1 s fragments
        #expect(info.packets.map(\.pts) == (0..<info.frameCount).map { Int64($0) * 33_333_333 })
        #expect(try FragmentTestSupport.stamps(copy) == (0..<info.frameCount).map { UInt32($0) })
        if MediaTestSupport.ffprobePath != nil { #expect(try FragmentTestSupport.ffprobePacketCount(copy) ?? 0 >= 90) }
        try FragmentTestSupport.append(135..<150, to: writer)
        let summary = try writer.finish(endTime: MediaTestSupport.ns(150 * 33_333_333))
        #expect(summary.frameCount == 150)
        try FragmentTestSupport.expectFaststart(url)
        let expectedEnd: Int64 = 150 * 33_333_333
        #expect(try MediaFileReader(url: url).streamInfo().presentationEnd == expectedEnd)
    }

    /// `fragmentInterval: nil` (or zero) writes an ordinary faststart MP4 directly.
    @Test(arguments: [nil, MediaTime.zero]) func unfragmentedWriterProducesFaststart(interval: MediaTime?) throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("plain.mp4")
        let writer = try SegmentWriter(url: url, dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(), fragmentInterval: interval)
        #expect(writer.fragmentInterval == nil)
        try FragmentTestSupport.append(0..<40, to: writer)
        #expect(!(try FragmentTestSupport.topLevelBoxTypes(writer.partialURL).contains("moof")))
        let summary = try writer.finish(endTime: MediaTestSupport.ns(40 * 33_333_333))
        #expect(summary.frameCount == 40)
        try FragmentTestSupport.expectFaststart(url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["plain.mp4"])
        let info = try MediaFileReader(url: url).streamInfo()
        let expectedEnd: Int64 = 40 * 33_333_333
        #expect(info.duration == expectedEnd)
        #expect(info.frameCount == 40)
    }

    @Test func negativeFragmentIntervalIsRefused() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let interval = MediaTime(value: -1, timescale: 1)
        #expect(throws: SegmentWriterError.invalidFragmentInterval(interval)) {
            _ = try SegmentWriter(
                url: directory.appendingPathComponent("x.mp4"), dimensions: Self.size, timescale: 1_000_000_000, settings: EncoderSettings(),
                fragmentInterval: interval)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
