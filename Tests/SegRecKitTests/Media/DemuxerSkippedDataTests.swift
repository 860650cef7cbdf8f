import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Damage the demuxer skips whole: Matroska/WebM resync past unreadable bytes to the next
/// cluster and log an error, and the pictures in those bytes never reach the decoder. The
/// clips are intra-only, so no picture after the damage is concealed: the demuxer's error
/// is the only sign, and it must be enough to count the swallowed pictures (before, it
/// took a concealed picture right after the gap, which libavcodec's frame threads report
/// or not from run to run).
@Suite(
    "Media: pictures the demuxer skips are counted", .tags(.media), .serialized,
    .enabled(if: FootageTestSupport.tool("ffmpeg") != nil && FootageTestSupport.tool("ffprobe") != nil, "ffmpeg/ffprobe missing: demuxer damage tests skipped"))
struct DemuxerSkippedDataTests {
    typealias T = FootageTestSupport

    /// A 150-frame, 30 fps, 320x240 intra-only clip encoded with `codec` into `container`.
    static func clip(codec: [String], container: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("clip." + (container == "webm" ? "webm" : "mkv"))
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150"] + codec + ["-g", "1", "-f", container, url.path])
        return url
    }

    /// The byte positions of the video packets' data (`ffprobe -show_entries packet=pos`).
    static func packetPositions(_ file: URL) throws -> [Int] {
        let (_, text) = try T.run(T.tool("ffprobe")!, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos", "-of", "csv=p=0", file.path])
        return text.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    @Test(
        "20 000 bytes zeroed or cut from a block header: received = the source's 150, the rest dropped corrupt",
        arguments: [("libx264", "matroska", true), ("libx264", "matroska", false), ("libvpx", "webm", true), ("libvpx", "webm", false)])
    func skippedPicturesAreCounted(codec: String, container: String, zeroed: Bool) async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let codecArguments = codec == "libvpx" ? ["-c:v", "libvpx", "-b:v", "1M"] : ["-c:v", "libx264"]
        let clip = try Self.clip(codec: codecArguments, container: container, in: dir)
        let positions = try Self.packetPositions(clip)
        try #require(positions.count == 150, "ffprobe lists \(positions.count) packets")
        // A SimpleBlock's data follows its track number (1 byte here), timecode (2) and
        // flags (1): damage from the track number on makes the demuxer skip to a cluster.
        let at = positions[75] - 4
        var data = try Data(contentsOf: clip)
        if zeroed { data.replaceSubrange(at..<(at + 20_000), with: Data(count: 20_000)) } else { data.removeSubrange(at..<(at + 20_000)) }
        let url = dir.appendingPathComponent("damaged." + clip.pathExtension)
        try data.write(to: url)
        let reference = try T.decodedFrameCount(url)
        try #require(reference > 100 && reference < 150, "the damage swallows some pictures: ffprobe decodes \(reference)")

        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.written == reference, "ffprobe decodes \(reference)")
        #expect(m.frames.received == 150, "\(m.frames)")
        #expect(m.frames.dropped == 150 - reference && m.frames.droppedReasons["corrupt"] == 150 - reference, "\(m.frames)")
        let damage = m.warnings.filter { $0.contains("input damaged") }
        #expect(damage.count == 1, "\(m.warnings)")
        #expect(damage.first?.contains("\(150 - reference) pictures lost") == true, "\(damage)")
        #expect(damage.first?.contains("the demuxer reported unreadable data (") == true, "\(damage)")
        #expect(try T.probe(out.appendingPathComponent("segment-000.mp4")).frames == reference)
    }

