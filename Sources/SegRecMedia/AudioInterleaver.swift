import CFFmpeg

/// Writes an ``AudioPacketSlice`` into a second (audio) track of a muxer whose video track
/// has time base `videoTimeBase`, a few packets at a time, in order: each call writes the
/// packets that start before a video time (``write(before:)``). Used by
/// ``FragmentedRemuxer`` to interleave sound with the pictures it copies.
///
/// Not thread-safe: one owner (a remux).
final class AudioInterleaver {
    private let slice: AudioPacketSlice
    private let format: OutputFormatContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let videoTimeBase: AVRational
    private var next: Int
    private let packet: Packet
    /// Packets written so far.
    private(set) var written = 0

    /// Adds the audio stream to `format` (before its header is written): the track's
    /// parameters, time base `1/sampleRate`.
    /// - Throws: ``FFmpegError`` (ENOMEM, a parameter copy failing).
    init(slice: AudioPacketSlice, format: OutputFormatContext, videoTimeBase: AVRational) throws(FFmpegError) {
        guard let stream = avformat_new_stream(format.pointer, nil) else {
            throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: "\(format.path) audio")
        }
        try check(avcodec_parameters_copy(stream.pointee.codecpar, slice.track.parameters), "avcodec_parameters_copy", context: "\(format.path) audio")
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: Int32(slice.track.sampleRate))
        self.slice = slice
        self.format = format
        self.stream = stream
        self.videoTimeBase = videoTimeBase
        self.next = slice.range.lowerBound
        self.packet = try Packet()
    }

    /// Writes the packets not written yet whose start (pts + shift, in samples) is before
    /// `videoTicks` (video time base); nil: all of them.
    /// - Throws: ``FFmpegError`` from the muxer, ``SegmentWriterError`` on an I/O failure.
    func write(before videoTicks: Int64?) throws {
        let rate = Int128(slice.track.sampleRate)
        while next < slice.range.upperBound {
            let source = slice.track.packets[next].pointer
            let pts = source.pointee.pts + slice.shift
            if let videoTicks, Int128(pts) * Int128(videoTimeBase.den) >= Int128(videoTicks) * Int128(videoTimeBase.num) * rate { return }
            let p = packet.pointer
            try check(av_packet_ref(p, source), "av_packet_ref", context: "\(format.path) audio")
            defer { av_packet_unref(p) }
            p.pointee.pts = pts
            p.pointee.dts = source.pointee.dts + slice.shift
            if next + 1 == slice.range.upperBound, let end = slice.end { p.pointee.duration = max(1, min(p.pointee.duration, end - pts)) }
            p.pointee.stream_index = stream.pointee.index
            p.pointee.pos = -1
            // The muxer may have changed the stream's time base in its header.
            av_packet_rescale_ts(p, AVRational(num: 1, den: Int32(slice.track.sampleRate)), stream.pointee.time_base)
            try FaststartRemuxer.checkIO(av_write_frame(format.pointer, p), "av_write_frame", format)
            next += 1
            written += 1
        }
    }
}
