import CFFmpeg
import Foundation

/// A still picture of a segment for the report: its first frame, decoded with libavcodec,
/// scaled with libswscale (`SWS_AREA`) to fit a box, turned upright by the stream's display
/// matrix (what a player shows: a file whose `rotation` is −90 gives a poster turned 90°
/// clockwise), and encoded as a JPEG by libavcodec's `mjpeg` encoder (`yuvj420p`, one
/// packet = one JFIF file) written as is.
package enum PosterFrameExtractor {
    /// What ``extract(from:to:maximumSide:)`` wrote and learned about the file.
    package struct Poster: Sendable, Equatable {
        /// Size of the image written, in pixels (upright: after the display matrix's turn).
        package let width: Int, height: Int
        /// The clockwise turn applied to make it upright (from the display matrix).
        package let rotation: VideoRotationAngle
        /// Size of the decoded frame, in pixels.
        package let frameWidth: Int, frameHeight: Int
        /// The RFC 6381 `codecs` value of the video stream, e.g. `avc1.64001F`, `hvc1` or
        /// `hev1` (with profile, tier and level when known), for `<source type=…>`.
        package let codecs: String
        /// Bytes of the JPEG file.
        package let byteCount: Int
    }

    /// Decodes the first frame of `input` and writes it to `output` (created exclusively:
    /// an existing file is an error) as a JPEG no larger than `maximumSide` on either side
    /// (aspect ratio kept, sides even, never scaled up), turned upright by the stream's
    /// display matrix (a quarter turn; any other angle is left unturned).
    /// - Throws: ``FFmpegError`` (`AVERROR_INVALIDDATA` when no frame decodes,
    ///   `AVERROR_ENCODER_NOT_FOUND` without the mjpeg encoder, `EEXIST` when `output`
    ///   exists, errno values when writing fails).
    package static func extract(from input: String, to output: String, maximumSide: Int = 320) throws(FFmpegError) -> Poster {
        FFmpegLog.silence()
        let source = try InputFormatContext(reading: FileAVIOContext(reading: input))
        let stream = try FaststartRemuxer.videoStream(of: source, path: input)
        let codecs = codecsString(stream.pointee.codecpar)
        let decoder = try CodecContext.openDecoder(for: stream, context: input)
        let frame = try Frame()
        guard try decodeFirstFrame(source, stream: stream, decoder: decoder, into: frame) else {
            throw FFmpegError(call: "avcodec_receive_frame", code: segrec_averror_invaliddata(), context: "\(input): no frame decodes")
        }
        let f = frame.pointer
        let sourceWidth = Int(f.pointee.width)
        let sourceHeight = Int(f.pointee.height)
        let scale = min(1.0, Double(maximumSide) / Double(max(sourceWidth, sourceHeight)))
        let width = max(2, Int((Double(sourceWidth) * scale / 2).rounded()) * 2)
        let height = max(2, Int((Double(sourceHeight) * scale / 2).rounded()) * 2)

        let scaled = try Frame()
        try scaled.allocateBuffers(format: AV_PIX_FMT_YUVJ420P, width: width, height: height)
        let scaler = try ScaleContext(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, source: AVPixelFormat(rawValue: f.pointee.format), destinationWidth: width,
            destinationHeight: height, destination: AV_PIX_FMT_YUVJ420P, flags: SWS_AREA)
        try scaler.convert(
            sourcePlanes: [UnsafePointer(f.pointee.data.0), UnsafePointer(f.pointee.data.1), UnsafePointer(f.pointee.data.2), UnsafePointer(f.pointee.data.3)],
            sourceStrides: [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3], into: scaled)
        let angle = MediaFileReader.rotation(of: stream).flatMap { VideoRotationAngle(displayMatrixRotation: $0) } ?? .degrees0
        let upright = try turned(scaled, width: width, height: height, angle: angle)
        let size = angle.rotated(VideoDimensions(width: width, height: height))
        let jpeg = try encodeJPEG(upright, width: size.width, height: size.height, context: output)
        try write(jpeg, to: output)
        return Poster(
            width: size.width, height: size.height, rotation: angle, frameWidth: sourceWidth, frameHeight: sourceHeight, codecs: codecs, byteCount: jpeg.count)
    }

    /// `picture` (planar 4:2:0, `width`x`height`) turned clockwise by `angle` into a new
    /// frame (each plane turned exactly, as ``PixelBuffer/rotated(_:pixelBufferPool:)`` turns NV12).
    private static func turned(_ picture: Frame, width: Int, height: Int, angle: VideoRotationAngle) throws(FFmpegError) -> Frame {
        guard angle != .degrees0 else { return picture }
        let size = angle.rotated(VideoDimensions(width: width, height: height))
        let out = try Frame()
        try out.allocateBuffers(format: AVPixelFormat(rawValue: picture.pointer.pointee.format), width: size.width, height: size.height)
        let p = picture.pointer.pointee
        let o = out.pointer.pointee
        let planes = [
            (p.data.0, p.linesize.0, o.data.0, o.linesize.0, 1), (p.data.1, p.linesize.1, o.data.1, o.linesize.1, 2),
            (p.data.2, p.linesize.2, o.data.2, o.linesize.2, 2)
        ]
        for (source, sourceStride, destination, destinationStride, divisor) in planes {
            guard let source, let destination else { continue }
            PixelBuffer.rotatePlane(
                UInt8.self, source: UnsafeRawPointer(source), sourceStride: Int(sourceStride), width: width / divisor, height: height / divisor,
                destination: UnsafeMutableRawPointer(destination), destinationStride: Int(destinationStride), angle: angle)
        }
        return out
    }

    /// Feeds packets until the decoder returns its first frame (or the file ends).
    private static func decodeFirstFrame(_ source: InputFormatContext, stream: UnsafeMutablePointer<AVStream>, decoder: CodecContext, into frame: Frame)
        throws(FFmpegError) -> Bool
    {
        let packet = try Packet()
        var draining = false
        while true {
            let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
            if received >= 0 { return true }
            if received == segrec_averror_eof() { return false }
            guard received == segrec_averror_eagain() else { throw FFmpegError(call: "avcodec_receive_frame", code: received) }
            if draining { return false }
            let read = av_read_frame(source.pointer, packet.pointer)
            if read == segrec_averror_eof() {
                draining = true
                try check(avcodec_send_packet(decoder.pointer, nil), "avcodec_send_packet")
                continue
            }
            try check(read, "av_read_frame")
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == stream.pointee.index else { continue }
            try check(avcodec_send_packet(decoder.pointer, packet.pointer), "avcodec_send_packet")
        }
    }

    /// One picture through libavcodec's `mjpeg` encoder (quality scale 3).
    private static func encodeJPEG(_ picture: Frame, width: Int, height: Int, context: String) throws(FFmpegError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else {
            throw FFmpegError(call: "avcodec_find_encoder", code: segrec_averror_encoder_not_found(), context: "mjpeg")
        }
        let encoder = try CodecContext(codec: codec)
        let e = encoder.pointer
        e.pointee.width = Int32(width)
        e.pointee.height = Int32(height)
        e.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
        e.pointee.time_base = AVRational(num: 1, den: 25)
        e.pointee.flags |= AV_CODEC_FLAG_QSCALE
        e.pointee.global_quality = 3 * FF_QP2LAMBDA
        try check(avcodec_open2(e, codec, nil), "avcodec_open2", context: "mjpeg")
        picture.pointer.pointee.pts = 0
        picture.pointer.pointee.quality = e.pointee.global_quality
        try check(avcodec_send_frame(e, picture.pointer), "avcodec_send_frame", context: context)
        try check(avcodec_send_frame(e, nil), "avcodec_send_frame", context: context)
        let packet = try Packet()
        try check(avcodec_receive_packet(e, packet.pointer), "avcodec_receive_packet", context: context)
        defer { av_packet_unref(packet.pointer) }
        return Array(UnsafeBufferPointer(start: packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size)))
    }

    /// Writes `bytes` to a new file at `path` (exclusive create, never through a link).
    private static func write(_ bytes: [UInt8], to path: String) throws(FFmpegError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FFmpegError(call: "open", code: segrec_averror_from_errno(errno), context: path) }
        defer { Glibc.close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            guard n > 0 else {
                let code = segrec_averror_from_errno(errno)
                _ = unlink(path)
                throw FFmpegError(call: "write", code: code, context: path)
            }
            offset += n
        }
    }

    /// `avc1.PPCCLL` from an `avcC` record (or `avc1` when the extradata is not one);
    /// `hvc1` / `hev1` style strings for HEVC with profile and level from the parameters.
    static func codecsString(_ parameters: UnsafeMutablePointer<AVCodecParameters>) -> String {
        let p = parameters.pointee
        let tag = String((0..<4).map { Character(Unicode.Scalar(UInt8((p.codec_tag >> (8 * $0)) & 0xFF))) })
        switch p.codec_id {
        case AV_CODEC_ID_H264:
            if let extra = p.extradata, p.extradata_size >= 4, extra[0] == 1 { return String(format: "avc1.%02X%02X%02X", extra[1], extra[2], extra[3]) }
            return "avc1"
        case AV_CODEC_ID_HEVC:
            let prefix = tag == "hev1" ? "hev1" : "hvc1"
            guard p.profile > 0, p.level > 0 else { return prefix }
            return "\(prefix).\(p.profile).6.L\(p.level).B0"
        default: return tag
        }
    }
}
