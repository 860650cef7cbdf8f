import CFFmpeg

/// libavcodec's native AAC-LC encoder (`aac`) fed with interleaved float PCM
/// (``AudioPCMBuffer``): cuts the samples into the encoder's frames (`frame_size`, 1024),
/// planar float (`AV_SAMPLE_FMT_FLTP`), with pts counted in samples from 0.
///
/// Packets come out with pts and dts in samples, the first at `−initial_padding` (the
/// encoder's priming, 1024 samples), each lasting one frame: the muxer hides the priming with
/// the edit list. The last frame may be short (`AV_CODEC_CAP_SMALL_LAST_FRAME`).
///
/// Not thread-safe: owned by one ``SegmentWriter``.
final class AudioEncoder {
    /// The encoder context (time base `1/sampleRate`).
    let context: CodecContext
    let settings: AudioTrackSettings
    /// Samples per encoder frame (`frame_size`).
    let frameSize: Int
    /// Sample frames given so far (the pts of the next encoder frame once ``pending`` is sent).
    private(set) var samplesGiven: Int64 = 0
    private var pending: [Float] = []
    private var sentSamples: Int64 = 0
    private let frame: Frame
    private let packet: Packet

    /// Opens `aac` for `settings` (`global_header` when the muxer wants extradata).
    /// - Throws: ``FFmpegError`` (`AVERROR_ENCODER_NOT_FOUND`, `avcodec_open2` errors).
    init(settings: AudioTrackSettings, globalHeader: Bool) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw FFmpegError(call: "avcodec_find_encoder_by_name", code: segrec_averror_encoder_not_found(), context: "aac")
        }
        let context = try CodecContext(codec: codec)
        let c = context.pointer
        c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = Int32(settings.sampleRate)
        av_channel_layout_default(&c.pointee.ch_layout, Int32(settings.channelCount))
        c.pointee.bit_rate = Int64(settings.bitRate)
        c.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        c.pointee.profile = FF_PROFILE_AAC_LOW
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try check(avcodec_open2(c, codec, nil), "avcodec_open2", context: "aac \(settings.sampleRate) Hz \(settings.channelCount) ch")
        self.context = context
        self.settings = settings
        self.frameSize = Int(c.pointee.frame_size > 0 ? c.pointee.frame_size : 1024)
        self.frame = try Frame()
        self.packet = try Packet()
    }

    /// Queues `pcm` and encodes every whole encoder frame; returns the packets that came out.
    /// - Throws: ``FFmpegError``.
    func encode(_ pcm: AudioPCMBuffer) throws(FFmpegError) -> [Packet] {
        precondition(pcm.channelCount == settings.channelCount, "channel count")
        pending.append(contentsOf: pcm.samples)
        samplesGiven += Int64(pcm.frameCount)
        var packets: [Packet] = []
        let channels = settings.channelCount
        var offset = 0
        while pending.count - offset >= frameSize * channels {
            try send(count: frameSize, from: offset)
            offset += frameSize * channels
            try receive(into: &packets)
        }
        pending.removeFirst(offset)
        return packets
    }

    /// Encodes what is queued (a short last frame) and drains the encoder.
    /// - Throws: ``FFmpegError``.
    /// Encodes `count` sample frames of silence, after the samples given before. Once the
    /// encoder has put out the same packet for two silent frames in a row (steady silence,
    /// within a few frames), further whole frames are that packet again with its times moved
    /// on, without encoding: the encoder's output for steady silence does not change, and its
    /// state after more of it is the same. The last two frames and any part frame are
    /// encoded, so the sound after the silence starts from the encoder's own state. An hour
    /// of silence then costs milliseconds, not the 30 s libavcodec's AAC encoder takes (a
    /// SIGINT during it waited for all of it).
    func encodeSilence(_ count: Int64) throws(FFmpegError) -> [Packet] {
        let channels = settings.channelCount
        let frame = Int64(frameSize)
        var packets: [Packet] = []
        var left = count
        var steady: Packet?
        var skip: (model: Packet, frames: Int64)?
        while left > 0 {
            let partial = Int64(pending.count / channels)
            if let model = steady, partial == 0, left >= 5 * frame {
                // Skip `skipped` frames: the next frame encoded carries the time after them,
                // and the copies fill the gap this leaves in the packets' times (below).
                let skipped = left / frame - 4
                sentSamples += skipped * frame
                samplesGiven += skipped * frame
                left -= skipped * frame
                skip = (model, skipped)
                steady = nil
                continue
            }
            let n = min(left, partial > 0 ? frame - partial : frame)
            let out = try encode(AudioPCMBuffer(silenceOf: Int(n), channelCount: channels))
            left -= n
            packets += out
            // Two packets in a row with the same bytes, both from this silence (the first
            // packets put out may still carry the sound before it).
            if skip == nil, packets.count >= 4, let a = packets.last, Self.sameData(a, packets[packets.count - 2]) { steady = a } else { steady = nil }
        }
        guard let (model, skipped) = skip else { return packets }
        // The encoder holds a frame or two: four frames after the skipped ones, its packets
        // have passed the gap; the copies go in it, one frame apart.
        guard let gap = packets.indices.dropLast().first(where: { packets[$0 + 1].pointer.pointee.pts - packets[$0].pointer.pointee.pts > frame }) else {
            throw FFmpegError(call: "aac silence", code: segrec_averror_eagain(), context: "no gap for \(skipped) frames of silence")
        }
        var copies: [Packet] = []
        for i in 1...skipped {
            let copy = try Packet(referencing: model)
            let pts = packets[gap].pointer.pointee.pts + i * frame
            (copy.pointer.pointee.pts, copy.pointer.pointee.dts, copy.pointer.pointee.duration) = (pts, pts, frame)
            copies.append(copy)
        }
        return Array(packets[...gap]) + copies + Array(packets[(gap + 1)...])
    }

    private static func sameData(_ a: Packet, _ b: Packet) -> Bool {
        let (p, q) = (a.pointer.pointee, b.pointer.pointee)
        guard p.size == q.size, p.duration == q.duration, let x = p.data, let y = q.data else { return false }
        return memcmp(x, y, Int(p.size)) == 0
    }

    func flush() throws(FFmpegError) -> [Packet] {
        var packets: [Packet] = []
        let remaining = pending.count / settings.channelCount
        if remaining > 0 {
            try send(count: remaining, from: 0)
            pending.removeAll()
            try receive(into: &packets)
        }
        try check(avcodec_send_frame(context.pointer, nil), "avcodec_send_frame", context: "aac flush")
        try receive(into: &packets)
        return packets
    }

    private func send(count: Int, from offset: Int) throws(FFmpegError) {
        let f = frame.pointer
        av_frame_unref(f)
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.nb_samples = Int32(count)
        f.pointee.sample_rate = Int32(settings.sampleRate)
        try check(av_channel_layout_copy(&f.pointee.ch_layout, &context.pointer.pointee.ch_layout), "av_channel_layout_copy")
        try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer", context: "aac frame")
        let channels = settings.channelCount
        for channel in 0..<channels {
            guard let plane = f.pointee.extended_data[channel] else { continue }
            plane.withMemoryRebound(to: Float.self, capacity: count) { out in for i in 0..<count { out[i] = pending[offset + i * channels + channel] } }
        }
        f.pointee.pts = sentSamples
        sentSamples += Int64(count)
        try check(avcodec_send_frame(context.pointer, f), "avcodec_send_frame", context: "aac")
    }

    private func receive(into packets: inout [Packet]) throws(FFmpegError) {
        while true {
            let received = avcodec_receive_packet(context.pointer, packet.pointer)
            if received == segrec_averror_eagain() || received == segrec_averror_eof() { return }
            try check(received, "avcodec_receive_packet", context: "aac")
            packets.append(try Packet(movingFrom: packet))
        }
    }
}
