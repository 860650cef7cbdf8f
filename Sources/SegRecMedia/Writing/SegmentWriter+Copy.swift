// SegmentWriter's copied stream (`--copy`): packets written as they were sent, with their own relative timestamps; no encoder.
import CFFmpeg
import Foundation
import SegRecTime

extension SegmentWriter {
    /// The unopened codec context that carries a copied stream's parameters (its extradata:
    /// the parameter sets the file's sample description is made from), and the `mp4` muxer.
    static func copyingContext(_ parameters: EncodedStreamParameters, timescale: Int32, partialPath: String) throws -> (
        CodecContext, AVPixelFormat, OutputFormatContext
    ) {
        let id = parameters.pointer.pointee.codec_id
        guard let codec = avcodec_find_decoder(id) ?? avcodec_find_encoder(id) else {
            throw FFmpegError(call: "avcodec_find_decoder", code: segrec_averror_decoder_not_found(), context: parameters.codecName)
        }
        let context = try CodecContext(codec: codec)
        try check(avcodec_parameters_to_context(context.pointer, parameters.pointer), "avcodec_parameters_to_context", context: parameters.codecName)
        context.pointer.pointee.time_base = AVRational(num: 1, den: timescale)
        let format = try OutputFormatContext(formatName: "mp4", path: partialPath)
        return (context, AVPixelFormat(rawValue: parameters.pointer.pointee.format), format)
    }

    /// Adds the copied video stream: the input's codec parameters with the segment's first
    /// keyframe's parameter sets, time base `1/timescale`, `hvc1` for HEVC, the display
    /// matrix and the file's tags (no `encoder`: nothing was encoded).
    static func addCopiedStream(
        to format: OutputFormatContext, parameters: EncodedStreamParameters, dimensions: VideoDimensions, timescale: Int32, displayRotationDegrees: Int?,
        creationTime: Date?, location: String?
    ) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(format.pointer, nil) else { throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem()) }
        stream.pointee.time_base = AVRational(num: 1, den: timescale)
        try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.pointer), "avcodec_parameters_copy", context: parameters.codecName)
        let codecpar = stream.pointee.codecpar!
        // The size the parser read at the segment's first keyframe (the stream's may be an
        // earlier one's): the sample description's and the track header's.
        codecpar.pointee.width = Int32(dimensions.width)
        codecpar.pointee.height = Int32(dimensions.height)
        // The input container's tag means nothing in MP4: the muxer picks its own, but
        // Apple players want HEVC's parameter sets in the sample entry ('hvc1').
        codecpar.pointee.codec_tag = codecpar.pointee.codec_id == AV_CODEC_ID_HEVC ? segrec_mktag(0x68, 0x76, 0x63, 0x31) : 0
        stream.pointee.sample_aspect_ratio = codecpar.pointee.sample_aspect_ratio
        try check(
            av_dict_set(&format.pointer.pointee.metadata, "creation_time", Self.iso8601(creationTime ?? Date()), 0), "av_dict_set", context: "creation_time")
        if let location { try check(av_dict_set(&format.pointer.pointee.metadata, "location", location, 0), "av_dict_set", context: "location") }
        if let degrees = displayRotationDegrees { try setDisplayRotation(of: stream, degrees: degrees) }
        return stream
    }

    /// Writes one packet of the copied stream as it is (its data untouched, its side data
    /// dropped), in decode order: its pts and dts less the segment's first pts, from the
    /// input's time base into the track's, keep their spacing; the first packet must be a
    /// keyframe of the writer's size. `presentationTime` (the muxer's file time, which
    /// follows decode order) only bounds the segment's end.
    /// - Throws: ``SegmentWriterError/dimensionsMismatch(expected:got:)`` (a keyframe of
    ///   another size), ``SegmentWriterError/nonIncreasingPresentationTime(previous:got:)``
    ///   (a decode time that does not increase; the writer stays usable), or the muxer's
    ///   errors (then the writer has failed).
    func appendEncoded(_ picture: EncodedPicture, presentationTime: MediaTime) throws {
        try ensureOpen()
        precondition(copiesStream, "an encoded picture reached a writer that encodes")
        if picture.isKeyframe || copyOrigin == nil, picture.dimensions != dimensions {
            throw SegmentWriterError.dimensionsMismatch(expected: dimensions, got: picture.dimensions)
        }
        let p = picture.packet.pointer
        guard copyOrigin != nil || picture.isKeyframe else {
            throw SegmentWriterError.notWritable(path: partialURL.path, underlying: "a copied segment must start with a keyframe")
        }
        let origin = copyOrigin ?? p.pointee.pts
        let input = AVRational(num: picture.timeBase.num, den: picture.timeBase.den)
        let track = AVRational(num: 1, den: timescale)
        let pts = av_rescale_q(p.pointee.pts - origin, input, track)
        let dts = av_rescale_q(p.pointee.dts - origin, input, track)
        if let lastCopiedDTS, dts <= lastCopiedDTS {
            throw SegmentWriterError.nonIncreasingPresentationTime(previous: lastPresentationTime, got: presentationTime)
        }
        copyOrigin = origin
        lastCopiedDTS = dts
        lastPTS = max(lastPTS ?? pts, pts)
        lastPresentationTime = max(lastPresentationTime ?? presentationTime, presentationTime)
        frameCount += 1
        encodedBytes += Int64(p.pointee.size)
        do {
            av_packet_free_side_data(p)
            p.pointee.pts = pts
            p.pointee.dts = dts
            p.pointee.duration = p.pointee.duration > 0 ? av_rescale_q(p.pointee.duration, input, track) : 0
            p.pointee.pos = -1
            p.pointee.stream_index = stream.pointee.index
            av_packet_rescale_ts(p, track, stream.pointee.time_base)
            if hasHeldVideoPacket {
                let held = heldVideoPacket.pointer
                if p.pointee.dts > held.pointee.dts { held.pointee.duration = p.pointee.dts - held.pointee.dts }
                try writeHeldVideoPacket()
            }
            av_packet_move_ref(heldVideoPacket.pointer, p)
            hasHeldVideoPacket = true
        } catch {
            fail(error)
            throw error
        }
    }
}

