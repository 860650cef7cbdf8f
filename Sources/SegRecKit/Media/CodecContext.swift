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
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(call: "avcodec_alloc_context3", code: segrec_averror_enomem())
        }
        self.pointer = context
        self.codec = codec
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
