// EncodedVideoReader: the packets of an input's first video stream as they were sent (`--copy`), each with the size its codec's parser read.
import CFFmpeg
import Foundation
import SegRecTime

/// Reads the first video stream of anything libavformat opens (a file, a pipe, a live URL)
/// as packets, without decoding them: what `segrec record --copy` writes into its segments.
///
/// - Sizes: each packet goes through the codec's libavcodec parser (`av_parser_parse2`,
///   whole packets), which reads the sequence parameter set in force at a keyframe and fills
///   `AVCodecParserContext.width/height`; a packet's ``EncodedPicture/dimensions`` is the
///   last keyframe's. A parameter-set change that keeps the size is no change. VP9's parser
///   reads no size: its pictures keep the stream's.
/// - Parameter sets: an Annex B stream (MPEG-TS, RTP, raw H.264/HEVC) carries them in band;
///   the `extract_extradata` bitstream filter reads them from each packet that has them,
///   unchanged. A length-prefixed stream (MP4, FLV/RTMP) has them in the stream's extradata,
///   replaced by a packet's `AV_PKT_DATA_NEW_EXTRADATA`. Each keyframe carries the stream's
///   parameters with the parameter sets in force (``EncodedPicture/parameters``).
/// - Sound: the first audio stream's packets are handed out as they are (``EncodedPacket/audio(_:)``)
///   when the MP4 muxer takes its codec and `copiesAudio` is set; otherwise it is decoded
///   (``audio``) like ``VideoFileDecoder``'s, to be re-encoded into each segment.
/// - Live sources end like ``VideoFileDecoder``'s: an I/O timeout, a closed connection.
///
/// Not thread-safe: one consumer pulls packets with ``nextPacket()``.
package final class EncodedVideoReader {
    /// The codecs a copy takes: those the MP4 muxer stores.
    package static let copyableCodecs: Set<String> = ["h264", "hevc", "vp9", "av1"]
    /// The audio codecs the MP4 muxer stores, copied as sent; other sound is decoded (``audio``).
    package static let copyableAudioCodecs: Set<String> = ["aac", "opus", "mp3", "ac3", "eac3", "flac", "alac"]

    /// The path as given.
    package let path: String
    /// The video stream's time base.
    package let timeBase: (num: Int32, den: Int32)
    /// The stream's frame rate (`avg_frame_rate`, else `r_frame_rate`), if known.
    package let frameRate: FrameRate?
    /// Codec short name (`h264`, …).
    package let codecName: String
    /// Counter-clockwise display rotation from the stream's display matrix, or nil.
    package let rotationDegrees: Int?
    /// Whether the container's timestamps may jump (`AVFMT_TS_DISCONT`).
    package let allowsTimestampDiscontinuities: Bool
    /// The decoder of the first audio stream, when asked for and decodable.
    package let audio: FootageAudioDecoder?
    /// Audio streams in the input.
    package let audioStreamCount: Int
    /// The first audio stream when its packets are copied as sent (then ``audio`` is nil).
    let copiedAudio: UnsafeMutablePointer<AVStream>?
    /// The copied audio stream's sample rate (0 without one).
    package let copiedAudioSampleRate: Int
    /// The copied audio stream's channels and codec name, for the manifest.
    package let copiedAudioFormat: (channels: Int, codec: String)?
    /// What was noticed on opening.
    package private(set) var notes: [String] = []
    /// Called with each warning (a live source that ended, a packet the parser refused).
    package var warningHandler: ((String) -> Void)?
    /// Video packets read so far.
    package private(set) var packetsRead: Int64 = 0
    /// Whether reading ended because a stop was requested.
    package private(set) var wasInterrupted = false
    /// Why the live source ended, once it did (as ``VideoFileDecoder/liveEnd``).
    package private(set) var liveEnd: String?
    /// Whether that end is an outage a reconnection is worth trying for
    /// (``VideoFileDecoder/liveEndIsOutage``).
    package private(set) var liveEndIsOutage = false
    /// The options it was opened with.
    package let options: VideoSourceOptions

    let input: InputFormatContext
    let stream: UnsafeMutablePointer<AVStream>
    let parserCodec: CodecContext
    let parser: UnsafeMutablePointer<AVCodecParserContext>?
    let extractor: BitstreamFilter?
    let packet: Packet
    let stopRequest: RecordingStopRequest?
    let watchdog: InputWatchdog?
    /// The parameter sets in force (extradata form of the input).
    var extradata: [UInt8]
    /// The size read at the last keyframe.
    var dimensions: VideoDimensions
    var readingStopped = false
    var ended = false
    var consecutiveReadErrors = 0

    /// Opens `path` and its first video stream for copying.
    /// - Throws: ``MediaInputError`` (not found, unavailable, no video stream, a codec the
    ///   MP4 muxer does not take).
    ///   - decodesAudio: record the first audio stream (else every audio stream is ignored).
    ///   - copiesAudio: with `decodesAudio`, copy its packets as sent when the MP4 muxer
    ///     takes its codec (``copyableAudioCodecs``) instead of decoding it.
    package init(
        path: String, options: VideoSourceOptions = VideoSourceOptions(), stopRequest: RecordingStopRequest? = nil, decodesAudio: Bool = true,
        copiesAudio: Bool = false
    ) throws(MediaInputError) {
        FFmpegLog.silence()
        self.path = path
        self.stopRequest = stopRequest
        self.options = options
        let isLive = VideoSourceOptions.isLive(path)
        watchdog =
            isLive
            ? InputWatchdog(
                timeout: options.ioTimeout, initialAllowance: options.listen ? nil : options.ioTimeout + VideoSourceOptions.probeAllowance,
                firstPacketBy: options.firstPacketBy) : nil
        input = try VideoFileDecoder.openInput(path: path, options: options, stopRequest: stopRequest, watchdog: watchdog)
        _ = try VideoFileDecoder.probe(input, path: path, watchdog: watchdog)
        let streams = input.streams
        let video = try VideoFileDecoder.videoStream(in: streams, path: path)
        stream = video
        let parameters = video.pointee.codecpar!
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard Self.copyableCodecs.contains(codecName) else {
            throw .badInput(
                path: path, field: "codec",
                detail:
                    "\(codecName) cannot be copied into MP4 (--copy takes \(Self.copyableCodecs.sorted().joined(separator: ", "))); leave out --copy to re-encode it"
            )
        }
        let firstAudio = streams.first { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        let copied = firstAudio.flatMap { stream in
            decodesAudio && copiesAudio && Self.copyableAudioCodecs.contains(String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)))
                && stream.pointee.codecpar.pointee.sample_rate > 0 ? stream : nil
        }
        copiedAudio = copied
        if let copied {
            (audio, notes) = VideoFileDecoder.openAudio(of: streams, besides: video, decodesAudio: false, path: path)
            copied.pointee.discard = AVDISCARD_DEFAULT
            let described = VideoFileDecoder.describe(copied)
            notes.removeAll { $0.hasPrefix("input \(described) ") }
            let parameters = copied.pointee.codecpar.pointee
            copiedAudioSampleRate = Int(parameters.sample_rate)
            copiedAudioFormat = (Int(parameters.ch_layout.nb_channels), String(cString: avcodec_get_name(parameters.codec_id)))
            notes.append("input \(described) recorded as each segment's audio track, copied as sent (not decoded, not re-encoded)")
        } else {
            (audio, notes) = VideoFileDecoder.openAudio(of: streams, besides: video, decodesAudio: decodesAudio, path: path, output: options.audioOutput)
            copiedAudioSampleRate = 0
            copiedAudioFormat = nil
        }
        audioStreamCount = streams.filter { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }.count
        (timeBase, frameRate) = try VideoFileDecoder.timing(of: video, path: path, fallback: options.frameRate)
        rotationDegrees = MediaFileReader.rotation(of: video).flatMap { $0 % 90 == 0 ? $0 : nil }
        allowsTimestampDiscontinuities = input.pointer.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0
        dimensions = VideoDimensions(width: Int(parameters.pointee.width), height: Int(parameters.pointee.height))
        extradata = Self.bytes(parameters.pointee.extradata, Int(parameters.pointee.extradata_size))
        do {
            guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
                throw FFmpegError(call: "avcodec_find_decoder", code: segrec_averror_decoder_not_found(), context: codecName)
            }
            parserCodec = try CodecContext(codec: codec)
            try check(avcodec_parameters_to_context(parserCodec.pointer, parameters), "avcodec_parameters_to_context")
            packet = try Packet()
            let annexB = extradata.first != 1  // avcC / hvcC start with version 1
            extractor =
                (codecName == "h264" || codecName == "hevc") && annexB
                ? try BitstreamFilter(name: "extract_extradata", parameters: parameters, timeBase: video.pointee.time_base, source: path) : nil
        } catch { throw .badInput(path: path, field: "codec", detail: "cannot read \(codecName) packets: \(error)") }
        parser = av_parser_init(Int32(parameters.pointee.codec_id.rawValue))
        parser?.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        notes.insert(
            "input \(path == "-" ? "standard input" : path): \(codecName) \(dimensions), time base \(timeBase.num)/\(timeBase.den)"
                + (frameRate.map { ", \($0) fps" } ?? "") + "; copied as sent (--copy): not decoded, not re-encoded", at: 0)
        if parser == nil { notes.append("libavcodec has no \(codecName) parser: every picture keeps the stream's size \(dimensions)") }
    }

    deinit { if let parser { av_parser_close(parser) } }

    /// Reads no further packet; ``nextPacket()`` then returns nil.
    package func stopReading() { readingStopped = true }

    /// The next packet in decode order: a video packet with its size, or a packet of the
    /// copied audio stream; nil at the end of the input (or after a stop).
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` when the input cannot be
    ///   read any further.
    package func nextPacket() throws(MediaInputError) -> sending EncodedPacket? {
        guard !ended, let isVideo = try readPacket() else {
            if !ended { audio?.finish() }
            ended = true
            return nil
        }
        if isVideo {
            packetsRead += 1
            watchdog?.touch()
        }
        var isKeyframe = isVideo && packet.pointer.pointee.flags & AV_PKT_FLAG_KEY != 0
        if isVideo {
            takeParameterSets(of: packet.pointer, keyframe: isKeyframe)
            if let size = parsedSize(of: packet.pointer, keyframe: &isKeyframe) { dimensions = size }
        }
        av_packet_free_side_data(packet.pointer)
        guard let moved = segrec_av_packet_moved(packet.pointer) else { throw .badInput(path: path, field: "data", detail: "out of memory") }
        guard isVideo else { return .audio(EncodedAudioPacket(packet: Packet(adopting: moved), timeBase: audioTimeBase, sampleRate: copiedAudioSampleRate)) }
        guard isKeyframe else {
            return .video(EncodedPicture(packet: Packet(adopting: moved), dimensions: dimensions, isKeyframe: false, timeBase: timeBase, parameters: nil))
        }
        guard let parameters = EncodedStreamParameters.copying(stream.pointee.codecpar, extradata: extradata) else {
            throw .badInput(path: path, field: "data", detail: "out of memory")
        }
        guard let copiedAudio else {
            return .video(EncodedPicture(packet: Packet(adopting: moved), dimensions: dimensions, isKeyframe: true, timeBase: timeBase, parameters: parameters))
        }
        guard let audioParameters = EncodedStreamParameters.copying(copiedAudio.pointee.codecpar) else {
            throw .badInput(path: path, field: "data", detail: "out of memory")
        }
        return .video(
            EncodedPicture(
                packet: Packet(adopting: moved), dimensions: dimensions, isKeyframe: true, timeBase: timeBase, parameters: parameters,
                audioParameters: audioParameters))
    }

    /// The copied audio stream's time base (1/1 without one).
    package var audioTimeBase: (num: Int32, den: Int32) { copiedAudio.map { ($0.pointee.time_base.num, $0.pointee.time_base.den) } ?? (1, 1) }

    /// The parameter sets the packet brings: a new sequence header (FLV/RTMP side data), or
    /// those in band (`extract_extradata`, Annex B streams) of a keyframe's packet only: a
    /// file starts at a keyframe, and the access unit of a keyframe carries the parameter
    /// sets it starts with (the demuxers of Annex B streams assemble whole access units with
    /// libavcodec's parser), while scanning every packet's bytes for them cost more than
    /// the rest of copying it.
    func takeParameterSets(of packet: UnsafeMutablePointer<AVPacket>, keyframe: Bool) {
        var size = 0
        if let data = av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, &size), size > 0 {
            extradata = Self.bytes(data, size)
            return
        }
        guard keyframe, let extractor else { return }
        // The filter hands the same data back, with the parameter sets as side data.
        do {
            try extractor.send(packet)
            _ = try extractor.receive(into: packet)
        } catch {
            warningHandler?("\(path): packet \(packetsRead - 1): libavcodec's extract_extradata failed (\(error)); the parameter sets in force are kept")
            return
        }
        if let data = av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, &size), size > 0 { extradata = Self.bytes(data, size) }
    }

    /// The size the parser reads from the packet (at a keyframe), or nil; clears
    /// `isKeyframe` when the parser says the packet holds no keyframe although flagged one.
    func parsedSize(of packet: UnsafeMutablePointer<AVPacket>, keyframe isKeyframe: inout Bool) -> VideoDimensions? {
        guard let parser else { return nil }
        let p = packet.pointee
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: Int32 = 0
        _ = av_parser_parse2(parser, parserCodec.pointer, &output, &outputSize, p.data, p.size, p.pts, p.dts, p.pos)
        let width = Int(parser.pointee.width)
        let height = Int(parser.pointee.height)
        guard isKeyframe, width > 0, height > 0 else { return nil }
        return VideoDimensions(width: width, height: height)
    }

    /// `av_read_frame` until a packet of the video stream (true) or of the copied audio
    /// stream (false); decoded audio packets go to ``audio``; nil at the end, on a stop, or
    /// when the live source ended.
    func readPacket() throws(MediaInputError) -> Bool? {
        while true {
            if readingStopped || stopRequest?.isRequested == true {
                wasInterrupted = true
                return nil
            }
            let read = av_read_frame(input.pointer, packet.pointer)
            if read == segrec_averror_eagain() { continue }
            if let watchdog, read < 0, read != segrec_averror_invaliddata(), stopRequest?.isRequested != true {
                liveSourceEnded(watchdog: watchdog, read: read)
                return nil
            }
            if read == InputPipe.averrorExit || (read < 0 && stopRequest?.isRequested == true) {
                wasInterrupted = true
                return nil
            }
            if read == segrec_averror_eof() { return nil }
            if read < 0 {
                consecutiveReadErrors += 1
                if consecutiveReadErrors >= VideoFileDecoder.maximumConsecutiveReadErrors {
                    throw .badInput(path: path, field: "data", detail: "the input cannot be read past packet \(packetsRead): \(FFmpegError.errorString(read))")
                }
                continue
            }
            consecutiveReadErrors = 0
            if let copiedAudio, packet.pointer.pointee.stream_index == copiedAudio.pointee.index { return false }
            guard packet.pointer.pointee.stream_index == stream.pointee.index else {
                if let audio, packet.pointer.pointee.stream_index == audio.streamIndex { audio.decode(packet.pointer, seconds: audioSeconds(audio)) }
                av_packet_unref(packet.pointer)
                continue
            }
            return true
        }
    }

    /// A live source stopped (as ``VideoFileDecoder``'s): why, whether it is an outage,
    /// and a warning saying what follows (a reconnection, or the recording's end).
    func liveSourceEnded(watchdog: InputWatchdog, read: Int32) {
        let end = LiveSourceEnd(
            read: read, path: path, input: input.pointer, watchdog: watchdog, silence: "packet", packets: packetsRead, reconnectFor: options.reconnectFor)
        liveEnd = end.why
        liveEndIsOutage = end.isOutage
        if read != segrec_averror_eof() || packetsRead == 0 || liveEndIsOutage {
            warningHandler?("\(path): live source ended after \(packetsRead) packets: \(end.why); \(end.next)")
        }
    }

    /// The audio packet's time in seconds from the video stream's start, for warnings.
    func audioSeconds(_ audio: FootageAudioDecoder) -> Double? {
        let nopts = segrec_av_nopts_value()
        let time = packet.pointer.pointee.pts != nopts ? packet.pointer.pointee.pts : packet.pointer.pointee.dts
        guard time != nopts, audio.timeBase.den > 0 else { return nil }
        let start = stream.pointee.start_time == nopts ? 0 : Double(stream.pointee.start_time) * Double(timeBase.num) / Double(timeBase.den)
        return Double(time) * Double(audio.timeBase.num) / Double(audio.timeBase.den) - start
    }

    static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
