import CFFmpeg

/// Owns an `AVBSFContext` (mirrors `av_bsf_alloc` / `av_bsf_init` / `av_bsf_free`): a
/// libavcodec bitstream filter that rewrites packets without decoding them. Used by
/// ``FragmentedRemuxer`` with `h264_mp4toannexb` / `hevc_mp4toannexb`, which repeat the
/// parameter sets (SPS/PPS, VPS) in front of every keyframe. Not thread-safe.
final class BitstreamFilter {
    let pointer: UnsafeMutablePointer<AVBSFContext>
    /// What the filtered packets come from (a file path), named by the errors of
    /// ``send(_:)`` and ``receive(into:)``.
    let source: String

    /// Allocates and initializes filter `name` for a stream with `parameters` and `timeBase`
    /// whose packets come from `source` (a file path, for errors).
    /// - Throws: ``FFmpegError`` (`AVERROR_BSF_NOT_FOUND`-like EINVAL when FFmpeg has no
    ///   filter of that name, or what `av_bsf_init` returns).
    /// `name` may be a chain, as `-bsf` takes it (`h264_mp4toannexb,h264_metadata=…`:
    /// `av_bsf_list_parse_str`).
    init(name: String, parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, source: String) throws(FFmpegError) {
        var context: UnsafeMutablePointer<AVBSFContext>?
        if name.contains(",") || name.contains("=") {
            try check(av_bsf_list_parse_str(name, &context), "av_bsf_list_parse_str", context: name)
        } else {
            guard let filter = av_bsf_get_by_name(name) else { throw FFmpegError(call: "av_bsf_get_by_name", code: segrec_averror_einval(), context: name) }
            try check(av_bsf_alloc(filter, &context), "av_bsf_alloc", context: name)
        }
        guard let context else { throw FFmpegError(call: "av_bsf_alloc", code: segrec_averror_enomem(), context: name) }
        pointer = context
        self.source = source
        try check(avcodec_parameters_copy(context.pointee.par_in, parameters), "avcodec_parameters_copy", context: name)
        context.pointee.time_base_in = timeBase
        try check(av_bsf_init(context), "av_bsf_init", context: name)
    }

    /// The parameters of the filtered stream (extradata in the filter's output form).
    var outputParameters: UnsafeMutablePointer<AVCodecParameters> { pointer.pointee.par_out }

    /// `av_bsf_send_packet`; `nil` signals the end of the stream. Takes the packet's data.
    /// - Throws: ``FFmpegError`` naming ``source``.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) throws(FFmpegError) {
        try check(av_bsf_send_packet(pointer, packet), "av_bsf_send_packet", context: source)
    }

    /// `av_bsf_receive_packet`: true when `packet` was filled, false when the filter needs
    /// more input (EAGAIN) or is drained (EOF).
    /// - Throws: ``FFmpegError`` naming ``source`` (e.g. a packet cut short: "missing picture
    ///   in access unit").
    func receive(into packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Bool {
        let result = av_bsf_receive_packet(pointer, packet)
        if result == segrec_averror_eagain() || result == segrec_averror_eof() { return false }
        try check(result, "av_bsf_receive_packet", context: source)
        return true
    }

    deinit {
        var context: UnsafeMutablePointer<AVBSFContext>? = pointer
        av_bsf_free(&context)
    }
}
