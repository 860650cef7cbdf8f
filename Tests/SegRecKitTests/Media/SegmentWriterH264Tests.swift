import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// 10 stamped 1920x1080 NV12 frames at pts i·33_333_333 ns, finished at 333_333_330 ns.
@Suite("Media: SegmentWriter H.264 1080p", .tags(.media)) struct MediaSegmentWriterH264Tests {
    static let pts: [Int64] = (0..<10).map { Int64($0) * 33_333_333 }
    static let end: Int64 = 333_333_330

    static func writeStandardFile(in directory: URL) throws -> (URL, SegmentWriterSummary) {
        let url = directory.appendingPathComponent("segment-000.mp4")
        let summary = try MediaTestSupport.writeSegment(to: url, width: 1920, height: 1080, pts: pts, end: end)
        return (url, summary)
    }

    @Test func summaryAndFilesOnDisk() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, summary) = try Self.writeStandardFile(in: directory)
        #expect(summary.frameCount == 10)
        #expect(summary.url == url)
        #expect(summary.duration == MediaTestSupport.ns(Self.end))
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
        #expect(summary.byteCount == size?.int64Value)
        #expect(summary.byteCount > 10_000)
        // Only the final file: the .partial is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["segment-000.mp4"])
    }

    @Test func readBackStreamInfo() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.writeStandardFile(in: directory)
        let info = try MediaFileReader(url: url).streamInfo()
        #expect(info.codecName == "h264")
        #expect(info.codecTag == "avc1")
        #expect(info.width == 1920)
        #expect(info.height == 1080)
        #expect(info.timeBase == (1, 1_000_000_000))
        #expect(info.frameCount == 10)
        #expect(info.rotationDegrees == nil)
        #expect(info.duration == Self.end)
        #expect(info.packets.map(\.pts) == Self.pts)
        #expect(info.packets.first?.isKeyframe == true)
        #expect(info.packets.map(\.duration) == Array(repeating: 33_333_333, count: 10))
        #expect(info.packets.last?.duration == Self.end - Self.pts.last!)
        #expect(info.presentationEnd == Self.end)
    }

    @Test func decodedFramesCarryTheirStamps() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.writeStandardFile(in: directory)
        var stamps: [UInt32?] = []
        var decodedPTS: [Int64?] = []
        var keyframes: [Bool] = []
        try MediaFileReader(url: url).decodeFrames { frame in
            #expect(frame.width == 1920 && frame.height == 1080)
            #expect(frame.lumaBytesPerRow >= 1920)
            stamps.append(frame.stampedIndex)
            decodedPTS.append(frame.pts)
            keyframes.append(frame.isKeyframe)
        }
        #expect(stamps == (0..<10).map { UInt32($0) })
        #expect(decodedPTS == Self.pts.map { Optional($0) })
        #expect(keyframes.first == true)
    }

    @Test(.enabled(if: MediaTestSupport.ffprobePath != nil, "ffprobe is not on PATH: independent check skipped")) func ffprobeAgrees() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.writeStandardFile(in: directory)
        let json = try #require(
            try MediaTestSupport.ffprobeJSON(
                ["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames,codec_tag_string,time_base,duration_ts"],
                file: url))
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["width"] as? Int == 1920)
        #expect(stream["height"] as? Int == 1080)
        #expect(stream["nb_read_frames"] as? String == "10")
        #expect(stream["codec_tag_string"] as? String == "avc1")
        #expect(stream["time_base"] as? String == "1/1000000000")
        #expect(stream["duration_ts"] as? Int == 333_333_330)
        let packets = try #require(
            try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "packet=pts,flags"], file: url)?["packets"] as? [[String: Any]])
        #expect(packets.compactMap { $0["pts"] as? Int }.sorted() == Self.pts.map(Int.init))
        #expect((packets.first?["flags"] as? String)?.hasPrefix("K") == true)
    }
}
