import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Damaged input is recorded past, as ffmpeg decodes it: `p01` (a TS with lost transport
/// packets), `p15` (an HLS playlist whose size changes after damage), and the same kind of
/// damage at other points and in other containers.
@Suite(
    "Cases: input damage", .tags(.cases, .media), .serialized,
    .enabled(if: CasesTestSupport.ready, "../shared/cases/ or ffmpeg/ffprobe missing: case tests skipped")) struct CasesInputDamageTests
{
    typealias T = FootageTestSupport
    typealias C = CasesTestSupport

    @Test("p01: a TS with three lost packets keeps all 150 frames, counts the damage, warns once") func tsLostPackets() async throws {
        let (code, out, manifest) = try await T.record(["--source", C.file("p01_ts_3_packets_lost.ts").path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.stopReason == .endOfStream)
        #expect(C.shapes(m) == [[320, 240, 150]])
        #expect(m.frames.received == 150 && m.frames.written == 150 && m.frames.dropped == 0)
        #expect(m.frames.corruptPackets == 1)
        let damage = m.warnings.filter { $0.contains("input damaged") }
        #expect(damage.count == 1, "\(m.warnings)")
        // The run starts at packet 51; whether libavcodec's frame threads flag the next
        // picture as concealed (extending the run to "packets 51-56") varies between runs.
        #expect(damage.first.map { $0.contains("at packet 51 ") || $0.contains("at packets 51-") } == true, "\(damage)")
        #expect(try T.probe(out.appendingPathComponent("segment-000.mp4")).frames == 150)
    }

    @Test("p15: HLS whose second half is another size gives two segments, 120 frames") func hlsSizeChangeAfterDamage() async throws {
        let (code, out, manifest) = try await T.record(["--source", C.file("p15_hls/mixed.m3u8").path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(C.shapes(m) == [[240, 136, 60], [320, 180, 60]])
        #expect(m.segments.last?.startReason == .dimensionsChanged)
        #expect(m.frames.written == 120 && (m.frames.corruptPackets ?? 0) >= 1)
        for segment in m.segments {
            let probed = try T.probe(out.appendingPathComponent(segment.file))
            let shape: [Int] = [probed.width, probed.height, probed.frames]
            #expect(shape == [segment.width, segment.height, 60])
        }
    }

    /// The kind p15 belongs to, with timestamps that start again: two (or three) encoder
    /// sessions of different sizes, each from time 0, concatenated as MPEG-TS (a
    /// container that allows discontinuities). Every frame is kept: the frames after each
    /// reset continue one frame period after the last, one warning per reset, a segment
    /// per size. (Before: 60 of 120 kept, 60 dropped `nonMonotonicTimestamp`, exit 0.)
    @Test(
        "MPEG-TS sessions that restart from time 0 keep every frame, a segment per size",
        arguments: [["320x180", "240x136"], ["320x180", "240x136", "426x240"], ["320x240", "320x240"]]) func timestampResets(sizes: [String]) async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        var joined = Data()
        for (k, size) in sizes.enumerated() {
            let part = dir.appendingPathComponent("part\(k).ts")
            try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "45", "-c:v", "libx264", "-g", "15", "-f", "mpegts", part.path])
            joined.append(try Data(contentsOf: part))
        }
        let url = dir.appendingPathComponent("restarts.ts")
        try joined.write(to: url)
        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.written == 45 * sizes.count && m.frames.dropped == 0, "\(m.frames)")
        // Runs of equal sizes merge into one segment.
        var runs: [[Int]] = []
        for size in sizes {
            let wh = size.split(separator: "x").map { Int($0)! }
            if let last = runs.last, last[0] == wh[0], last[1] == wh[1] { runs[runs.count - 1][2] += 45 } else { runs.append(wh + [45]) }
        }
        #expect(C.shapes(m) == runs)
        #expect(m.warnings.filter { $0.contains("input timestamps jump") }.count == sizes.count - 1, "\(m.warnings)")
        // One timeline: each segment ends where the next starts, the frames one period apart.
        for (a, b) in zip(m.segments, m.segments.dropFirst()) { #expect(a.sessionEnd == b.sessionStart) }
        #expect(try RecordingVerifier.verify(out).passed)
    }

    /// 20 000 bytes zeroed in the middle of a 150-frame constant-rate clip swallow whole
    /// pictures the demuxer never delivers: they are counted as lost (`corrupt`) from the
    /// gap in the timestamps, so the manifest accounts for all 150 frames the source had.
    @Test("pictures the damage swallowed whole are counted: received = the source's 150", arguments: ["mpegts", "matroska"]) func swallowedPicturesAreCounted(
        container: String
    ) async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("clip." + (container == "mpegts" ? "ts" : "mkv"))
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libx264", "-g", "30", "-f", container, clip.path])
        var data = try Data(contentsOf: clip)
        let at = data.count / 2 / 188 * 188
        data.replaceSubrange(at..<(at + 20_000), with: Data(count: 20_000))
        let url = dir.appendingPathComponent("zeroed." + clip.pathExtension)
        try data.write(to: url)
        let reference = try T.decodedFrameCount(url)
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.written == reference, "ffprobe decodes \(reference)")
        #expect(m.frames.received == 150, "\(m.frames)")
        #expect(m.frames.dropped == 150 - reference && m.frames.droppedReasons["corrupt"] == 150 - reference, "\(m.frames)")
    }

    /// p01 with 4 TS packets zeroed or removed at `fraction` of the file.
    @Test("the TS damaged elsewhere keeps every frame ffprobe decodes", arguments: [(0.2, true), (0.45, false), (0.7, true), (0.9, false)])
    func otherDamagePoints(fraction: Double, zeroed: Bool) async throws {
        let data = try Data(contentsOf: C.file("p01_ts_3_packets_lost.ts"))
        let at = Int(Double(data.count) * fraction) / 188 * 188 + 40
        var damaged = data.prefix(at)
        if zeroed { damaged.append(Data(count: 188 * 4)) }
        damaged.append(data.suffix(from: at + 188 * 4))
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("damaged.ts")
        try damaged.write(to: url)
        let reference = try T.decodedFrameCount(url)
        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.written == reference, "ffprobe decodes \(reference)")
        #expect(m.frames.received == m.frames.written + m.frames.dropped)
        #expect(m.frames.dropped == (m.frames.droppedReasons["corrupt"] ?? 0))
        #expect(m.warnings.filter { $0.contains("input damaged") }.count <= 2)
        let segment = try #require(m.segments.first)
        #expect(try T.probe(out.appendingPathComponent(segment.file)).frames == m.frames.written)
    }

    @Test("MKV and MP4 with a damaged packet keep what ffprobe decodes", arguments: ["mkv", "mp4"]) func damagedPacketInOtherContainers(_ container: String)
        async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clean = dir.appendingPathComponent("clean.\(container)")
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-frames:v", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", clean.path]
        )
        var bytes = try Data(contentsOf: clean)
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle..<(middle + 400), with: Data(count: 400))
        let damaged = dir.appendingPathComponent("damaged.\(container)")
        try bytes.write(to: damaged)
        let reference = try T.decodedFrameCount(damaged)
        #expect(reference > 30 && reference <= 60)
        let (code, _, manifest) = try await T.record(["--source", damaged.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.written == reference)
        #expect(m.stopReason == .endOfStream)
    }
}
