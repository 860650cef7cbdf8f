import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// Input names (any existing file, a `file:` prefix), truncated YUV4MPEG2 and raw video,
/// and a read blocked on a pipe that a stop request ends.
@Suite(
    "Cases: input reading", .tags(.cases, .media), .serialized,
    .enabled(if: FootageTestSupport.tool("ffmpeg") != nil, "ffmpeg missing: input reading tests skipped")) struct CasesInputReadingTests
{
    typealias T = FootageTestSupport
    typealias C = CasesTestSupport

    @Test("a name with a colon goes to libavformat as file:, and a file: prefix is accepted") func namesWithColons() async throws {
        let options = VideoSourceOptions()
        #expect(try options.demuxer(for: "-").url == "pipe:0")
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("cam1:2024-05-01.ivf")
        try T.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=30", "-frames:v", "12", "-c:v", "libvpx", clip.path])
        #expect(try options.demuxer(for: clip.path).url == "file:" + clip.path)
        #expect(try options.demuxer(for: "file:" + clip.path).url == "file:" + clip.path)
        #expect(throws: MediaInputError.inputNotFound(path: "file:/no/such/cam1:x.ivf")) { try options.demuxer(for: "file:/no/such/cam1:x.ivf") }
        for given in [clip.path, "file:" + clip.path] {
            let (code, _, manifest) = try await T.record(["--source", given])
            #expect(code == 0)
            #expect(C.shapes(manifest) == [[64, 48, 12]])
        }
        // A relative name: libavformat alone would read "cam1" as a protocol.
        #expect(VideoSourceOptions.fileSystemPath(of: "file:" + clip.path) == clip.path)
    }

    @Test("a YUV4MPEG2 file cut inside a frame keeps the whole frames and names the bytes left over", arguments: [1, 500, 4613]) func truncatedY4M(
        cutBytes: Int
    ) async throws {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("cut.y4m")
        try C.writeY4M(to: url, width: 64, height: 48, format: "yuv420p", frames: 6) { i in
            C.y4mFrame(width: 64, height: 48, format: "yuv420p", luma: { x, y in 16 + (x + y + i) % 200 })
        }
        let data = try Data(contentsOf: url)
        try data.prefix(data.count - cutBytes).write(to: url)
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 65)
        let m = try #require(manifest)
        #expect(m.stopReason == .error)
        #expect(m.frames.written == 5)
        let leftover = 6 + 64 * 48 * 3 / 2 - cutBytes
        #expect(m.error?.contains("truncated: \(leftover) byte\(leftover == 1 ? "" : "s") left over after the last whole frame") == true, "\(m.error ?? "")")
    }

    @Test("raw video whose size is not a whole number of frames keeps the whole frames, exit 65") func truncatedRaw() async throws {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("cut.yuv")
        try Data(count: 32 * 16 * 3 / 2 * 4 + 77).write(to: url)
        let (code, _, manifest) = try await T.record(["--source", url.path, "--video-size", "32x16"])
        #expect(code == 65)
        let m = try #require(manifest)
        #expect(m.frames.written == 4 && m.stopReason == .error)
        #expect(m.error?.contains("77 bytes left over") == true, "\(m.error ?? "")")
    }

    @Test("a whole YUV4MPEG2 file ends cleanly (no bytes left over)") func wholeY4M() async throws {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("whole.y4m")
        try C.writeY4M(to: url, width: 32, height: 16, format: "yuv444p", frames: 4) { _ in
            C.y4mFrame(width: 32, height: 16, format: "yuv444p", luma: { x, _ in 16 + x })
        }
        let (code, _, manifest) = try await T.record(["--source", url.path])
        #expect(code == 0)
        #expect(manifest?.stopReason == .endOfStream && manifest?.frames.written == 4)
    }

    @Test("a stop request ends a read blocked on a named pipe that never gets a writer") func stopWhileOpening() throws {
        let fifo = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("idle.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let stop = RecordingStopRequest()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { stop.request() }
        let started = ContinuousClock.now
        #expect(throws: MediaInputError.interrupted(path: fifo.path)) { try VideoFileDecoder(path: fifo.path, stopRequest: stop) }
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test("a stop request ends a read blocked on a pipe: the pictures received come out, then the end") func stopWhileWaitingForData() throws {
        let fifo = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("live.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let header = Array("YUV4MPEG2 W32 H16 F30:1 Ip A1:1 C420jpeg\n".utf8)
        let frame = Array("FRAME\n".utf8) + C.y4mFrame(width: 32, height: 16, format: "yuv420p", luma: { x, _ in 16 + x })
        let bytes = header + frame + frame + frame
        let path = fifo.path
        // The writer keeps the pipe open after three frames, as a stalled camera would.
        let writer = Thread {
            let fd = open(path, O_WRONLY)
            _ = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
            Thread.sleep(forTimeInterval: 3)
            close(fd)
        }
        writer.start()
        let stop = RecordingStopRequest()
        let decoder = try VideoFileDecoder(path: fifo.path, stopRequest: stop)
        var pictures = 0
        while pictures < 3, try decoder.nextPicture() != nil { pictures += 1 }
        #expect(pictures == 3)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { stop.request() }
        let started = ContinuousClock.now
        #expect(try decoder.nextPicture() == nil)
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(decoder.wasInterrupted)
    }
}