    /// The same damage in other containers, where it shows differently: FLV's demuxer
    /// logs `Packet mismatch` while probing reads ahead (before any packet is read), MP4
    /// keeps the zeroed samples (the decoder rejects them, and their pictures are also
    /// missing from the timestamps: counted once, not twice), MPEG-PS and NUT resync, and
    /// AVI skips the damaged chunks without a word and renumbers the rest (only the frame
    /// count its header declares tells; its index after the last packet shows the file
    /// was not cut short).
    @Test(
        "the lost pictures are counted once in every container: received = 150",
        arguments: [
            ("flv", "libx264", 8, true), ("flv", "libx264", 8, false), ("mp4", "libx264", 0, true), ("mpeg", "mpeg2video", 8, true),
            ("nut", "libx264", 8, true), ("nut", "libx264", 8, false), ("avi", "libx264", 8, true), ("avi", "libx264", 8, false)
        ]) func lostPicturesCountedOnce(format: String, codec: String, offset: Int, zeroed: Bool) async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("clip." + format)
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", codec, "-g", "1", "-f", format, clip.path])
        let positions = try Self.packetPositions(clip)
        try #require(positions.count == 150, "ffprobe lists \(positions.count) packets")
        let at = positions[75] - offset
        var data = try Data(contentsOf: clip)
        if zeroed { data.replaceSubrange(at..<(at + 20_000), with: Data(count: 20_000)) } else { data.removeSubrange(at..<(at + 20_000)) }
        let url = dir.appendingPathComponent("damaged." + format)
        try data.write(to: url)
        let reference = try T.decodedFrameCount(url)
        try #require(reference > 100 && reference < 150, "the damage loses some pictures: ffprobe decodes \(reference)")

        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.written == reference, "ffprobe decodes \(reference)")
        #expect(m.frames.received == 150, "\(m.frames)")
        #expect(m.frames.dropped == 150 - reference && m.frames.droppedReasons["corrupt"] == 150 - reference, "\(m.frames)")
        let damage = m.warnings.filter { $0.contains("input damaged") }
        #expect(damage.count == 1, "\(m.warnings)")
        #expect(damage.first?.contains("\(150 - reference) pictures lost") == true, "\(damage)")
        #expect(try T.probe(out.appendingPathComponent("segment-000.mp4")).frames == reference)
    }

    /// The middle half zeroed in a clip with B-frames: after the damage the decoder puts
    /// out pictures behind later ones, so a gap above the highest time seen is settled
    /// only when the run closes, net of the pictures that came late (before: 342 received
    /// of 150 in MPEG-TS, every forward gap counted again after each step back).
    @Test("half of a B-frame clip zeroed: received = 150, not a gap counted per step back", arguments: ["mpegts", "nut"])
    func reorderedPicturesAfterDamageCountOnce(format: String) async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("clip." + format)
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libx264", "-f", format, clip.path])
        var data = try Data(contentsOf: clip)
        let quarter = data.count / 4
        data.replaceSubrange(quarter..<(3 * quarter), with: Data(count: 2 * quarter))
        let url = dir.appendingPathComponent("half." + format)
        try data.write(to: url)
        let reference = try T.decodedFrameCount(url)
        try #require(reference > 20 && reference < 100, "ffprobe decodes \(reference)")
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 150, "\(m.frames)")
        // Pictures put out of order by more than the container allows may be dropped
        // nonMonotonicTimestamp; every other one ffprobe decodes is written.
        let outOfOrder = m.frames.droppedReasons["nonMonotonicTimestamp"] ?? 0
        #expect(m.frames.written + outOfOrder == reference, "ffprobe decodes \(reference); \(m.frames)")
        #expect(m.frames.droppedReasons["corrupt"] == 150 - reference, "\(m.frames)")
    }

    @Test(
        "Matroska/WebM cut short: exit 65 with libavformat's 'File ended prematurely', the frames before kept",
        arguments: [("libx264", "matroska"), ("libvpx", "webm")]) func matroskaCutShortIsAnError(codec: String, container: String) async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let codecArguments = codec == "libvpx" ? ["-c:v", "libvpx", "-b:v", "1M"] : ["-c:v", "libx264"]
        let clip = try Self.clip(codec: codecArguments, container: container, in: dir)
        let data = try Data(contentsOf: clip)
        let url = dir.appendingPathComponent("cut." + clip.pathExtension)
        try data.prefix(data.count * 6 / 10).write(to: url)
        let reference = try T.decodedFrameCount(url)
        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 65)
        let m = try #require(manifest)
        #expect(m.stopReason == .error)
        #expect(m.error?.contains("the input cannot be read past packet") == true, "\(String(describing: m.error))")
        #expect(m.error?.contains("File ended prematurely") == true, "\(String(describing: m.error))")
        #expect(m.frames.written == reference, "ffprobe decodes \(reference)")
        #expect(try T.probe(out.appendingPathComponent("segment-000.mp4")).frames == reference)
    }

    @Test("an AVI cut short is still an error naming the frames kept (exit 65)") func truncatedAVIIsAnError() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("clip.avi")
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libx264", "-g", "1", clip.path])
        let data = try Data(contentsOf: clip)
        let url = dir.appendingPathComponent("cut.avi")
        try data.prefix(data.count * 6 / 10).write(to: url)
        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 65)
        let m = try #require(manifest)
        #expect(m.stopReason == .error)
        #expect(m.error?.contains("truncated: the file ends after") == true, "\(String(describing: m.error))")
        #expect(m.error?.contains("of its 150 frames") == true, "\(String(describing: m.error))")
        // The frames before the cut are kept and playable.
        #expect(try T.probe(out.appendingPathComponent("segment-000.mp4")).frames == m.frames.written)
        #expect(m.frames.written > 80)
    }

    /// An MP4's sample table lists every picture, so its demuxer cannot swallow one: five
    /// zeroed samples just before a 2 s still period lose those five pictures, not the 65
    /// frame periods of the gap (the old count, 210 received of 150). MPEG-PS, which
    /// resyncs without a word, still counts the gap inside a run of damage.
    @Test("damage beside a still period in an MP4: the 5 rejected pictures are lost, the still period is not") func stillPeriodBesideDamageInMP4() async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("vfr.mp4")
        try T.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libx264", "-g", "1", "-vf", "setpts='if(gte(N,75),PTS+60,PTS)'",
            "-fps_mode", "vfr", "-movflags", "+faststart", clip.path
        ])
        let (_, text) = try T.run(
            T.tool("ffprobe")!, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size", "-of", "csv=p=0", clip.path])
        let packets = text.split(whereSeparator: \.isNewline).map { $0.split(separator: ",").compactMap { Int($0) } }
        try #require(packets.count == 150 && packets.allSatisfy { $0.count == 2 }, "\(packets.count) packets")
        var data = try Data(contentsOf: clip)
        for packet in packets[70..<75] { data.replaceSubrange(packet[1]..<(packet[1] + packet[0]), with: Data(count: packet[0])) }
        let url = dir.appendingPathComponent("damaged.mp4")
        try data.write(to: url)
        let reference = try T.decodedFrameCount(url)
        try #require(reference == 145, "ffprobe decodes \(reference)")
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 150 && m.frames.written == 145 && m.frames.droppedReasons["corrupt"] == 5, "\(m.frames)")
    }

    @Test("a clean 1 s jump in the timestamps is a still period, not a loss") func cleanGapIsNotALoss() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let url = dir.appendingPathComponent("gap.mkv")
        try T.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libx264", "-g", "1", "-vf", "setpts='if(gte(N,75),PTS+30,PTS)'",
            "-f", "matroska", url.path
        ])
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 150 && m.frames.written == 150 && m.frames.dropped == 0, "\(m.frames)")
        #expect(!m.warnings.contains { $0.contains("input damaged") }, "\(m.warnings)")
    }
}
