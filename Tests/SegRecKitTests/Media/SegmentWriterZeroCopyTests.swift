import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The encode path without copies: padded pool planes are handed to the encoder
/// as they are (an `AVFrame` over them) and come back to the pool once it lets go; yuv420p
/// pictures reach an encoder that takes yuv420p without conversion; any other pairing is
/// converted. Each file is read back by ffmpeg: pixel format, frame count, and the exact
/// chroma values of flat Cb/Cr planes (which CRF coding keeps within ±2).
@Suite("Media: SegmentWriter zero-copy and pixel layouts", .tags(.media)) struct SegmentWriterZeroCopyTests {
    static let width = 64, height = 48
    static let cb: UInt8 = 90, cr: UInt8 = 200

    /// A stamped picture (index `i`) with flat Cb 90 / Cr 200 in `layout`, planes taken from
    /// `pool` and padded as the producers pad them.
    static func picture(_ i: Int, layout: PixelBuffer.PixelFormat, pool: PixelBufferPool) -> PixelBuffer {
        let (w, h) = (width, height)
        let stamped = MediaTestSupport.stampedFrame(index: i, width: w, height: h)
        var luma = pool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: w, height: h))
        _ = luma.withUnsafeMutableBufferPointer { $0.update(fromContentsOf: stamped.lumaPlane) }
        let stride = PixelBuffer.minimumChromaBytesPerRow(width: w, pixelFormat: layout)
        var chroma = pool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: stride, height: h, pixelFormat: layout))
        for k in 0..<(stride * PixelBuffer.chromaRows(height: h, pixelFormat: layout)) {
            switch layout {
            case .nv12: chroma[k] = k % 2 == 0 ? cb : cr
            case .yuv420p: chroma[k] = k < stride * (h / 2) ? cb : cr
            }
        }
        var buffer = PixelBuffer(width: w, height: h, lumaPlane: luma, lumaBytesPerRow: w, chromaPlane: chroma, chromaBytesPerRow: stride, pixelFormat: layout)
        buffer.clearPadding()
        return buffer
    }

    /// Encodes four pictures (layouts in turn from `layouts`) into a writer opened for
    /// `layouts[0]`, each made from the pool after the previous one was appended; returns
    /// the file and the bytes the pool holds after the last append.
    static func record(_ codec: VideoCodec, layouts: [PixelBuffer.PixelFormat]) throws -> (URL, Int) {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("z.mp4")
        let pool = PixelBufferPool()
        let writer = try SegmentWriter(
            url: url, dimensions: VideoDimensions(width: width, height: height), timescale: 30,
            settings: EncoderSettings(codec: codec, preset: "ultrafast", crf: 18, keyframeInterval: 30), pixelFormat: layouts[0])
        for i in 0..<4 {
            try writer.append(
                picture(i, layout: layouts[i % layouts.count], pool: pool), presentationTime: MediaTime(value: Int64(i), timescale: 30), recyclingInto: pool)
        }
        let pooled = pool.pooledByteCount
        _ = try writer.finish(endTime: MediaTime(value: 4, timescale: 30))
        return (url, pooled)
    }

    /// ffprobe's pix_fmt and frame count, and the first picture's mean Cb and Cr (ffmpeg
    /// decoding to yuv420p); nil without ffmpeg/ffprobe.
    static func readBack(_ url: URL) throws -> (String, Int, Int, Int)? {
        guard FootageTestSupport.tool("ffmpeg") != nil,
            let json = try MediaTestSupport.ffprobeJSON(
                ["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=pix_fmt,nb_read_frames"], file: url),
            let stream = (json["streams"] as? [[String: Any]])?.first
        else { return nil }
        let yuv = try CasesTestSupport.firstPictureYUV420P(url)
        let lumaBytes = width * height
        let planeBytes = (width / 2) * (height / 2)
        guard yuv.count == lumaBytes + 2 * planeBytes else { return nil }
        let meanCb = yuv[lumaBytes..<(lumaBytes + planeBytes)].reduce(0) { $0 + Int($1) } / planeBytes
        let meanCr = yuv[(lumaBytes + planeBytes)...].reduce(0) { $0 + Int($1) } / planeBytes
        return (stream["pix_fmt"] as? String ?? "?", Int(stream["nb_read_frames"] as? String ?? "") ?? -1, meanCb, meanCr)
    }

    @Test("yuv420p pictures go to x264 and x265 as they are, and their planes come back to the pool", arguments: [VideoCodec.h264, .hevc]) func planarZeroCopy(
        codec: VideoCodec
    ) throws {
        let (url, pooled) = try Self.record(codec, layouts: [.yuv420p])
        // Each picture's planes were released by the encoder during avcodec_send_frame and
        // recycled; the next picture reused them: the pool holds one picture's planes.
        #expect(
            pooled
                == (PixelBuffer.paddedLumaByteCount(bytesPerRow: Self.width, height: Self.height)
                    + PixelBuffer.paddedChromaByteCount(bytesPerRow: Self.width / 2, height: Self.height, pixelFormat: .yuv420p)))
        #expect(try RecorderTestSupport.stampedIndices(url) == [0, 1, 2, 3])
        if let (format, frames, cb, cr) = try Self.readBack(url) {
            #expect(format == "yuv420p" && frames == 4)
            #expect(abs(cb - Int(Self.cb)) <= 2 && abs(cr - Int(Self.cr)) <= 2, "Cb \(cb) Cr \(cr)")
        }
    }

    @Test("NV12 pictures: referenced by x264, converted for x265; same colours read back", arguments: [VideoCodec.h264, .hevc]) func nv12(codec: VideoCodec)
        throws
    {
        let (url, pooled) = try Self.record(codec, layouts: [.nv12])
        #expect(pooled > 0)
        #expect(try RecorderTestSupport.stampedIndices(url) == [0, 1, 2, 3])
        if let (format, frames, cb, cr) = try Self.readBack(url) {
            #expect(format == "yuv420p" && frames == 4)
            #expect(abs(cb - Int(Self.cb)) <= 2 && abs(cr - Int(Self.cr)) <= 2, "Cb \(cb) Cr \(cr)")
        }
    }

    @Test("a segment whose pictures change layout (yuv420p, then NV12, …) converts the others") func mixedLayouts() throws {
        let (url, _) = try Self.record(.h264, layouts: [.yuv420p, .nv12])
        #expect(try RecorderTestSupport.stampedIndices(url) == [0, 1, 2, 3])
        if let (_, frames, cb, cr) = try Self.readBack(url) {
            #expect(frames == 4)
            #expect(abs(cb - Int(Self.cb)) <= 2 && abs(cr - Int(Self.cr)) <= 2, "Cb \(cb) Cr \(cr)")
        }
    }

    @Test("a yuv420p crop keeps Cb and Cr apart and aligned") func planarCrop() {
        let pool = PixelBufferPool()
        let picture = Self.picture(0, layout: .yuv420p, pool: pool)
        let crop = picture.cropped(x: 8, y: 4, dimensions: VideoDimensions(width: 32, height: 16), pixelBufferPool: pool)
        #expect(crop.pixelFormat == .yuv420p && crop.chromaBytesPerRow == 16 && crop.hasPlanePadding)
        #expect(crop.chromaPlane[0..<(16 * 8)].allSatisfy { $0 == Self.cb })
        #expect(crop.chromaPlane[(16 * 8)..<(16 * 16)].allSatisfy { $0 == Self.cr })
        #expect(crop.lumaPlane[0..<32] == picture.lumaPlane[(4 * 64 + 8)..<(4 * 64 + 40)])
    }
}
