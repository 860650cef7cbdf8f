import CFFmpeg

/// A libswresample context between two streams of the same nominal rate and layout
/// (interleaved float, ``AudioPCMBuffer``) whose rate is trimmed a little at a time by
/// `swr_set_compensation`: the resampler a recorder uses to keep a drifting microphone on
/// the session clock without dropping or repeating samples (what FFmpeg's `aresample`
/// filter does with `async`, with the compensation chosen by the caller).
///
/// The resampling filter is always on (`SWR_FLAG_RESAMPLE`), so compensation can be set at
/// any time; the output lags the input by ``delay`` output samples, given back by
/// ``flush()``.
///
/// Not thread-safe: one owner.
package final class AudioResampler {
    /// Sample frames per second, in and out.
    package let sampleRate: Int
    /// Channels, in and out.
    package let channelCount: Int
    private var context: OpaquePointer?

    /// A resampler for `channelCount` channels at `sampleRate` Hz (`swr_alloc_set_opts2`, `swr_init`).
    /// - Throws: ``FFmpegError`` from libswresample (e.g. EINVAL for a bad rate).
    package init(sampleRate: Int, channelCount: Int) throws(FFmpegError) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channelCount))
        var inLayout = layout
        defer { av_channel_layout_uninit(&layout) }
        var swr: OpaquePointer?
        try check(
            swr_alloc_set_opts2(&swr, &layout, AV_SAMPLE_FMT_FLT, Int32(sampleRate), &inLayout, AV_SAMPLE_FMT_FLT, Int32(sampleRate), 0, nil),
            "swr_alloc_set_opts2", context: "\(sampleRate) Hz, \(channelCount) channels")
        context = swr
        try check(av_opt_set_int(UnsafeMutableRawPointer(swr), "flags", Int64(SWR_FLAG_RESAMPLE), 0), "av_opt_set_int", context: "swr flags")
        try check(swr_init(swr), "swr_init", context: "\(sampleRate) Hz")
    }

    deinit { swr_free(&context) }

    /// Output samples the input given so far has not produced yet (`swr_get_delay` at the
    /// output rate): the next input sample comes out after this many more output samples.
    package var delay: Int64 { swr_get_delay(context, Int64(sampleRate)) }

    /// Over the next `distance` output samples, produce `sampleDelta` more (negative: fewer)
    /// than the nominal rate gives (`swr_set_compensation`); `distance` > 0.
    /// - Throws: ``FFmpegError`` (EINVAL for a delta the resampler cannot make).
    package func setCompensation(sampleDelta: Int, distance: Int) throws(FFmpegError) {
        try check(swr_set_compensation(context, Int32(sampleDelta), Int32(max(1, distance))), "swr_set_compensation", context: "\(sampleDelta)/\(distance)")
    }

    /// Resamples `input` (`swr_convert`) and returns what comes out now.
    /// - Throws: ``FFmpegError``.
    package func convert(_ input: AudioPCMBuffer) throws(FFmpegError) -> AudioPCMBuffer { try run(input) }

    /// Drains what the filter still holds (`swr_convert` with no input).
    /// - Throws: ``FFmpegError``.
    package func flush() throws(FFmpegError) -> AudioPCMBuffer { try run(nil) }

    private func run(_ input: AudioPCMBuffer?) throws(FFmpegError) -> AudioPCMBuffer {
        let inFrames = input?.frameCount ?? 0
        let capacity = Int(swr_get_out_samples(context, Int32(inFrames))) + 64
        var output = [Float](repeating: 0, count: max(capacity, 1) * channelCount)
        let produced: Int32 = output.withUnsafeMutableBytes { out in
            var outPlane: UnsafeMutablePointer<UInt8>? = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &outPlane) { outPlanes in
                guard let input else { return swr_convert(context, outPlanes, Int32(capacity), nil, 0) }
                return input.samples.withUnsafeBytes { inBytes in
                    var inPlane: UnsafePointer<UInt8>? = inBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return withUnsafeMutablePointer(to: &inPlane) { inPlanes in swr_convert(context, outPlanes, Int32(capacity), inPlanes, Int32(inFrames)) }
                }
            }
        }
        try check(produced, "swr_convert", context: "\(inFrames) samples")
        output.removeLast(output.count - Int(produced) * channelCount)
        return AudioPCMBuffer(channelCount: channelCount, samples: output)
    }
}
