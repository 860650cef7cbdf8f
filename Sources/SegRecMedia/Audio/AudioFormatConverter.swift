import CFFmpeg

/// Decoded audio frames of any sample format, rate and channel layout converted with
/// libswresample to interleaved float (``AudioPCMBuffer``) at one fixed rate and channel
/// count: what a footage file's sound becomes before it is encoded as the segments' AAC-LC
/// track.
///
/// The input side follows each frame (`AVFrame.format`, `sample_rate`, `ch_layout`): a
/// change mid-stream (a concatenated capture, HE-AAC's doubled rate) opens a new context,
/// after draining the old one. More channels than the output's are mixed down by
/// libswresample's default matrix; a layout without a channel order (raw PCM) is taken as
/// the default layout of its channel count. Without a rate change the conversion holds no
/// samples back (``delay`` is 0); with one, ``delay`` says how many output samples the
/// input given so far has still to produce.
///
/// Not thread-safe: one owner (``FootageAudioDecoder``).
final class AudioFormatConverter {
    /// Output sample frames per second.
    let sampleRate: Int
    /// Output channels (1 or 2).
    let channelCount: Int
    private var context: OpaquePointer?
    /// The input parameters the context was opened for.
    private var input: (format: Int32, rate: Int32, channels: Int32)?

    /// A converter to `channelCount` interleaved float channels at `sampleRate` Hz (the context
    /// is opened with the first frame).
    init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    deinit { swr_free(&context) }

    /// Output samples the input given so far has not produced yet (`swr_get_delay` at the
    /// output rate); 0 before the first frame.
    var delay: Int64 { context.map { swr_get_delay($0, Int64(sampleRate)) } ?? 0 }

    /// `frame`'s samples at the output format; when the frame's format, rate or channel
    /// count differs from the one before, the samples still held for the old ones come
    /// first.
    /// - Throws: ``FFmpegError`` from libswresample (a layout or format it cannot convert).
    func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> AudioPCMBuffer {
        let f = frame.pointee
        let parameters = (format: f.format, rate: f.sample_rate, channels: f.ch_layout.nb_channels)
        var output = AudioPCMBuffer(silenceOf: 0, channelCount: channelCount)
        if let input, input != parameters {
            output.samples += try run(nil, count: 0).samples
            swr_free(&context)
        }
        if context == nil { try open(frame) }
        input = parameters
        let inputPlanes = UnsafeMutableRawPointer(f.extended_data)?.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        output.samples += try run(inputPlanes, count: Int(f.nb_samples)).samples
        return output
    }

    /// Drains what a rate conversion still holds (`swr_convert` without input).
    /// - Throws: ``FFmpegError``.
    func flush() throws(FFmpegError) -> AudioPCMBuffer {
        guard context != nil else { return AudioPCMBuffer(silenceOf: 0, channelCount: channelCount) }
        return try run(nil, count: 0)
    }

    private func open(_ frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        var inLayout = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame.pointee.ch_layout.nb_channels <= 0 {
            av_channel_layout_default(&inLayout, max(1, frame.pointee.ch_layout.nb_channels))
        } else {
            try check(av_channel_layout_copy(&inLayout, &frame.pointee.ch_layout), "av_channel_layout_copy")
        }
        defer { av_channel_layout_uninit(&inLayout) }
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(channelCount))
        defer { av_channel_layout_uninit(&outLayout) }
        var swr: OpaquePointer?
        let inFormat = AVSampleFormat(rawValue: frame.pointee.format)
        try check(
            swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLT, Int32(sampleRate), &inLayout, inFormat, frame.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2", context: "\(frame.pointee.sample_rate) Hz, \(frame.pointee.ch_layout.nb_channels) channels to \(sampleRate) Hz")
        context = swr
        try check(swr_init(swr), "swr_init", context: "\(frame.pointee.sample_rate) Hz to \(sampleRate) Hz")
    }

    private func run(_ planes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) throws(FFmpegError) -> AudioPCMBuffer {
        guard let context else { return AudioPCMBuffer(silenceOf: 0, channelCount: channelCount) }
        let capacity = Int(swr_get_out_samples(context, Int32(count))) + 64
        var output = [Float](repeating: 0, count: max(capacity, 1) * channelCount)
        let produced: Int32 = output.withUnsafeMutableBytes { out in
            var outPlane: UnsafeMutablePointer<UInt8>? = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &outPlane) { swr_convert(context, $0, Int32(capacity), planes, Int32(count)) }
        }
        try check(produced, "swr_convert", context: "\(count) samples")
        output.removeLast(output.count - Int(produced) * channelCount)
        return AudioPCMBuffer(channelCount: channelCount, samples: output)
    }
}
