import CFFmpeg
import Foundation

/// Reads back a media file's first video stream in-process with libavformat/libavcodec:
/// stream facts and every packet (``streamInfo()``), and every decoded picture
/// (``decodeFrames(_:)``). Used by `segrec verify` and the tests.
///
/// Not thread-safe; each call opens the file afresh (`avformat_open_input` over a
/// descriptor opened `O_NOFOLLOW | O_NONBLOCK` and checked to be a regular file: a symbolic link, FIFO or
/// folder at the name is refused, never followed and never waited on).
package final class MediaFileReader {
    /// The file.
    package let url: URL

    /// Opens `url` once to check it is readable and has a video stream.
    /// - Throws: ``FFmpegError`` from `open` (``FFmpegError/isNotFound`` for a missing file;
    ///   ELOOP / EINVAL for a symbolic link or a file that is not regular) or
    ///   `avformat_open_input`, or `AVERROR_STREAM_NOT_FOUND` when there is no video stream.
    package init(url: URL) throws {
        FFmpegLog.silence()
        self.url = url
        let input = try Self.open(url)
        _ = try FaststartRemuxer.videoStream(of: input, path: url.path)
    }

    /// The file's demuxer, reading through a descriptor segrec opened itself.
    private static func open(_ url: URL) throws(FFmpegError) -> InputFormatContext {
        try InputFormatContext(reading: FileAVIOContext(reading: url.path), ignoresIndex: false)
    }

    /// Demuxes the whole first video stream (`av_read_frame`) and reports its codec, tag,
    /// size, time base, duration, display rotation and packets (sorted by pts).
    /// - Throws: ``FFmpegError`` from opening or demuxing.
    package func streamInfo() throws -> StreamInfo {
        let input = try Self.open(url)
        let stream = try FaststartRemuxer.videoStream(of: input, path: url.path)
        let parameters = stream.pointee.codecpar!.pointee
        let packet = try Packet()
        var demuxed: [(pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool)] = []
        try forEachPacket(of: stream, in: input, using: packet) { p in
            demuxed.append((p.pointee.pts, p.pointee.dts, p.pointee.duration, (p.pointee.flags & AV_PKT_FLAG_KEY) != 0))
        }
        demuxed.sort { $0.pts < $1.pts }
        let nopts = segrec_av_nopts_value()
        let duration = stream.pointee.duration == nopts ? nil : stream.pointee.duration
        // Presentation end: the stream's start plus its duration (for MP4, libavformat's
        // edit-list-trimmed track duration). Falls back to the last packet's own duration.
        let start = stream.pointee.start_time != nopts ? stream.pointee.start_time : demuxed.first?.pts
        let end = duration.flatMap { d in start.map { $0 + d } }
        let packets = demuxed.indices.map { i in
            let next = i + 1 < demuxed.count ? demuxed[i + 1].pts : (end ?? demuxed[i].pts + demuxed[i].duration)
            return PacketInfo(pts: demuxed[i].pts, dts: demuxed[i].dts, duration: next - demuxed[i].pts, isKeyframe: demuxed[i].isKeyframe)
        }
        return StreamInfo(
            codecName: String(cString: avcodec_get_name(parameters.codec_id)), codecTag: Self.fourCC(parameters.codec_tag), width: Int(parameters.width),
            height: Int(parameters.height), timeBase: (stream.pointee.time_base.num, stream.pointee.time_base.den), frameCount: packets.count,
            duration: duration, rotationDegrees: Self.rotation(of: stream), packets: packets)
    }

    /// Decodes every frame of the first video stream (`avcodec_send_packet` /
    /// `avcodec_receive_frame`, then a flush) and calls `body` for each, in presentation order.
    /// - Throws: ``FFmpegError`` from opening, demuxing or decoding (`AVERROR_DECODER_NOT_FOUND`
    ///   if no decoder), or whatever `body` throws.
    package func decodeFrames(_ body: (DecodedFrame) throws -> Void) throws {
        let input = try Self.open(url)
        let stream = try FaststartRemuxer.videoStream(of: input, path: url.path)
        let decoder = try CodecContext.openDecoder(for: stream, context: url.path)
        let packet = try Packet()
        let frame = try Frame()

        func receiveFrames() throws {
            while true {
                let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
                if received == segrec_averror_eagain() || received == segrec_averror_eof() { return }
                try check(received, "avcodec_receive_frame", context: url.path)
                defer { av_frame_unref(frame.pointer) }
                try body(Self.decodedFrame(frame.pointer))
            }
        }
        try forEachPacket(of: stream, in: input, using: packet) { p in
            try check(avcodec_send_packet(decoder.pointer, p), "avcodec_send_packet", context: url.path)
            try receiveFrames()
        }
        try check(avcodec_send_packet(decoder.pointer, nil), "avcodec_send_packet", context: "flush")
        try receiveFrames()
    }

    // MARK: - Internals

    /// `av_read_frame` until EOF, calling `body` with each packet of `stream` (then unref'd).
    private func forEachPacket(
        of stream: UnsafeMutablePointer<AVStream>, in input: InputFormatContext, using packet: Packet, _ body: (UnsafeMutablePointer<AVPacket>) throws -> Void
    ) throws {
        while true {
            let read = av_read_frame(input.pointer, packet.pointer)
            if read == segrec_averror_eof() { return }
            try check(read, "av_read_frame", context: url.path)
            defer { av_packet_unref(packet.pointer) }
            if packet.pointer.pointee.stream_index == stream.pointee.index { try body(packet.pointer) }
        }
    }

    private static func decodedFrame(_ f: UnsafeMutablePointer<AVFrame>) -> DecodedFrame {
        let nopts = segrec_av_nopts_value()
        let pts = f.pointee.pts != nopts ? f.pointee.pts : (f.pointee.best_effort_timestamp != nopts ? f.pointee.best_effort_timestamp : nil)
        let height = Int(f.pointee.height)
        let stride = Int(f.pointee.linesize.0)
        let format = av_get_pix_fmt_name(AVPixelFormat(rawValue: f.pointee.format)).map { String(cString: $0) } ?? "unknown"
        return DecodedFrame(
            pts: pts, isKeyframe: f.pointee.key_frame != 0, width: Int(f.pointee.width), height: height, pixelFormat: format,
            luma: UnsafeBufferPointer(start: f.pointee.data.0, count: stride * height), lumaBytesPerRow: stride)
    }

    /// `av_display_rotation_get` of the stream's display matrix, rounded; nil without one.
    static func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int? {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
        let degrees = UnsafeRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard degrees.isFinite else { return nil }
        let rounded = Int(degrees.rounded())
        return rounded == 0 ? 0 : rounded  // no "-0"
    }

    /// `av_fourcc_make_string`: `"avc1"`, or `[0]` style escapes for unprintable bytes.
    static func fourCC(_ tag: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 32)  // AV_FOURCC_MAX_STRING_SIZE
        _ = av_fourcc_make_string(&buffer, tag)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
