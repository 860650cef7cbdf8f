// SegmentWriter's opening: the encoder, the streams and their tags, the partial file, its reservation and the MP4 header.
import CFFmpeg
import Foundation
import SegRecTime

extension SegmentWriter {
    /// Finds and configures the encoder, opened in the first of the pictures' layout, NV12 and
    /// yuv420p it takes, and makes the `mp4` muxer of the partial file (not yet created).
    static func openEncoder(settings: EncoderSettings, dimensions: VideoDimensions, timescale: Int32, inputFormat: PixelBuffer.PixelFormat, partialPath: String)
        throws -> (CodecContext, AVPixelFormat, OutputFormatContext)
    {
        let encoderName = settings.codec.encoderName
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw FFmpegError(call: "avcodec_find_encoder_by_name", code: segrec_averror_encoder_not_found(), context: encoderName)
        }
        let encoder = try CodecContext(codec: codec)
        let pixelFormat = [inputFormat.avPixelFormat, AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P].first { encoder.supports(pixelFormat: $0) } ?? AV_PIX_FMT_YUV420P
        let format = try OutputFormatContext(formatName: "mp4", path: partialPath)
        try Self.configure(
            encoder, settings: settings, dimensions: dimensions, timescale: timescale, pixelFormat: pixelFormat, globalHeader: format.wantsGlobalHeader)
        try check(avcodec_open2(encoder.pointer, codec, nil), "avcodec_open2", context: encoderName)
        return (encoder, pixelFormat, format)
    }

    /// Adds the video stream (time base `1/timescale`, the encoder's parameters, `hvc1` for
    /// HEVC, the sample aspect ratio, the tags and the display matrix) to `format`.
    static func addVideoStream(
        to format: OutputFormatContext, encoder: CodecContext, settings: EncoderSettings, timescale: Int32, displayRotationDegrees: Int?, creationTime: Date?,
        location: String? = nil
    ) throws -> UnsafeMutablePointer<AVStream> {
        let encoderName = settings.codec.encoderName
        guard let stream = avformat_new_stream(format.pointer, nil) else { throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem()) }
        stream.pointee.time_base = AVRational(num: 1, den: timescale)
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.pointer), "avcodec_parameters_from_context")
        if settings.codec == .hevc {
            // Apple players only open HEVC in MP4 when the sample entry is 'hvc1' (parameter
            // sets in the sample description), not FFmpeg's default 'hev1'.
            stream.pointee.codecpar!.pointee.codec_tag = segrec_mktag(0x68, 0x76, 0x63, 0x31)  // "hvc1"
        }
        stream.pointee.sample_aspect_ratio = encoder.pointer.pointee.sample_aspect_ratio
        try Self.tag(format: format, stream: stream, encoderName: encoderName, creationTime: creationTime ?? Date())
        if let location { try check(av_dict_set(&format.pointer.pointee.metadata, "location", location, 0), "av_dict_set", context: "location") }
        if let degrees = displayRotationDegrees { try setDisplayRotation(of: stream, degrees: degrees) }
        return stream
    }

    /// Stores `degrees` (counter-clockwise) as the stream's display matrix.
    static func setDisplayRotation(of stream: UnsafeMutablePointer<AVStream>, degrees: Int) throws(FFmpegError) {
        guard let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4) else {
            throw FFmpegError(call: "av_stream_new_side_data", code: segrec_averror_enomem())
        }
        // FFmpeg 5.1's av_display_rotation_set takes *clockwise* degrees while
        // av_display_rotation_get (and ffprobe's `rotation`) report counter-clockwise
        // ones; negate so the file reads back as `degrees`.
        UnsafeMutableRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_set($0, -Double(degrees)) }
    }

    /// Opens the AAC encoder and adds the audio stream (time base `1/sampleRate`) to `format`;
    /// nil for a file without sound.
    static func addAudioStream(to format: OutputFormatContext, audio: AudioTrackSettings?) throws -> (
        encoder: AudioEncoder, stream: UnsafeMutablePointer<AVStream>
    )? {
        guard let audio else { return nil }
        let audioEncoder = try AudioEncoder(settings: audio, globalHeader: format.wantsGlobalHeader)
        guard let audioStream = avformat_new_stream(format.pointer, nil) else {
            throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: "audio")
        }
        audioStream.pointee.time_base = AVRational(num: 1, den: Int32(audio.sampleRate))
        try check(avcodec_parameters_from_context(audioStream.pointee.codecpar, audioEncoder.context.pointer), "avcodec_parameters_from_context")
        try check(av_dict_set(&audioStream.pointee.metadata, "encoder", "\(SegRecVersion.libavcodecIdent) aac", 0), "av_dict_set", context: "audio encoder")
        return (audioEncoder, audioStream)
    }

    /// Creates the partial file and the reservation for the finished copy, then writes the
    /// MP4 header (fragmented when ``fragmentInterval`` is set) and makes the name durable.
    /// On a throw nothing of ours is left and the writer is closed.
    func openPartialFile() throws {
        do {
            let file = try FileAVIOContext(creating: partialURL.path, sizeLimit: sizeLimit)
            // Each fragment is made durable as it is cut, before anything counts it.
            file.syncsOnFlush = fragmentMicroseconds != nil
            format.attach(file)
        } catch {
            state = .closed(reason: "failed to open")  // deinit must not touch what is at the partial name
            throw error
        }
        do {
            // Closing writes the finished copy into room held from the start.
            let reservation = try SpaceReservation(creating: temporaryURL.path)
            format.file?.reservation = reservation
            self.reservation = reservation
        } catch {
            try? format.closeFile()
            SafeFile.remove(path: partialURL.path)
            state = .closed(reason: "failed to open")
            throw error
        }
        do {
            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            if let fragmentMicroseconds {
                // empty_moov + delay_moov: the moov (with the edit list that keeps pts exact
                // despite B-frames) is written with the first fragment; every later
                // fragment is a self-describing moof + mdat.
                av_dict_set(&options, "movflags", "empty_moov+default_base_moof+delay_moov", 0)
                av_dict_set(&options, "frag_duration", "\(fragmentMicroseconds)", 0)
            }
            try FaststartRemuxer.checkIO(avformat_write_header(format.pointer, &options), "avformat_write_header", format)
            fileTimeBase = stream.pointee.time_base
            if let failure = format.file?.flush() { throw failure }
            headerBytes = format.file?.bytesWritten ?? 0
            // The partial file's name is durable before its first fragment.
            SafeFile.syncDirectory(path: SafeFile.directory(of: partialURL.path))
        } catch {
            try? format.closeFile()
            SafeFile.remove(path: partialURL.path)
            reservation?.remove()
            state = .closed(reason: "failed to open")
            throw error
        }
    }

    /// The file's recording date (format `creation_time`) and the stream's encoder (stream
    /// `encoder`, `Lavc59.37.100 libx264`: the sample entry's compressor name), as ffmpeg
    /// tags its files. libavformat itself names the writing application (format `encoder`,
    /// MP4 `©too`: `Lavf59.27.100`; `avformat_write_header` replaces any other value).
    static func tag(format: OutputFormatContext, stream: UnsafeMutablePointer<AVStream>, encoderName: String, creationTime: Date) throws(FFmpegError) {
        try check(av_dict_set(&format.pointer.pointee.metadata, "creation_time", Self.iso8601(creationTime), 0), "av_dict_set", context: "creation_time")
        try check(
            av_dict_set(&stream.pointee.metadata, "encoder", "\(SegRecVersion.libavcodecIdent) \(encoderName)", 0), "av_dict_set", context: "stream encoder")
    }

    /// `date` as ISO 8601 UTC with microseconds (`2026-12-02T01:25:00.000000Z`), the form
    /// libavformat parses (`av_parse_time`).
    static func iso8601(_ date: Date) -> String { UTCTimestamp.string(date, fractionDigits: 6, rounding: .down) }

    /// `interval` in whole microseconds (at least 1), nil for nil or zero.
    static func microseconds(of interval: MediaTime?) throws(SegmentWriterError) -> Int32? {
        guard let interval, interval.value != 0 else { return nil }
        guard interval.value > 0, interval.timescale > 0 else { throw .invalidFragmentInterval(interval) }
        let micros = Int128(interval.value) * 1_000_000 / Int128(interval.timescale)
        guard micros <= Int128(Int32.max) else { throw .invalidFragmentInterval(interval) }
        return Int32(max(1, micros))
    }

    /// Sets size, pixel format, time base, rate, GOP, threads and the x264/x265 private
    /// options (`preset`, `crf`, `forced-idr`) on an unopened encoder context.
    static func configure(
        _ encoder: CodecContext, settings: EncoderSettings, dimensions: VideoDimensions, timescale: Int32, pixelFormat: AVPixelFormat, globalHeader: Bool
    ) throws(FFmpegError) {
        let context = encoder.pointer
        context.pointee.width = Int32(dimensions.width)
        context.pointee.height = Int32(dimensions.height)
        context.pointee.pix_fmt = pixelFormat
        // What the samples mean: the encoder writes it into the VUI, the muxer into colr / pasp.
        let picture = settings.pictureDescription
        context.pointee.color_range = AVColorRange(UInt32(bitPattern: picture.range))
        context.pointee.color_primaries = AVColorPrimaries(UInt32(bitPattern: picture.primaries))
        context.pointee.color_trc = AVColorTransferCharacteristic(UInt32(bitPattern: picture.transfer))
        context.pointee.colorspace = AVColorSpace(UInt32(bitPattern: picture.matrix))
        context.pointee.sample_aspect_ratio = AVRational(num: picture.sampleAspectRatio.width, den: picture.sampleAspectRatio.height)
        context.pointee.time_base = AVRational(num: 1, den: timescale)
        // Validated to fit in Int32.
        context.pointee.framerate = AVRational(num: Int32(settings.frameRate.numerator), den: Int32(settings.frameRate.denominator))
        context.pointee.gop_size = Int32(settings.keyframeInterval)
        context.pointee.thread_count = Int32(settings.threads)
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        if settings.encodesInterlaced(height: dimensions.height), let order = settings.fieldOrder {
            context.pointee.flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME
            context.pointee.field_order = order.isTopFieldDisplayedFirst ? AV_FIELD_TT : AV_FIELD_BB
        }

        let options = context.pointee.priv_data
        let name = encoder.codecName
        try check(av_opt_set(options, "preset", settings.preset, 0), "av_opt_set", context: "\(name) preset")
        try check(av_opt_set(options, "crf", "\(settings.crf)", 0), "av_opt_set", context: "\(name) crf")
        try check(av_opt_set(options, "forced-idr", "1", 0), "av_opt_set", context: "\(name) forced-idr")
        if settings.codec == .h264 {
            // x264 takes the VUI timing from the time base (1/timescale: "15360 fps") unless
            // its input is declared constant-rate; then it writes the nominal rate
            // (time_scale = 2 · rate, fixed_frame_rate_flag 1), as ffmpeg's own x264 files
            // say. Timestamps pass through unchanged either way. Interlaced: x264's own field
            // order too: with the flags alone it codes the fields' order counts top first, so
            // a bottom-field-first stream would read as top first (ffprobe `tt`, MediaInfo
            // TFF), as `ffmpeg -flags +ildct+ilme -top 0` does.
            var parameters = "force-cfr=1"
            if settings.encodesInterlaced(height: dimensions.height), let order = settings.fieldOrder {
                parameters += order.isTopFieldDisplayedFirst ? ":tff=1" : ":bff=1"
            }
            try check(av_opt_set(options, "x264-params", parameters, 0), "av_opt_set", context: "\(name) x264-params")
        }
        if settings.codec == .hevc {
            // x265 logs straight to stderr: only its errors; no CU-tree on narrow pictures.
            try check(av_opt_set(options, "x265-params", VideoCodec.x265Parameters(for: dimensions), 0), "av_opt_set", context: "\(name) x265-params")
        }
    }
}
