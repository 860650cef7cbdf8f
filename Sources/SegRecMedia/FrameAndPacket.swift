import CFFmpeg

/// Owns an `AVFrame` (`av_frame_alloc` / `av_frame_free`). Reused across pictures.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// `av_frame_alloc`. - Throws: ``FFmpegError`` (ENOMEM).
    init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else { throw FFmpegError(call: "av_frame_alloc", code: segrec_averror_enomem()) }
        pointer = frame
    }

    /// Owns `frame` (freed with `av_frame_free` when this object goes).
    init(adopting frame: consuming sending UnsafeMutablePointer<AVFrame>) { pointer = frame }

    /// Sets format and size and allocates refcounted planes (`av_frame_get_buffer`, 32-byte
    /// aligned rows).
    func allocateBuffers(format: AVPixelFormat, width: Int, height: Int) throws(FFmpegError) {
        pointer.pointee.format = format.rawValue
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        try check(av_frame_get_buffer(pointer, 32), "av_frame_get_buffer")
    }

    /// `av_frame_make_writable`: copies the planes first if an encoder still references them.
    func makeWritable() throws(FFmpegError) { try check(av_frame_make_writable(pointer), "av_frame_make_writable") }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }
}

/// Owns an `AVPacket` (`av_packet_alloc` / `av_packet_free`).
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// `av_packet_alloc`. - Throws: ``FFmpegError`` (ENOMEM).
    init() throws(FFmpegError) {
        guard let packet = av_packet_alloc() else { throw FFmpegError(call: "av_packet_alloc", code: segrec_averror_enomem()) }
        pointer = packet
    }

    /// The packet `packet` points to, owned from now on (freed with this object).
    init(adopting packet: consuming sending UnsafeMutablePointer<AVPacket>) { pointer = packet }

    /// A new packet that takes over `other`'s data and properties (`av_packet_move_ref`),
    /// leaving `other` blank for reuse.
    convenience init(movingFrom other: Packet) throws(FFmpegError) {
        try self.init()
        av_packet_move_ref(pointer, other.pointer)
    }

    /// A new reference to `other`'s data and a copy of its properties (`av_packet_ref`).
    convenience init(referencing other: Packet) throws(FFmpegError) {
        try self.init()
        try check(av_packet_ref(pointer, other.pointer), "av_packet_ref")
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }
}
