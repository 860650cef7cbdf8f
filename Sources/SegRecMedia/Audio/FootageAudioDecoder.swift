import CFFmpeg
import Foundation

/// Decoded sound of a footage file: interleaved float samples at the decoder's output format
/// (`FootageAudioDecoder/sampleRate`, `FootageAudioDecoder/channelCount`) and where they
/// start in the stream's time base.
package struct DecodedAudio: Sendable, Hashable {
    /// The presentation time of the frame the samples came from, in ticks of the audio
    /// stream's time base (``FootageAudioDecoder/timeBase``); nil when the stream gave none
    /// (the samples then follow the ones before).
    package let pts: Int64?
    /// How many output samples before ``pts`` the first sample lies (the rate conversion's
    /// delay; 0 without one).
    package let samplesBeforePTS: Int64
    /// The samples.
    package let pcm: AudioPCMBuffer
    /// Whether these are the first samples after a new sequence header in band
    /// (`AV_PKT_DATA_NEW_EXTRADATA` on a packet after the first: an FLV/RTMP stream whose
    /// encoder started again, its timestamps usually back at 0).
    package var startsNewSequence = false
    /// Whether these are the first samples of a live source's new connection
    /// (``LiveReconnectingDecoder``): a new timeline, placed by the pictures' offset.
    package var startsNewConnection = false
}

