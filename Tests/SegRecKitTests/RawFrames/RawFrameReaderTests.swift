import CFFmpeg
import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The raw frame reader hands out what libavformat + libavcodec (``VideoFileDecoder``) hand
/// out for the same YUV4MPEG2 or raw video: the same stream facts, notes, timestamps,
/// pixels and end.
@Suite("Raw frames: RawFrameReader against VideoFileDecoder", .tags(.media)) struct RawFrameReaderTests {
    /// A YUV4MPEG2 file of `frames` pictures of pseudo-random bytes (`header` after the magic),
    /// `cut` bytes short of its end.
    static func writeY4M(
        _ name: String, header: String, format: AVPixelFormat, width: Int32, height: Int32, frames: Int, cut: Int = 0, frameLine: String = "FRAME"
    ) throws -> URL {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent(name)
        let size = Int(av_image_get_buffer_size(format, width, height, 1))
        var data = Data("YUV4MPEG2 \(header)\n".utf8)
        var state: UInt32 = 12345
        for _ in 0..<frames {
            data.append(Data((frameLine + "\n").utf8))
            data.append(
                contentsOf: (0..<size).map { _ in
                    state = state &* 1_103_515_245 &+ 12345
                    return UInt8(truncatingIfNeeded: state >> 16)
                })
        }
        try data.prefix(data.count - cut).write(to: url)
        return url
    }

    /// Every picture and fact of `path` read both ways, compared; the pictures' count.
    @discardableResult static func compareBothWays(_ path: String, options: VideoSourceOptions = VideoSourceOptions(), keepsYUV420P: Bool) throws -> Int {
        let reader = try #require(
            try RawFrameReader.open(path: path, options: options, pixelBufferPool: PixelBufferPool(), stopRequest: nil, keepsYUV420P: keepsYUV420P))
        let decoder = try VideoFileDecoder(path: path, options: options, keepsYUV420P: keepsYUV420P)
        #expect(reader.timeBase == decoder.timeBase && reader.frameRate == decoder.frameRate && reader.nominalFrameRate == decoder.nominalFrameRate)
        #expect(reader.fieldOrder == decoder.fieldOrder)
        defer {
            #expect(
                reader.presentationEnd == decoder.presentationEnd,
                "\(path): end \(String(describing: reader.presentationEnd)), libavformat \(String(describing: decoder.presentationEnd))")
        }
        #expect(reader.streamDimensions == decoder.streamDimensions && reader.streamPictureDescription == decoder.streamPictureDescription)
        var count = 0
        while true {
            let a = Result { try reader.nextPicture() }
            let b = Result { try decoder.nextPicture() }
            switch (a, b) {
            case (.success(let x?), .success(let y?)):
                #expect(x.pts == y.pts && x.index == y.index && x.decodedDimensions == y.decodedDimensions && x.pictureDescription == y.pictureDescription)
                var (p, q) = (x.pixelBuffer, y.pixelBuffer)
                p.clearPadding()
                q.clearPadding()
                #expect(p.pixelFormat == q.pixelFormat && p.lumaPlane == q.lumaPlane && p.chromaPlane == q.chromaPlane, "picture \(x.index) of \(path)")
                count += 1
                continue
            case (.success(nil), .success(nil)): break
            case (.failure(let x), .failure(let y)): #expect("\(x)" == "\(y)")
            default: Issue.record("\(path): the reader gave \(a), libavformat \(b)")
            }
            break
        }
        #expect(reader.notes == decoder.notes && reader.corruptPackets == decoder.corruptPackets)
        return count
    }

    @Test(
        "YUV4MPEG2 in every sample layout and parity, kept yuv420p or converted to NV12",
        arguments: [
            ("W64 H48 F30:1 Ip A1:1 C420jpeg", AV_PIX_FMT_YUV420P, 64, 48), ("W65 H49 F25:1 C420mpeg2 XCOLORRANGE=FULL", AV_PIX_FMT_YUV420P, 65, 49),
            ("W64 H48 F30000:1001 It A16:11 C422", AV_PIX_FMT_YUV422P, 64, 48), ("W33 H17 C444", AV_PIX_FMT_YUV444P, 33, 17),
            ("W64 H48 Cmono", AV_PIX_FMT_GRAY8, 64, 48), ("W64 H48 C420p10", AV_PIX_FMT_YUV420P10LE, 64, 48), ("W2 H2 C444alpha", AV_PIX_FMT_YUVA444P, 2, 2),
            ("W64 H48 F7:3 XYSCSS=444P12", AV_PIX_FMT_YUV444P12LE, 64, 48)
        ] as [(String, AVPixelFormat, Int32, Int32)]) func y4m(header: String, format: AVPixelFormat, width: Int32, height: Int32) throws
    {
        let url = try Self.writeY4M("clip.y4m", header: header, format: format, width: width, height: height, frames: 5)
        #expect(try Self.compareBothWays(url.path, keepsYUV420P: true) == 5)
        #expect(try Self.compareBothWays(url.path, keepsYUV420P: false) == 5)
    }

    @Test("a truncated last frame, a header with no frame, FRAME lines with parameters, a damaged FRAME line") func ends() throws {
        let header = "W64 H48 F30:1 C420jpeg"
        let cut = try Self.writeY4M("cut.y4m", header: header, format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 6, cut: 1000)
        #expect(try Self.compareBothWays(cut.path, keepsYUV420P: true) == 5)
        let inLine = try Self.writeY4M("cut2.y4m", header: header, format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 6, cut: 4608 + 3)
        #expect(try Self.compareBothWays(inLine.path, keepsYUV420P: true) == 5)
        let empty = try Self.writeY4M("empty.y4m", header: header, format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 0)
        #expect(try Self.compareBothWays(empty.path, keepsYUV420P: true) == 0)
        let params = try Self.writeY4M(
            "params.y4m", header: header, format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 9,
            frameLine: "FRAME Ip A1:1 X" + String(repeating: "y", count: 60))
        #expect(try Self.compareBothWays(params.path, keepsYUV420P: true) == 9)
        // FRAME lines longer than FFmpeg's 80 bytes: refused before their start is looked at.
        let long = try Self.writeY4M(
            "long.y4m", header: header, format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 3, frameLine: "FRAME " + String(repeating: "x", count: 80))
        #expect(try Self.compareBothWays(long.path, keepsYUV420P: true) == 0)
        // A damaged FRAME line in the middle: skipped as libavformat skips it, counted as damage.
        var damaged = try Data(contentsOf: params)
        let second = try #require(damaged.range(of: Data("FRAME".utf8), in: 200..<damaged.count))
        damaged.replaceSubrange(second.lowerBound..<second.lowerBound + 2, with: Data("XX".utf8))
        try damaged.write(to: params)
        _ = try Self.compareBothWays(params.path, keepsYUV420P: true)
    }

    @Test(
        "raw video in the formats the tests cover, odd sizes and a cut-short file",
        arguments: [("nv12", 64, 48, 0), ("yuv420p", 65, 49, 0), ("yuyv422", 64, 48, 0), ("rgb24", 30, 20, 0), ("yuv420p", 64, 48, 100)]) func raw(
            format: String, width: Int, height: Int, cut: Int
        ) throws
    {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("clip.yuv")
        let size = Int(av_image_get_buffer_size(av_get_pix_fmt(format), Int32(width), Int32(height), 1))
        try Data((0..<(size * 4 - cut)).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: url)
        var options = VideoSourceOptions(videoSize: VideoDimensions(width: width, height: height), pixelFormat: format, frameRate: try FrameRate(30))
        #expect(try Self.compareBothWays(url.path, options: options, keepsYUV420P: true) == (cut == 0 ? 4 : 3))
        options.frameRate = try FrameRate(30000, 1001)
        #expect(try Self.compareBothWays(url.path, options: options, keepsYUV420P: false) == (cut == 0 ? 4 : 3))
    }

    @Test("FootageInput reads raw frame streams itself and hands the rest to libavformat") func routing() throws {
        let y4m = try Self.writeY4M("a.y4m", header: "W64 H48 F30:1", format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 1)
        #expect(try FootageInput.open(path: y4m.path) is RawFrameReader)
        // A rate libavformat rounds (119.88 fps becomes r_frame_rate 120) stays with it.
        let rounded = try Self.writeY4M("b.y4m", header: "W64 H48 F120000:1001", format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 1)
        #expect(try FootageInput.open(path: rounded.path) is VideoFileDecoder)
        // Content decides, not the name: a Y4M named .mp4 is a raw frame stream.
        let named = y4m.deletingLastPathComponent().appendingPathComponent("c.mp4")
        try FileManager.default.copyItem(at: y4m, to: named)
        #expect(try FootageInput.open(path: named.path) is RawFrameReader)
        let raw = y4m.deletingLastPathComponent().appendingPathComponent("d.yuv")
        try Data(count: 64 * 48 * 3 / 2).write(to: raw)
        #expect(try FootageInput.open(path: raw.path, options: VideoSourceOptions(videoSize: VideoDimensions(width: 64, height: 48))) is RawFrameReader)
        #expect(
            try FootageInput.open(path: raw.path, options: VideoSourceOptions(videoSize: VideoDimensions(width: 64, height: 48), pixelFormat: "pal8"))
                is VideoFileDecoder)
        let (ntsc, thousand, nearNTSC, near240) = (try FrameRate(30000, 1001), try FrameRate(1000), try FrameRate(2997, 100), try FrameRate(242))
        #expect(RawStreamFormat.isRateReadHere(ntsc) && RawStreamFormat.isRateReadHere(thousand))
        #expect(!RawStreamFormat.isRateReadHere(nearNTSC) && !RawStreamFormat.isRateReadHere(near240))
    }

    @Test("a named pipe: YUV4MPEG2 is read here; anything else goes on to libavformat with the bytes already read") func namedPipe() throws {
        let y4m = try Self.writeY4M("p.y4m", header: "W64 H48 F30:1", format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 7)
        let other = y4m.deletingLastPathComponent().appendingPathComponent("p.yuv")  // not YUV4MPEG2: raw bytes libavformat cannot probe
        try Data("RIFF".utf8 + [UInt8](repeating: 7, count: 5000)).write(to: other)
        for (file, isY4M) in [(y4m, true), (other, false)] {
            let fifo = y4m.deletingLastPathComponent().appendingPathComponent("in-\(isY4M).fifo")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/bin/sh")
            writer.arguments = ["-c", "cat '\(file.path)' > '\(fifo.path)'"]
            try writer.run()
            defer { writer.waitUntilExit() }
            if isY4M {
                let reader = try FootageInput.open(path: fifo.path)
                #expect(reader is RawFrameReader)
                var count = 0
                while try reader.nextPicture() != nil { count += 1 }
                #expect(count == 7)
            } else {
                // libavformat gets every byte, the first ones included: it names what it found.
                do {
                    let decoder = try FootageInput.open(path: fifo.path)
                    Issue.record("\(type(of: decoder)) opened bytes that are no video")
                } catch { #expect("\(error)".contains("libavformat cannot open it"), "\(error)") }
            }
        }
    }

    @Test("pictures are read into the same few pool planes for the whole recording") func reusesPoolPlanes() throws {
        let url = try Self.writeY4M("reuse.y4m", header: "W64 H48 F30:1", format: AV_PIX_FMT_YUV420P, width: 64, height: 48, frames: 20)
        let pool = PixelBufferPool()
        let reader = try #require(
            try RawFrameReader.open(path: url.path, options: VideoSourceOptions(), pixelBufferPool: pool, stopRequest: nil, keepsYUV420P: true))
        var addresses: Set<UnsafeRawPointer> = []
        while let picture = try reader.nextPicture() {
            guard case .pixelBuffer(let buffer) = picture.pixels else {
                Issue.record("yuv420p kept is read into pool planes")
                return
            }
            buffer.lumaPlane.withUnsafeBytes { _ = addresses.insert(UnsafeRawPointer($0.baseAddress!)) }
            pool.recycle(buffer)
        }
        #expect(reader.picturesRead == 20 && addresses.count <= 2, "\(addresses.count) luma planes for 20 pictures")
    }

    @Test("a picture beyond the bounds is refused naming the file, the field and what is allowed, before anything is allocated") func bounds() throws {
        for header in ["W16385 H16", "W16384 H16384 C444p16", "W100000 H100000"] {
            let url = try Self.writeY4M("big.y4m", header: header, format: AV_PIX_FMT_YUV420P, width: 2, height: 2, frames: 1)
            do {
                _ = try FootageInput.open(path: url.path)
                Issue.record("\(header) was accepted")
            } catch {
                guard case .badInput(let path, let field, let detail) = error else { throw error }
                #expect(path == url.path && field == "YUV4MPEG2 header W, H" && detail.contains("allowed: width and height 1–16384"), "\(detail)")
            }
        }
    }
}
