import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `--copy` at the media layer: ``EncodedVideoReader`` hands out an MP4's length-prefixed
/// H.264 packets with the size libavcodec's parser reads (from the avcC extradata), and a
/// ``SegmentWriter`` opened for a copied stream writes them as they are, their timestamps'
/// spacing kept.
@Suite("Media: packets read and written as sent (--copy)", .tags(.media)) struct EncodedCopyTests {
    /// A 12-frame 320x180 H.264 segment at 30 fps (keyframe interval 4), written by the encoder path.
    static func source(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("source.mp4")
        var settings = EncoderSettings()
        settings.keyframeInterval = 4
        try MediaTestSupport.writeSegment(to: url, width: 320, height: 180, pts: (0..<12).map { Int64($0) * 33_333_333 }, end: 400_000_000, settings: settings)
        return url
    }

    @Test func readerGivesTheParsedSizeAndKeyframesOfAnMP4sPackets() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = try EncodedVideoReader(path: try Self.source(in: directory).path, decodesAudio: false)
        var pictures: [EncodedPicture] = []
        while let packet = try reader.nextPacket() {
            guard case .video(let picture) = packet else {
                Issue.record("an audio packet from a file without sound")
                continue
            }
            pictures.append(picture)
        }
        #expect(pictures.count == 12)
        #expect(pictures.allSatisfy { $0.dimensions == VideoDimensions(width: 320, height: 180) })
        #expect(pictures.first?.isKeyframe == true)
        #expect(pictures.filter(\.isKeyframe).count == 3)
        // Every keyframe carries the stream's parameters with its parameter sets (avcC).
        #expect(pictures.filter(\.isKeyframe).allSatisfy { ($0.parameters?.pointer.pointee.extradata_size ?? 0) > 0 })
        #expect(pictures.filter { !$0.isKeyframe }.allSatisfy { $0.parameters == nil })
    }

    @Test func copyingWriterKeepsThePacketsAndTheirSpacing() throws {
        let directory = try MediaTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(in: directory)
        let reader = try EncodedVideoReader(path: source.path, decodesAudio: false)
        let output = directory.appendingPathComponent("copy.mp4")
        var writer: SegmentWriter?
        var sizes: [Int] = []
        while let packet = try reader.nextPacket() {
            guard case .video(let picture) = packet else { continue }
            if writer == nil {
                writer = try SegmentWriter(
                    url: output, dimensions: picture.dimensions, timescale: picture.timeBase.den, settings: EncoderSettings(), copying: picture.parameters)
            }
            sizes.append(picture.byteCount)
            let time = MediaTime(value: picture.dts * Int64(picture.timeBase.num), timescale: picture.timeBase.den)
            try writer?.append(.encoded(picture), presentationTime: time)
        }
        let summary = try #require(writer).finish(endTime: MediaTime(value: 400, timescale: 1000))
        #expect(summary.frameCount == 12)
        let original = try MediaFileReader(url: source).streamInfo()
        let copied = try MediaFileReader(url: output).streamInfo()
        #expect(copied.frameCount == 12)
        #expect(copied.width == 320 && copied.height == 180)
        #expect(copied.codecTag == "avc1")
        // The same presentation times (in seconds), the same keyframes, in decode order.
        func seconds(_ info: StreamInfo) -> [Double] { info.packets.map { Double($0.pts) * Double(info.timeBase.num) / Double(info.timeBase.den) } }
        #expect(zip(seconds(original), seconds(copied)).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(original.packets.map(\.isKeyframe) == copied.packets.map(\.isKeyframe))
        #expect(sizes.count == 12)
    }
}