extension SegmentWriter {
    /// Adds the audio stream copied as sent: the input's codec parameters, time base
    /// `1/sampleRate`, the muxer's own tag.
    static func addCopiedAudioStream(to format: OutputFormatContext, parameters: EncodedStreamParameters) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(format.pointer, nil) else {
            throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: "audio")
        }
        try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.pointer), "avcodec_parameters_copy", context: parameters.codecName)
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: parameters.pointer.pointee.sample_rate)
        return stream
    }

    /// Writes one packet of the copied audio stream as it is, at `fileTime` (its session time
    /// less the segment's start), rounded to the track's sample tick; its decode offset and
    /// duration kept. A packet at or before the previous one's time is skipped (false).
    /// - Throws: the muxer's errors (then the writer has failed).
    @discardableResult package func appendEncodedAudio(_ audio: EncodedAudioPacket, fileTime: MediaTime) throws -> Bool {
        try ensureOpen()
        guard let audioStream, let pts = TrackTiming.ticks(fileTime, atTimescale: Int32(audio.sampleRate)), pts >= 0 else { return false }
        if let lastCopiedAudioPTS, pts <= lastCopiedAudioPTS { return false }
        let p = audio.packet.pointer
        let input = AVRational(num: audio.timeBase.num, den: audio.timeBase.den)
        if audioStream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_AAC {
            // ADTS → raw AAC; the first packet carries the AudioSpecificConfig as new
            // extradata, which the mov muxer takes before it writes the moov (delay_moov).
            // Raw AAC with its extradata passes unchanged.
            do {
                let filter =
                    try adtsFilter ?? BitstreamFilter(name: "aac_adtstoasc", parameters: audioStream.pointee.codecpar, timeBase: input, source: url.path)
                adtsFilter = filter
                try filter.send(p)
                guard try filter.receive(into: p) else { return false }
            } catch {
                fail(error)
                throw error
            }
        }
        let samples = AVRational(num: 1, den: Int32(audio.sampleRate))
        let decodeOffset = p.pointee.dts != EncodedPicture.noTimestamp && p.pointee.pts != EncodedPicture.noTimestamp ? p.pointee.pts - p.pointee.dts : 0
        p.pointee.pts = pts
        p.pointee.dts = pts - av_rescale_q(decodeOffset, input, samples)
        p.pointee.duration = av_rescale_q(p.pointee.duration, input, samples)
        p.pointee.pos = -1
        p.pointee.stream_index = audioStream.pointee.index
        lastCopiedAudioPTS = pts
        audioSampleCount = pts + p.pointee.duration
        av_packet_rescale_ts(p, samples, audioStream.pointee.time_base)
        do {
            let written = av_write_frame(format.pointer, p)
            if let failure = format.file?.flush() { throw failure }
            try check(written, "av_write_frame", context: "\(partialURL.path) audio")
            audioPacketsWritten += 1
        } catch {
            fail(error)
            throw error
        }
        return true
    }
}