/// The first audio stream of a footage file decoded with libavcodec (AAC, Opus, MP3, PCM, …)
/// and converted with libswresample (`AudioFormatConverter`) to interleaved float at a
/// rate and channel count an AAC-LC track takes; fed the stream's packets by the
/// ``VideoFileDecoder`` that demuxes the file, in file order.
///
/// - Output format: the stream's own rate when libavcodec's `aac` encoder takes it
///   (``AudioTrackSettings/supportedSampleRates``), else 48 000 Hz; mono stays mono, two
///   channels or more become stereo (libswresample's downmix).
/// - Timestamps: each decoded frame's pts (libavcodec already dropped the priming the
///   container marks, e.g. an MP4 edit list or Opus pre-skip, and moved the pts past it).
/// - Damage, counted like the video's (``corruptPackets``): a packet flagged corrupt by the
///   demuxer, a packet the decoder rejects (its samples are lost; its time becomes a gap),
///   and a frame decoded with errors concealed count once per packet; one warning per run of
///   damaged packets goes to ``warningHandler``. Damage never stops the recording.
///
/// Not thread-safe: used by its ``VideoFileDecoder``'s consumer.
package final class FootageAudioDecoder {
    /// The stream's index in the file.
    package let streamIndex: Int32
    /// The codec's short name (`aac`, `opus`, `mp3`, `pcm_s16le`, …).
    package let codecName: String
    /// The stream's time base: seconds per tick = num / den.
    package let timeBase: (num: Int32, den: Int32)
    /// The stream's own sample rate and channel count, as the container states them.
    package let sourceSampleRate: Int
    /// The stream's own channel count.
    package let sourceChannelCount: Int
    /// Output sample frames per second (one of ``AudioTrackSettings/supportedSampleRates``).
    package let sampleRate: Int
    /// Output channels, 1 or 2.
    package let channelCount: Int
    /// Audio packets demuxed so far.
    package private(set) var packetsDemuxed: Int64 = 0
    /// Audio packets flagged corrupt, rejected or decoded with concealed errors so far.
    package private(set) var corruptPackets = 0
    /// Called with one warning per run of damaged audio packets.
    package var warningHandler: ((String) -> Void)?

    private let decoder: CodecContext
    private let frame: Frame
    private let converter: AudioFormatConverter
    private var decoded: [DecodedAudio] = []
    private var finished = false
    /// Whether the packet last counted was damaged (a run of damage is open).
    private var inDamageRun = false
    private var currentPacketDamaged = false
    /// A packet after the first carried a new sequence header: the next samples decoded start a new sequence.
    private var newSequencePending = false

    /// The output rate for a stream at `rate` Hz: `rate` when AAC takes it, else 48 000.
    package static func outputSampleRate(for rate: Int) -> Int { AudioTrackSettings.supportedSampleRates.contains(rate) ? rate : 48000 }

    /// Opens the decoder of `stream` (an audio stream of an open input).
    /// - Throws: ``FFmpegError`` (`AVERROR_DECODER_NOT_FOUND` when FFmpeg has no decoder
    ///   for it, `avcodec_open2` errors, EINVAL for a stream without a sample rate).
    /// `output` (nil: the stream's own, as above) is the rate and channel count to convert to.
    init(stream: UnsafeMutablePointer<AVStream>, path: String, output: VideoSourceOptions.AudioOutputFormat? = nil) throws(FFmpegError) {
        let parameters = stream.pointee.codecpar!.pointee
        guard parameters.sample_rate > 0, parameters.ch_layout.nb_channels > 0 else {
            throw FFmpegError(
                call: "audio stream parameters", code: segrec_averror_einval(),
                context: "\(parameters.sample_rate) Hz, \(parameters.ch_layout.nb_channels) channels")
        }
        streamIndex = stream.pointee.index
        codecName = String(cString: avcodec_get_name(parameters.codec_id))
        timeBase = (stream.pointee.time_base.num, stream.pointee.time_base.den)
        sourceSampleRate = Int(parameters.sample_rate)
        sourceChannelCount = Int(parameters.ch_layout.nb_channels)
        sampleRate = output?.sampleRate ?? Self.outputSampleRate(for: sourceSampleRate)
        channelCount = output?.channelCount ?? min(2, sourceChannelCount)
        decoder = try CodecContext.openDecoder(for: stream, context: path)
        frame = try Frame()
        converter = AudioFormatConverter(sampleRate: sampleRate, channelCount: channelCount)
    }

    /// What the recording makes of the stream, for the manifest's notes.
    package var description: String {
        "\(codecName) \(sourceSampleRate) Hz, \(sourceChannelCount) channel\(sourceChannelCount == 1 ? "" : "s")"
            + " → AAC-LC \(sampleRate) Hz, \(channelCount) channel\(channelCount == 1 ? "" : "s")"
            + (sampleRate != sourceSampleRate ? " (resampled: AAC takes no \(sourceSampleRate) Hz)" : "")
            + (channelCount != sourceChannelCount ? " (mixed down to stereo)" : "")
    }

    /// The samples decoded since the last call, in order.
    package func takeDecoded() -> [DecodedAudio] {
        defer { decoded = [] }
        return decoded
    }

    /// Makes this decoder (a live source's new connection) continue `previous` (the
    /// connection before): its undelivered samples come first, its damage counts on,
    /// and this decoder's timestamps are given in `previous`'s time base (its sound is
    /// placed on that clock), the first samples marked ``DecodedAudio/startsNewConnection``.
    package func continuing(_ previous: FootageAudioDecoder) {
        decoded = previous.takeDecoded() + decoded
        corruptPackets += previous.corruptPackets
        packetsDemuxed += previous.packetsDemuxed
        reportedTimeBase = previous.reportedTimeBase
        newConnectionPending = true
    }

    /// The time base ``DecodedAudio/pts`` is given in: the stream's own, or the first
    /// connection's (``continuing(_:)``).
    package private(set) lazy var reportedTimeBase: (num: Int32, den: Int32) = timeBase
    private var newConnectionPending = false

    /// Decodes one packet of the stream (`avcodec_send_packet`, `avcodec_receive_frame`);
    /// `seconds` is its input time, for warnings.
    func decode(_ packet: UnsafeMutablePointer<AVPacket>, seconds: Double?) {
        guard !finished else { return }
        packetsDemuxed += 1
        currentPacketDamaged = false
        if packetsDemuxed > 1, av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, nil) != nil { newSequencePending = true }
        if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 { damaged("flagged corrupt by the demuxer", seconds: seconds) }
        var sent = avcodec_send_packet(decoder.pointer, packet)
        while sent == segrec_averror_eagain() {
            receive(seconds: seconds)
            sent = avcodec_send_packet(decoder.pointer, packet)
        }
        if sent < 0 { damaged("rejected by the \(codecName) decoder: \(FFmpegError.errorString(sent))", seconds: seconds) }
        receive(seconds: seconds)
        if !currentPacketDamaged { inDamageRun = false }
    }

    /// The end of the stream: the decoder and the rate conversion give back what they hold.
    func finish() {
        guard !finished else { return }
        finished = true
        if avcodec_send_packet(decoder.pointer, nil) >= 0 { receive(seconds: nil) }
        if let rest = try? converter.flush(), rest.frameCount > 0 { decoded.append(DecodedAudio(pts: nil, samplesBeforePTS: 0, pcm: rest)) }
    }

    private func receive(seconds: Double?) {
        while true {
            let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
            if received == segrec_averror_eagain() || received == segrec_averror_eof() { return }
            if received < 0 {
                damaged("not decoded: \(FFmpegError.errorString(received))", seconds: seconds)
                return
            }
            defer { av_frame_unref(frame.pointer) }
            let f = frame.pointer.pointee
            if f.decode_error_flags != 0 || f.flags & AV_FRAME_FLAG_CORRUPT != 0 { damaged("decoded with errors concealed", seconds: seconds) }
            let nopts = segrec_av_nopts_value()
            let pts = f.pts != nopts ? f.pts : (f.best_effort_timestamp != nopts ? f.best_effort_timestamp : nil)
            let delay = converter.delay
            do {
                let pcm = try converter.convert(frame.pointer)
                if pcm.frameCount > 0 {
                    var audio = DecodedAudio(pts: pts.map(rebased), samplesBeforePTS: delay, pcm: pcm)
                    audio.startsNewSequence = newSequencePending
                    audio.startsNewConnection = newConnectionPending
                    newSequencePending = false
                    newConnectionPending = false
                    decoded.append(audio)
                }
            } catch { damaged("not converted: \(error)", seconds: seconds) }
        }
    }

    /// `pts` of the stream's time base in ``reportedTimeBase``.
    private func rebased(_ pts: Int64) -> Int64 {
        let to = reportedTimeBase
        guard to != timeBase else { return pts }
        return av_rescale_q(pts, AVRational(num: timeBase.num, den: timeBase.den), AVRational(num: to.num, den: to.den))
    }

    /// Counts the current packet as damaged (once) and warns at the start of a run.
    private func damaged(_ reason: String, seconds: Double?) {
        guard !currentPacketDamaged else { return }
        currentPacketDamaged = true
        corruptPackets += 1
        guard !inDamageRun else { return }
        inDamageRun = true
        warningHandler?(
            "input audio damaged from packet \(packetsDemuxed - 1)" + (seconds.map { " at \(String(format: "%.3f", $0)) s" } ?? "") + " (\(reason)): "
                + "the decoder conceals what it can; sound it loses is silence in the segments")
    }
}
