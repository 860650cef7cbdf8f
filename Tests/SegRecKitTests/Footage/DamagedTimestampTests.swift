import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// One damaged timestamp (a flipped bit in an IVF frame header's pts) must not take the
/// rest of the recording with it: before, the frames after it all came "before" it and
/// were dropped (`nonMonotonicTimestamp`, 76 of 150), or the time did not fit in 64-bit
/// ticks and the recording stopped with an error. A real jump ahead stays a jump.
@Suite(
    "Footage: an isolated damaged timestamp", .tags(.footage), .serialized,
    .enabled(
        if: FootageTestSupport.tool("ffmpeg") != nil && FootageTestSupport.tool("ffprobe") != nil, "ffmpeg/ffprobe missing: damaged timestamp tests skipped"))
struct DamagedTimestampTests {
    typealias T = FootageTestSupport

    /// A 150-frame 30 fps VP8 IVF whose frame 73 has `flip` added to its pts.
    static func ivf(flippingFrame73By flip: UInt64) throws -> URL {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clean = dir.appendingPathComponent("clean.ivf")
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libvpx", "-b:v", "1M", clean.path])
        var data = try Data(contentsOf: clean)
        // IVF: a 32-byte file header, then per frame a 4-byte size and an 8-byte pts (little endian).
        var offset = 32
        for _ in 0..<73 {
            let size = data[offset..<(offset + 4)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            offset += 12 + size
        }
        let pts = data[(offset + 4)..<(offset + 12)].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
        #expect(pts == 73)
        let damaged = pts &+ flip
        for byte in 0..<8 { data[offset + 4 + byte] = UInt8(truncatingIfNeeded: damaged >> (8 * byte)) }
        let url = dir.appendingPathComponent("flipped.ivf")
        try data.write(to: url)
        return url
    }

    @Test("a pts 2^30 or 2^48 ticks ahead, the next frame back on time: 150 frames kept, that frame retimed", arguments: [UInt64(1) << 30, UInt64(1) << 48])
    func isolatedOutlierIsRetimed(flip: UInt64) async throws {
        let url = try Self.ivf(flippingFrame73By: flip)
        let (code, out, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 150 && m.frames.written == 150 && m.frames.dropped == 0, "\(m.frames)")
        #expect(m.segments.count == 1)
        let warnings = m.warnings.filter { $0.contains("damaged timestamp") }
        #expect(warnings.count == 1, "\(m.warnings)")
        #expect(warnings.first?.hasPrefix("input frame 73 has a damaged timestamp (pts \(73 + flip), ") == true, "\(warnings)")
        #expect(warnings.first?.contains("given 2.433333 s, one frame period after the frame before") == true, "\(warnings)")
        // The file plays 150 frames, frame 73 at 73/30 s like the others.
        let segment = out.appendingPathComponent("segment-000.mp4")
        #expect(try T.probe(segment).frames == 150)
        let (_, times) = try T.run(
            T.tool("ffprobe")!, ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", segment.path])
        // One line per frame ("0.000000," when side data follows); skip blank lines.
        let pts = times.split(whereSeparator: \.isNewline).compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        #expect(pts.count == 150)
        if pts.count == 150 { #expect(abs(pts[73] - pts[0] - 73.0 / 30.0) < 0.0001, "\(pts[72...74])") }
    }

    @Test("a real 20 s jump ahead (every frame after it) is not an outlier: nothing retimed, nothing dropped") func realJumpIsKept() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let url = dir.appendingPathComponent("jump.mkv")
        try T.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150", "-c:v", "libx264", "-vf", "setpts='if(gte(N,75),PTS+600,PTS)'", "-f",
            "matroska", url.path
        ])
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        let m = try #require(manifest)
        #expect(m.frames.received == 150 && m.frames.written == 150 && m.frames.dropped == 0, "\(m.frames)")
        #expect(!m.warnings.contains { $0.contains("damaged timestamp") }, "\(m.warnings)")
        // The last frame is still 20 s later than without the jump.
        let last = try #require(m.segments.last)
        #expect(abs(last.sessionEndSeconds - m.segments[0].sessionStartSeconds - (150.0 / 30.0 + 20.0)) < 0.001, "\(last.sessionEndSeconds)")
    }
}
