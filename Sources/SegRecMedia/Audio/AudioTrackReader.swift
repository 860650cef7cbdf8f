import CFFmpeg
import Foundation

/// A file's first audio stream read back in-process with libavformat and libavcodec: what
/// its track declares and its sound, for `segrec verify`.
package struct DecodedAudioTrack: Sendable {
    /// Sample frames per second (`sample_rate`).
    package let sampleRate: Int
    /// Channels.
    package let channelCount: Int
    /// The codec's name (`aac`).
    package let codecName: String
    /// The stream's duration in its time base when that is `1/sampleRate` (ffprobe's
    /// `duration_ts`: for MP4 the edit list's, the priming and padding left out), else
    /// converted to samples; nil when the file states none.
    package let declaredSampleCount: Int64?
    /// The decoded sound mixed to mono (the channels' mean), cut to ``declaredSampleCount``
    /// when the decoder gives more (FFmpeg 5.1 does not trim the last packet's padding; it
    /// does skip the priming the demuxer marks).
    package let samples: [Float]
}

/// Reads a file's first audio stream (`av_read_frame`, `avcodec_send_packet` /
/// `avcodec_receive_frame`); the decoder applies the demuxer's skip-samples side data, so
/// the encoder's priming is left out as any player leaves it out.
package enum AudioTrackReader {
    /// The first audio stream of `url` decoded, or nil when the file has none.
    /// - Throws: ``FFmpegError`` from opening, demuxing or decoding.
    package static func read(_ url: URL) throws -> DecodedAudioTrack? {
        guard let decoded = try decode(url) else { return nil }
        let channels = decoded.pcm.channelCount
        let frames = decoded.pcm.frameCount
        // Mono is already mono (the array shared, not copied).
        var mono = channels == 1 ? decoded.pcm.samples : [Float](repeating: 0, count: frames)
        if channels > 1 {
            decoded.pcm.samples.withUnsafeBufferPointer { all in
                for i in 0..<frames {
                    var sum: Float = 0
                    for c in 0..<channels { sum += all[i * channels + c] }
                    mono[i] = sum / Float(channels)
                }
            }
        }
        return DecodedAudioTrack(
            sampleRate: decoded.sampleRate, channelCount: decoded.channelCount, codecName: decoded.codecName, declaredSampleCount: decoded.declaredSampleCount,
            samples: mono)
    }

    /// The first audio stream of `url` decoded with its channels kept (interleaved float),
    /// cut to the stream's declared length when the decoder gives more; nil when the file
    /// has no audio stream.
    /// - Returns: the stream's rate, channels (as ``AudioPCMBuffer/channelCount``, at least
    ///   1), codec name and declared length in samples (nil when the file states none).
    /// - Throws: ``FFmpegError`` from opening, demuxing or decoding.
    package static func decode(_ url: URL) throws -> (sampleRate: Int, channelCount: Int, codecName: String, declaredSampleCount: Int64?, pcm: AudioPCMBuffer)?
    {
        let input = try InputFormatContext(reading: FileAVIOContext(reading: url.path), ignoresIndex: false)
        guard let stream = FaststartRemuxer.audioStream(of: input) else { return nil }
        let (rate, channels, codecName, declared) = facts(of: stream)
        let decoder = try CodecContext.openDecoder(for: stream, context: url.path)
        let packet = try Packet()
        let frame = try Frame()
        var samples: [Float] = []
        // Room for the declared length at once (a file may say more than it holds; at most
        // an hour at 96 kHz stereo is reserved ahead): appending one frame at a time then
        // never copies, and beyond it the array grows geometrically. (Reserving
        // `count + frame` per frame made reading an hour-long track quadratic.)
        if let declared, declared > 0 { samples.reserveCapacity(Int(min(declared, 96_000 * 3_600)) * channels) }
        func receive() throws {
            while true {
                let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
                if received == segrec_averror_eagain() || received == segrec_averror_eof() { return }
                try check(received, "avcodec_receive_frame", context: url.path)
                defer { av_frame_unref(frame.pointer) }
                append(frame.pointer, channels: channels, to: &samples)
            }
        }
        while true {
            let read = av_read_frame(input.pointer, packet.pointer)
            if read == segrec_averror_eof() { break }
            try check(read, "av_read_frame", context: url.path)
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == stream.pointee.index else { continue }
            try check(avcodec_send_packet(decoder.pointer, packet.pointer), "avcodec_send_packet", context: url.path)
            try receive()
        }
        try check(avcodec_send_packet(decoder.pointer, nil), "avcodec_send_packet", context: "flush")
        try receive()
        if let declared, declared >= 0, samples.count > Int(declared) * channels { samples.removeLast(samples.count - Int(declared) * channels) }
        return (rate, channels, codecName, declared, AudioPCMBuffer(channelCount: channels, samples: samples))
    }

    /// What the first audio stream of `url` declares, read from the container without
    /// decoding a sample: its rate, channels (at least 1), codec name and length in samples
    /// (nil when the file states none); nil when the file has no audio stream.
    /// - Throws: ``FFmpegError`` from opening the file.
    package static func describe(_ url: URL) throws -> (sampleRate: Int, channelCount: Int, codecName: String, declaredSampleCount: Int64?)? {
        let input = try InputFormatContext(reading: FileAVIOContext(reading: url.path), ignoresIndex: false)
        return FaststartRemuxer.audioStream(of: input).map(facts(of:))
    }

    /// A stream's rate, channels (at least 1), codec name and declared length in samples.
    private static func facts(of stream: UnsafeMutablePointer<AVStream>) -> (Int, Int, String, Int64?) {
        let parameters = stream.pointee.codecpar!.pointee
        let rate = Int(parameters.sample_rate)
        var declared: Int64?
        if stream.pointee.duration != segrec_av_nopts_value(), rate > 0 {
            declared = av_rescale_q(stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: Int32(rate)))
        }
        return (rate, max(1, Int(parameters.ch_layout.nb_channels)), String(cString: avcodec_get_name(parameters.codec_id)), declared)
    }

    /// Appends a decoded frame's samples interleaved, `channels` per sample frame (a frame
    /// with fewer gives silence in the missing ones); planar or interleaved float, s16, s32.
    private static func append(_ f: UnsafeMutablePointer<AVFrame>, channels: Int, to samples: inout [Float]) {
        let count = Int(f.pointee.nb_samples)
        let frameChannels = max(1, Int(f.pointee.ch_layout.nb_channels))
        let format = AVSampleFormat(rawValue: f.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        func value(_ channel: Int, _ i: Int) -> Float {
            let plane = planar ? channel : 0
            let index = planar ? i : i * frameChannels + channel
            guard let data = f.pointee.extended_data[plane] else { return 0 }
            switch format {
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP: return data.withMemoryRebound(to: Float.self, capacity: index + 1) { $0[index] }
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: return data.withMemoryRebound(to: Int16.self, capacity: index + 1) { Float($0[index]) / 32768 }
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P: return data.withMemoryRebound(to: Int32.self, capacity: index + 1) { Float($0[index]) / 2_147_483_648 }
            case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP: return data.withMemoryRebound(to: Double.self, capacity: index + 1) { Float($0[index]) }
            default: return 0
            }
        }
        for i in 0..<count { for c in 0..<channels { samples.append(c < frameChannels ? value(c, i) : 0) } }
    }
}
