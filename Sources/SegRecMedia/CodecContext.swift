import CFFmpeg

/// Owns an `AVCodecContext` (encoder or decoder); frees it with `avcodec_free_context`.
/// Not thread-safe: used by one writer/reader at a time.
final class CodecContext {
    /// The context; valid until deinit.
    let pointer: UnsafeMutablePointer<AVCodecContext>
    /// The codec the context was allocated for.
    let codec: UnsafePointer<AVCodec>

    /// `avcodec_alloc_context3(codec)`. - Throws: ``FFmpegError`` (ENOMEM) when allocation fails.
    init(codec: UnsafePointer<AVCodec>) throws(FFmpegError) {
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError(call: "avcodec_alloc_context3", code: segrec_averror_enomem()) }
        self.pointer = context
        self.codec = codec
    }

    /// An opened decoder for `stream` (`avcodec_find_decoder`, `avcodec_parameters_to_context`,
    /// `pkt_timebase` = the stream's time base, automatic threads, `avcodec_open2`).
    /// - Throws: ``FFmpegError`` (`AVERROR_DECODER_NOT_FOUND` when FFmpeg has no decoder).
    static func openDecoder(for stream: UnsafeMutablePointer<AVStream>, context path: String) throws(FFmpegError) -> CodecContext {
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(call: "avcodec_find_decoder", code: segrec_averror_decoder_not_found(), context: path)
        }
        let decoder = try CodecContext(codec: codec)
        try check(avcodec_parameters_to_context(decoder.pointer, parameters), "avcodec_parameters_to_context")
        decoder.pointer.pointee.pkt_timebase = stream.pointee.time_base
        decoder.pointer.pointee.thread_count = 0
        try check(avcodec_open2(decoder.pointer, codec, nil), "avcodec_open2", context: path)
        return decoder
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&context)
    }

    /// The codec's short name, e.g. `"libx264"`.
    var codecName: String { String(cString: codec.pointee.name) }

    /// Whether the codec lists `format` among its `pix_fmts` (a nil list means unknown: false).
    func supports(pixelFormat format: AVPixelFormat) -> Bool {
        guard var entry = codec.pointee.pix_fmts else { return false }
        while entry.pointee != AV_PIX_FMT_NONE {
            if entry.pointee == format { return true }
            entry += 1
        }
        return false
    }
}
