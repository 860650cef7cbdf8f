import CFFmpeg
import Foundation
import SegRecTime

/// Writes one MP4 file holding one video stream, encoded from timestamped 4:2:0 pictures
/// (NV12 or yuv420p ``PixelBuffer``s): segrec's analog of an `AVAssetWriter` with one
/// `AVAssetWriterInput`.
///
/// Built on libavcodec (libx264 / libx265 encoders), libavformat (the `mp4` muxer) and,
/// only when the encoder cannot take the pictures' layout (NV12 into libx265), libswscale.
///
/// - Zero copy: the encoder is opened in the pictures' own layout when it takes it (x264
///   takes NV12 and yuv420p, x265 yuv420p), and a picture whose planes carry FFmpeg's
///   padding is handed to it as an `AVFrame` over those planes (`Frame.reference(_:recyclingInto:)`),
///   not copied; the planes go back to the ``PixelBufferPool`` once the encoder releases
///   them (libx264 and libx265 copy the picture into their own frames during
///   `avcodec_send_frame`).
///
/// - Timestamps: encoder and stream use the time base `1/timescale` (the recorder takes
///   ``TrackTiming/timescale(for:)``, the frame rate's own tick); a presentation time is
///   rounded once to the nearest tick (exact when it is a whole number of ticks), and a
///   frame that would share the previous one's tick gets the next one. The file's timeline
///   starts at the first frame (pts 0).
/// - Durations: each frame lasts until the next frame's pts; the last lasts until the
///   `endTime` passed to ``finish(endTime:)``. The finished file's sample table lists
///   exactly those durations in presentation order (see `FaststartRemuxer`), with or
///   without B-frames, so a constant-rate segment has one `stts` entry.
/// - Files: writing goes to `<name>.partial` next to `url`. With a ``fragmentInterval``
///   (the default, 1 s) the partial file is a fragmented MP4 (`empty_moov`,
///   `default_base_moof`, `delay_moov`, `frag_duration`): a fragment is cut at least every
///   interval (even inside a long GOP), written (`write(2)`) and made durable
///   (`fdatasync(2)`; the folder is `fsync`ed once the file is created) when it is cut, so a
///   `kill -9` or a power cut loses at most the fragment being built; ``SegmentRecovery``
///   turns such a file into a finished one. Without fragments the partial file is an ordinary
///   MP4 (`moov` at the end). Either way ``finish(endTime:)`` remuxes it (stream copy, see
///   `FaststartRemuxer`) into `<name>.tmp`, an ordinary MP4 with its `moov` before its
///   `mdat` (`faststart`) and its final sample timing, `fdatasync`s it and gives that file
///   the name `url` (the folder `fsync`ed).
/// - Room for closing: `<name>.tmp` is created with the partial file and holds a
///   `SpaceReservation` grown ahead of every write that lengthens the partial file, so the
///   finished copy is written into blocks already held; a write the reservation cannot
///   cover fails with ENOSPC (the partial file and the reservation stay, so the fragments
///   can be finished on the still-full disk).
/// - Safe files: every file is created with `O_CREAT|O_EXCL|O_NOFOLLOW` and written
///   through our own `AVIOContext` (`SafeFile`, `FileAVIOContext`); anything already at
///   the partial or temporary name (a file, a symbolic link) is an error, and the final
///   name is given with `link(2)`, which never replaces an existing `url` nor follows a
///   link there.
/// - Write errors (disk full, EIO) are checked on every `write(2)` and thrown as
///   ``SegmentWriterError/io(path:operation:errno:)`` by the call that caused them.
/// - When the partial file is deleted: by ``cancel()``, by releasing an unfinished writer,
///   by ``finish(endTime:)`` once the final file is in place (or when no frame was
///   appended), and after a failure that is *not* an I/O error while the partial file
///   holds nothing recoverable yet (no fragment written; unfragmented: before the
///   trailer). After an I/O error, or any failure once a fragment was written, the partial
///   file stays on disk with every complete fragment for ``SegmentRecovery``.
///
/// Not thread-safe: use one writer from one task at a time.
package final class SegmentWriter {
    /// The final file (created by ``finish(endTime:)``).
    package let url: URL
    /// The file written until ``finish(endTime:)``: `url` + `.partial` (fragmented MP4
    /// when ``fragmentInterval`` is set).
    package let partialURL: URL
    /// Where ``finish(endTime:)`` writes the final MP4 before naming it `url`:
    /// `url` + `.tmp` (only used with fragments).
    package let temporaryURL: URL
    /// The longest time between two fragment cuts of the partial file (nil: not fragmented).
    package let fragmentInterval: MediaTime?
    /// Dimensions every picture must have.
    package let dimensions: VideoDimensions
    /// Ticks per second of the encoder's and the stream's time base (`1/timescale`).
    package let timescale: Int32
    /// The time base the muxer gave the stream (FFmpeg's mov muxer raises a timescale below
    /// 10 000 by powers of 2); equal to `1/timescale` for the recorder's timescales.
    private var fileTimeBase = AVRational(num: 0, den: 1)
    /// The validated encoder settings.
    package let settings: EncoderSettings
    /// Frames accepted by `append(_:presentationTime:recyclingInto:)` so far.
    package private(set) var frameCount = 0
    /// Bytes of the packets the encoder has put out so far (the file's media data; its
    /// header and index come on top). The encoder holds back the packets of its last
    /// frames (lookahead, B-frames, frame threads) until more frames come or it is flushed.
    package private(set) var encodedBytes: Int64 = 0

    private enum State {
        case open
        case failed(any Error)
        case closed(reason: String)
    }

    private let format: OutputFormatContext
    private let encoder: CodecContext
    private let stream: UnsafeMutablePointer<AVStream>
    /// The frame pictures are copied or converted into when they cannot be referenced.
    private let frame: Frame
    /// The frame that references a picture's own planes (holds no buffers between appends).
    private let referenceFrame: Frame
    private let packet: Packet
    private let encoderPixelFormat: AVPixelFormat
    /// libswscale contexts from a picture layout the encoder does not take, made on first use.
    private var scalers: [AVPixelFormat: ScaleContext] = [:]
    /// Field flags every frame carries (interlaced H.264), as (interlaced, top field first).
    private let fieldFlags: (Int32, Int32)
    private var state = State.open
    private var lastPTS: Int64?
    /// The last presentation time given to ``append(_:presentationTime:)``, unrounded.
    private var lastPresentationTime: MediaTime?
    /// pts → duration (encoder time base) of frames whose successor (or end) is known.
    private var durations: [Int64: Int64] = [:]
    /// Encoded packets, in decode order, waiting for their duration to be known.
    private var pending: [Packet] = []
    /// The last video packet handed on (stream time base), held until the next one's
    /// decode time is known (see ``write(_:)``); `hasHeldVideoPacket` says whether it holds one.
    private let heldVideoPacket: Packet
    private var hasHeldVideoPacket = false
    private var packetsWritten = 0
    /// `frag_duration` in microseconds, nil when not fragmented.
    private let fragmentMicroseconds: Int32?
    /// Test hook: every file this writer creates fails with ENOSPC past this size.
    private let sizeLimit: Int64?
    /// The audio track's format and encoding, nil for a file without sound.
    package let audioSettings: AudioTrackSettings?
    /// Sample frames given to ``appendAudio(_:)`` so far: the audio track's length in samples.
    package private(set) var audioSampleCount: Int64 = 0
    private let audioEncoder: AudioEncoder?
    private let audioStream: UnsafeMutablePointer<AVStream>?
    /// The last audio packet out of the encoder, held until the next one (or the end) is
    /// known, so the last one can be given the duration that ends the track exactly.
    private var heldAudioPacket: Packet?
    private var audioPacketsWritten = 0
    /// Bytes the header wrote to the partial file.
    private var headerBytes: Int64 = 0
    /// Whether the partial file holds something ``SegmentRecovery`` can use (a fragment,
    /// or, unfragmented, the finished file).
    private var isRecoverable = false
    /// The room held at ``temporaryURL`` for the finished copy (``SpaceReservation``).
    private var reservation: SpaceReservation?

    /// Opens the encoder, creates the partial file and writes the MP4 header.
    ///
    /// - Parameters:
    ///   - url: the final file; must not exist.
    ///   - dimensions: picture size in pixels (even, positive).
    ///   - timescale: ticks per second of the track (the recorder uses
    ///     ``TrackTiming/timescale(for:)`` of the nominal frame rate); becomes the time base
    ///     `1/timescale`. Presentation times are rounded to it.
    ///   - settings: codec, preset, CRF, GOP, threads, nominal rate; validated here.
    ///   - displayRotationDegrees: if given, stored as the stream's display matrix
    ///     (`AV_PKT_DATA_DISPLAYMATRIX` via `av_display_rotation_set`, written to the `tkhd`
    ///     matrix): counter-clockwise degrees, exactly what ffprobe prints as `rotation` and
    ///     ``StreamInfo/rotationDegrees`` reads back.
    ///   - fragmentInterval: the longest time between fragment cuts of the partial file
    ///     (`frag_duration`, rounded down to whole microseconds, at least 1 µs); nil or zero
    ///     writes an unfragmented partial file.
    ///   - pixelFormat: the layout of the pictures to come (default NV12): the encoder is
    ///     opened in it when it takes it, so those pictures need no conversion; pictures of
    ///     another layout are still accepted (converted by libswscale).
    ///   - creationTime: the file's recording date (`creation_time`: the `mvhd`, `tkhd` and
    ///     `mdhd` creation and modification times, whole seconds); default: now.
    /// - Throws: ``SegmentWriterError/fileExists(path:)`` (`url` exists),
    ///   ``SegmentWriterError/partialFileExists(path:)`` (anything, even a symbolic link, at
    ///   `<name>.partial`, e.g. left by a crash: recover or remove it first; it is not
    ///   touched), ``SegmentWriterError/invalidTimescale(_:)``,
    ///   ``SegmentWriterError/invalidFragmentInterval(_:)``,
    ///   ``SegmentWriterError/pictureTooSmall(path:dimensions:codec:)`` (below the codec's
    ///   ``VideoCodec/minimumDimensions``),
    ///   ``SegmentWriterError/io(path:operation:errno:)`` (writing the header),
    ///   ``EncoderSettingsError``, or ``FFmpegError`` (e.g. `avcodec_find_encoder_by_name`
    ///   with `AVERROR_ENCODER_NOT_FOUND`, `open` with ENOENT for a missing directory).
    ///   On a throw no file of ours is left.
    package convenience init(
        url: URL, dimensions: VideoDimensions, timescale: Int32, settings: EncoderSettings, displayRotationDegrees: Int? = nil,
        fragmentInterval: MediaTime? = MediaTime(value: 1, timescale: 1), pixelFormat: PixelBuffer.PixelFormat = .nv12, creationTime: Date? = nil,
        audio: AudioTrackSettings? = nil
    ) throws {
        try self.init(
            url: url, dimensions: dimensions, timescale: timescale, settings: settings, displayRotationDegrees: displayRotationDegrees,
            fragmentInterval: fragmentInterval, sizeLimit: nil, pixelFormat: pixelFormat, creationTime: creationTime, audio: audio)
    }

    /// The designated initializer; `sizeLimit` (tests only) makes every file this writer
    /// creates fail with ENOSPC past that many bytes, like a full disk.
    init(
        url: URL, dimensions: VideoDimensions, timescale: Int32, settings: EncoderSettings, displayRotationDegrees: Int?, fragmentInterval: MediaTime?,
        sizeLimit: Int64?, pixelFormat inputFormat: PixelBuffer.PixelFormat = .nv12, creationTime: Date? = nil, audio: AudioTrackSettings? = nil
    ) throws {
        FFmpegLog.silence()
        try settings.validate()
        guard timescale > 0 else { throw SegmentWriterError.invalidTimescale(timescale) }
        let fragmentMicroseconds = try Self.microseconds(of: fragmentInterval)
        precondition(
            dimensions.width > 0 && dimensions.height > 0 && dimensions.width % 2 == 0 && dimensions.height % 2 == 0,
            "NV12 needs even, positive dimensions, got \(dimensions)")
        guard settings.codec.accepts(dimensions) else {
            throw SegmentWriterError.pictureTooSmall(path: url.path, dimensions: dimensions, codec: settings.codec)
        }
        guard !SafeFile.exists(path: url.path) else { throw SegmentWriterError.fileExists(path: url.path) }
        self.url = url
        self.partialURL = SegmentFiles(url).partial
        self.temporaryURL = SegmentFiles(url).temporary
        self.fragmentMicroseconds = fragmentMicroseconds
        self.fragmentInterval = fragmentMicroseconds == nil ? nil : fragmentInterval
        self.sizeLimit = sizeLimit
        self.dimensions = dimensions
        self.timescale = timescale
        self.settings = settings

        let encoderName = settings.codec.encoderName
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw FFmpegError(call: "avcodec_find_encoder_by_name", code: segrec_averror_encoder_not_found(), context: encoderName)
        }
        let encoder = try CodecContext(codec: codec)
        let pixelFormat = [inputFormat.avPixelFormat, AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P].first { encoder.supports(pixelFormat: $0) } ?? AV_PIX_FMT_YUV420P
        let format = try OutputFormatContext(formatName: "mp4", path: partialURL.path)
        try Self.configure(
            encoder, settings: settings, dimensions: dimensions, timescale: timescale, pixelFormat: pixelFormat, globalHeader: format.wantsGlobalHeader)
        try check(avcodec_open2(encoder.pointer, codec, nil), "avcodec_open2", context: encoderName)

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
        if let degrees = displayRotationDegrees {
            guard let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4) else {
                throw FFmpegError(call: "av_stream_new_side_data", code: segrec_averror_enomem())
            }
            // FFmpeg 5.1's av_display_rotation_set takes *clockwise* degrees while
            // av_display_rotation_get (and ffprobe's `rotation`) report counter-clockwise
            // ones; negate so the file reads back as `degrees`.
            UnsafeMutableRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_set($0, -Double(degrees)) }
        }
        self.audioSettings = audio
        if let audio {
            let audioEncoder = try AudioEncoder(settings: audio, globalHeader: format.wantsGlobalHeader)
            guard let audioStream = avformat_new_stream(format.pointer, nil) else {
                throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem(), context: "audio")
            }
            audioStream.pointee.time_base = AVRational(num: 1, den: Int32(audio.sampleRate))
            try check(avcodec_parameters_from_context(audioStream.pointee.codecpar, audioEncoder.context.pointer), "avcodec_parameters_from_context")
            try check(av_dict_set(&audioStream.pointee.metadata, "encoder", "\(SegRecVersion.libavcodecIdent) aac", 0), "av_dict_set", context: "audio encoder")
            self.audioEncoder = audioEncoder
            self.audioStream = audioStream
        } else {
            self.audioEncoder = nil
            self.audioStream = nil
        }
        // mvhd/elst durations at a timescale both tracks' ticks divide (the track's own
        // without sound), so both edit lists are exact.
        try check(
            av_opt_set_int(
                format.pointer.pointee.priv_data, "movie_timescale", TrackTiming.movieTimescale(videoTimescale: timescale, audioSampleRate: audio?.sampleRate),
                0), "av_opt_set_int", context: "movie_timescale")

        let frame = try Frame()
        try frame.allocateBuffers(format: pixelFormat, width: dimensions.width, height: dimensions.height)
        if settings.encodesInterlaced(height: dimensions.height), let order = settings.fieldOrder {
            // x264 takes its field order from each frame.
            fieldFlags = (1, order.isTopFieldDisplayedFirst ? 1 : 0)
        } else {
            fieldFlags = (0, 0)
        }
        self.encoderPixelFormat = pixelFormat
        self.referenceFrame = try Frame()
        self.packet = try Packet()
        self.heldVideoPacket = try Packet()
        self.frame = frame
        self.encoder = encoder
        self.format = format
        self.stream = stream

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
    private static func tag(format: OutputFormatContext, stream: UnsafeMutablePointer<AVStream>, encoderName: String, creationTime: Date) throws(FFmpegError) {
        try check(av_dict_set(&format.pointer.pointee.metadata, "creation_time", Self.iso8601(creationTime), 0), "av_dict_set", context: "creation_time")
        try check(
            av_dict_set(&stream.pointee.metadata, "encoder", "\(SegRecVersion.libavcodecIdent) \(encoderName)", 0), "av_dict_set", context: "stream encoder")
    }

    /// `date` as ISO 8601 UTC with microseconds (`2026-12-02T01:25:00.000000Z`), the form
    /// libavformat parses (`av_parse_time`).
    static func iso8601(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec), Int(micros - seconds * 1_000_000))
    }

    /// `interval` in whole microseconds (at least 1), nil for nil or zero.
    private static func microseconds(of interval: MediaTime?) throws(SegmentWriterError) -> Int32? {
        guard let interval, interval.value != 0 else { return nil }
        guard interval.value > 0, interval.timescale > 0 else { throw .invalidFragmentInterval(interval) }
        let micros = Int128(interval.value) * 1_000_000 / Int128(interval.timescale)
        guard micros <= Int128(Int32.max) else { throw .invalidFragmentInterval(interval) }
        return Int32(max(1, micros))
    }

    /// Sets size, pixel format, time base, rate, GOP, threads and the x264/x265 private
    /// options (`preset`, `crf`, `forced-idr`) on an unopened encoder context.
    private static func configure(
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

    /// Encodes one picture held in segrec's planes: the ``FramePixels`` overload
    /// with ``FramePixels/pixelBuffer(_:)``.
    package func append(_ buffer: PixelBuffer, presentationTime: MediaTime, recyclingInto pool: PixelBufferPool? = nil) throws {
        try append(FramePixels.pixelBuffer(buffer), presentationTime: presentationTime, recyclingInto: pool)
    }

    /// Encodes one picture.
    ///
    /// - Parameters:
    ///   - pixels: NV12 or yuv420p picture of ``dimensions`` (any strides). In the encoder's
    ///     pixel format it reaches the encoder without a copy: a ``PixelBuffer`` with FFmpeg's
    ///     padding as read-only `AVBufferRef`s around its planes, a ``DecodedFrameBuffer`` by
    ///     `av_frame_ref` of the decoder's buffers.
    ///   - pool: where a ``PixelBuffer``'s planes go once the encoder is done with them (at
    ///     once when they were copied; when the encoder releases them when they were
    ///     referenced); nil: they are simply released. A decoder's buffers go back to the
    ///     decoder's pool when the last reference goes.
    ///   - presentationTime: relative to the segment's start (first frame normally 0), at any
    ///     timescale; rounded to the nearest tick of ``timescale`` (half away from zero), or
    ///     the tick after the previous frame's when it would not come after it. The first
    ///     frame is forced to be a keyframe (`AV_PICTURE_TYPE_I`, IDR).
    /// - Throws: ``SegmentWriterError/dimensionsMismatch(expected:got:)``,
    ///   ``SegmentWriterError/timeNotRepresentable(_:timescale:)`` (the tick count does not
    ///   fit in Int64),
    ///   ``SegmentWriterError/nonIncreasingPresentationTime(previous:got:)`` (these leave the
    ///   writer usable), ``SegmentWriterError/io(path:operation:errno:)`` when writing the
    ///   partial file fails (e.g. ENOSPC while a fragment is cut), or ``FFmpegError`` from
    ///   `avcodec_send_frame` / `avcodec_receive_packet` / `av_write_frame`. After those the
    ///   writer has failed (``finish(endTime:)`` rethrows the error) and its partial file is
    ///   kept or deleted as the type's documentation says.
    package func append(_ pixels: FramePixels, presentationTime: MediaTime, recyclingInto pool: PixelBufferPool? = nil) throws {
        try ensureOpen()
        guard pixels.dimensions == dimensions else { throw SegmentWriterError.dimensionsMismatch(expected: dimensions, got: pixels.dimensions) }
        guard var pts = TrackTiming.ticks(presentationTime, atTimescale: timescale), pts < Int64.max else {
            throw SegmentWriterError.timeNotRepresentable(presentationTime, timescale: timescale)
        }
        if let lastPresentationTime, let lastPTS {
            guard presentationTime > lastPresentationTime else {
                throw SegmentWriterError.nonIncreasingPresentationTime(previous: lastPresentationTime, got: presentationTime)
            }
            pts = max(pts, lastPTS + 1)
        } else if presentationTime < .zero {
            throw SegmentWriterError.nonIncreasingPresentationTime(previous: nil, got: presentationTime)
        }
        do {
            let input = try encoderFrame(for: pixels, recyclingInto: pool)
            defer { if input === referenceFrame { av_frame_unref(input.pointer) } }
            let isFirst = lastPTS == nil
            let f = input.pointer
            f.pointee.pts = pts
            f.pointee.pict_type = isFirst ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            f.pointee.key_frame = isFirst ? 1 : 0
            f.pointee.interlaced_frame = fieldFlags.0
            f.pointee.top_field_first = fieldFlags.1
            if let lastPTS { durations[lastPTS] = pts - lastPTS }
            lastPTS = pts
            lastPresentationTime = presentationTime
            frameCount += 1
            try check(avcodec_send_frame(encoder.pointer, f), "avcodec_send_frame", context: partialURL.path)
            try drainEncoder()
        } catch {
            fail(error)
            throw error
        }
    }

    /// Flushes the encoder, gives the last frame the duration `endTime − last pts`, writes
    /// the MP4 trailer (`av_write_trailer`) and closes the partial file; with fragments,
    /// remuxes it into ``temporaryURL`` as an ordinary `faststart` MP4 (same pts, dts,
    /// durations, codec tag, extradata and rotation) and deletes it once the final file is
    /// in place. The final file gets the name ``url`` with `link(2)` (never replacing).
    ///
    /// - Parameter endTime: the segment's end relative to its start, at any timescale, after
    ///   the last frame's presentation time; rounded like a presentation time (and at least
    ///   one tick after the last frame's pts).
    /// - Returns: the summary. With no frames appended, no file is created (the partial file
    ///   is deleted) and the summary has `frameCount` 0, `byteCount` 0 and `url` nil.
    /// - Throws: ``SegmentWriterError`` for a bad `endTime` (the writer stays usable), or the
    ///   error that made an earlier call fail, or, from finishing,
    ///   ``SegmentWriterError/io(path:operation:errno:)`` (partial or temporary file),
    ///   ``SegmentWriterError/fileExists(path:)`` (``url`` appeared meanwhile; it is not
    ///   touched), ``SegmentWriterError/partialFileExists(path:)`` (something at
    ///   ``temporaryURL``), ``SegmentWriterError/renameFailed(from:to:reason:)`` or
    ///   ``FFmpegError``. On any such error nothing of ours is left under ``url`` or
    ///   ``temporaryURL``; the partial file is kept once it holds a fragment (or, unfragmented,
    ///   once its trailer is written) and after any I/O error.
    package func finish(endTime: MediaTime) throws -> SegmentWriterSummary {
        try ensureOpen()
        guard var endTicks = TrackTiming.ticks(endTime, atTimescale: timescale) else {
            throw SegmentWriterError.timeNotRepresentable(endTime, timescale: timescale)
        }
        guard let lastPTS, let lastPresentationTime else {
            discardPartialFile(reason: "finished with no frames")
            return SegmentWriterSummary(frameCount: 0, byteCount: 0, url: nil, duration: MediaTime(value: endTicks, timescale: timescale))
        }
        guard endTime > lastPresentationTime else { throw SegmentWriterError.endTimeNotAfterLastFrame(lastFrame: lastPresentationTime, endTime: endTime) }
        endTicks = max(endTicks, lastPTS + 1)
        let duration = MediaTime(value: endTicks, timescale: timescale)
        durations[lastPTS] = endTicks - lastPTS
        do {
            try check(avcodec_send_frame(encoder.pointer, nil), "avcodec_send_frame", context: "flush")
            try drainEncoder(writing: false)
            try writeTail(end: endTicks)
            try finishAudio()
            guard packetsWritten == frameCount, durations.isEmpty else {
                throw SegmentWriterError.packetCountMismatch(frames: frameCount, packets: packetsWritten)
            }
            try FaststartRemuxer.checkIO(av_write_trailer(format.pointer), "av_write_trailer", format)
            if let failure = format.file?.flush() { throw failure }
            try format.closeFile()
            isRecoverable = true
            guard !SafeFile.exists(path: url.path) else { throw SegmentWriterError.fileExists(path: url.path) }
            let size = try remuxPartialFile(end: endTicks)
            state = .closed(reason: "finished")
            return SegmentWriterSummary(frameCount: frameCount, byteCount: size, url: url, duration: duration)
        } catch {
            fail(error)
            throw error
        }
    }

    /// Encodes `pcm` into the audio track, right after the samples given before: the
    /// track's sample `k` is the `k`-th sample frame given, at file time `k / sampleRate`.
    /// - Throws: ``SegmentWriterError/notWritable(path:underlying:)`` without an audio track,
    ///   ``FFmpegError`` from the encoder or muxer, ``SegmentWriterError/io(path:operation:errno:)``.
    ///   After those the writer has failed.
    package func appendAudio(_ pcm: AudioPCMBuffer) throws {
        try ensureOpen()
        guard let audioEncoder, let audioSettings, pcm.channelCount == audioSettings.channelCount else {
            throw SegmentWriterError.notWritable(path: url.path, underlying: "no audio track of \(pcm.channelCount) channels")
        }
        guard pcm.frameCount > 0 else { return }
        do {
            audioSampleCount += Int64(pcm.frameCount)
            for packet in try audioEncoder.encode(pcm) { try holdAudio(packet) }
        } catch {
            fail(error)
            throw error
        }
    }

    /// Writes the held audio packet (its duration as the encoder gave it) and holds `packet`.
    private func holdAudio(_ packet: Packet) throws {
        if let held = heldAudioPacket { try writeAudio(held, duration: nil) }
        heldAudioPacket = packet
    }

    /// Flushes the audio encoder and writes the last packet so that the track ends at
    /// exactly ``audioSampleCount`` samples (the edit list then hides the priming and the
    /// padding: the presentation lasts exactly the samples given).
    private func finishAudio() throws {
        guard let audioEncoder else { return }
        for packet in try audioEncoder.flush() { try holdAudio(packet) }
        if let held = heldAudioPacket {
            heldAudioPacket = nil
            try writeAudio(held, duration: max(1, audioSampleCount - held.pointer.pointee.pts))
        }
    }

    private func writeAudio(_ packet: Packet, duration: Int64?) throws {
        guard let audioStream, let audioEncoder else { return }
        let p = packet.pointer
        defer { av_packet_unref(p) }
        if let duration { p.pointee.duration = duration }
        p.pointee.stream_index = audioStream.pointee.index
        av_packet_rescale_ts(p, audioEncoder.context.pointer.pointee.time_base, audioStream.pointee.time_base)
        let written = av_write_frame(format.pointer, p)
        if let failure = format.file?.flush() { throw failure }
        try check(written, "av_write_frame", context: "\(partialURL.path) audio")
        audioPacketsWritten += 1
    }

    /// Abandons the segment: closes the file and deletes the partial file (even one holding
    /// fragments). After a failure it does nothing: the partial file stays as the failure
    /// left it. Idempotent; later
    /// calls to `append(_:presentationTime:recyclingInto:)` / ``finish(endTime:)`` throw.
    package func cancel() { if case .open = state { discardPartialFile(reason: "cancelled") } }

    deinit { if case .open = state { discardPartialFile(reason: "released") } }

    // MARK: - Internals

    /// The frame that carries `buffer` to the encoder: ``referenceFrame`` over the picture's
    /// own planes when the encoder takes its layout and the planes carry FFmpeg's padding
    /// (the planes go to `pool` when released); else ``frame`` with the pixels copied or
    /// converted into it (the planes go to `pool` at once).
    private func encoderFrame(for pixels: FramePixels, recyclingInto pool: PixelBufferPool?) throws -> Frame {
        let buffer: PixelBuffer
        switch pixels {
        case .pixelBuffer(let own): buffer = own
        case .decoded(let decoded):
            if decoded.pixelFormat.avPixelFormat == encoderPixelFormat {
                try check(av_frame_ref(referenceFrame.pointer, decoded.frame.pointer), "av_frame_ref", context: partialURL.path)
                return referenceFrame
            }
            // Another layout than the encoder's: converted below, from a copy.
            buffer = decoded.copyToPixelBuffer(from: pool ?? PixelBufferPool())
        }
        let format = buffer.pixelFormat.avPixelFormat
        if format == encoderPixelFormat, buffer.hasPlanePadding {
            try referenceFrame.reference(buffer, recyclingInto: pool)
            return referenceFrame
        }
        try frame.makeWritable()
        if format == encoderPixelFormat {
            frame.copyPlanes(from: buffer)
        } else {
            let scaler =
                try scalers[format] ?? ScaleContext(width: dimensions.width, height: dimensions.height, source: format, destination: encoderPixelFormat)
            scalers[format] = scaler
            try scaler.convert(buffer, into: frame)
        }
        pool?.recycle(buffer)
        return frame
    }

    private func ensureOpen() throws {
        switch state {
        case .open: return
        case .failed(let error): throw error
        case .closed(let reason): throw SegmentWriterError.notWritable(path: url.path, underlying: reason)
        }
    }

    /// Records the first failure and closes the partial file; deletes it only when the
    /// error is not an I/O error and the file holds nothing recoverable yet.
    private func fail(_ error: any Error) {
        if case .open = state {
            let isIOError = if case .io = error as? SegmentWriterError { true } else { false }
            let keep = isIOError || isRecoverable || hasWrittenFragment
            try? format.closeFile()
            if !keep {
                SafeFile.remove(path: partialURL.path)
                reservation?.remove()
            }
            // Kept with the partial file: salvage or `segrec recover` finishes it in that room.
            reservation = nil
            state = .failed(error)
        }
    }

    /// Whether a fragment (not just the header) reached the partial file.
    private var hasWrittenFragment: Bool { fragmentMicroseconds != nil && (format.file?.bytesWritten ?? 0) > headerBytes }

    private func discardPartialFile(reason: String) {
        try? format.closeFile()
        SafeFile.remove(path: partialURL.path)
        reservation?.remove()
        reservation = nil
        state = .closed(reason: reason)
    }

    /// Remuxes the finished partial file into ``temporaryURL`` (faststart, final sample
    /// timing), names it ``url`` and deletes the partial file. `end` is in ``timescale``
    /// ticks. Returns the final file's size.
    private func remuxPartialFile(end: Int64) throws -> Int64 {
        let scan = try FaststartRemuxer.scan(path: partialURL.path)
        if let readError = scan.readError { throw readError }
        guard scan.packets.count == frameCount, scan.packets.allSatisfy(\.isComplete) else {
            throw SegmentWriterError.packetCountMismatch(frames: frameCount, packets: scan.packets.count)
        }
        guard scan.timeBase.num == fileTimeBase.num, scan.timeBase.den == fileTimeBase.den else {
            throw FFmpegError(
                call: "avformat_open_input", code: segrec_averror_invaliddata(),
                context: "\(partialURL.path): time base \(scan.timeBase.num)/\(scan.timeBase.den), expected \(fileTimeBase.num)/\(fileTimeBase.den)")
        }
        let fileEnd = av_rescale_q(end, AVRational(num: 1, den: timescale), fileTimeBase)
        // Into the reservation's blocks, through the descriptor it was created with.
        let held = reservation
        reservation = nil
        // Someone replaced the reservation (e.g. by a link): never write under that name.
        if let held, !SafeFile.name(temporaryURL.path, isFile: held.fd) { throw SegmentWriterError.partialFileExists(path: temporaryURL.path) }
        guard scan.audioPackets.count == audioPacketsWritten, scan.audioPackets.allSatisfy(\.isComplete) else {
            throw SegmentWriterError.packetCountMismatch(frames: audioPacketsWritten, packets: scan.audioPackets.count)
        }
        let (size, _) = try FaststartRemuxer.copy(
            from: partialURL.path, scan: scan, count: frameCount, end: fileEnd, to: temporaryURL.path, sizeLimit: sizeLimit, reservation: held,
            reuseExisting: held == nil, audioCount: audioPacketsWritten, audioEnd: audioSampleCount)
        do { try SafeFile.moveNoReplace(from: temporaryURL.path, to: url.path) } catch {
            SafeFile.remove(path: temporaryURL.path)
            throw error
        }
        SafeFile.remove(path: partialURL.path)
        return size
    }

    /// Receives every packet the encoder has ready (`avcodec_receive_packet` until EAGAIN or
    /// EOF) and, when `writing`, writes in decode order those whose duration is known
    /// (otherwise all stay pending for ``writeTail(end:)``).
    private func drainEncoder(writing: Bool = true) throws {
        while true {
            let received = avcodec_receive_packet(encoder.pointer, packet.pointer)
            if received == segrec_averror_eagain() || received == segrec_averror_eof() { break }
            try check(received, "avcodec_receive_packet", context: partialURL.path)
            encodedBytes += Int64(packet.pointer.pointee.size)
            if writing, pending.isEmpty, durations[packet.pointer.pointee.pts] != nil {
                try write(packet)
            } else {
                pending.append(try Packet(movingFrom: packet))
            }
        }
        while writing, let first = pending.first, durations[first.pointer.pointee.pts] != nil {
            try write(first)
            pending.removeFirst()
        }
    }

    /// Writes the flushed tail of the stream into the partial file, each packet with its
    /// presentation duration (the last presented one lasting until `end`). The finished
    /// file's decode times and sample durations are chosen by ``FaststartRemuxer``.
    private func writeTail(end: Int64) throws {
        if packetsWritten == 0 && !hasHeldVideoPacket { repairDecodeTimes(of: pending) }
        while let first = pending.first {
            try write(first)
            pending.removeFirst()
        }
        try writeHeldVideoPacket()
    }

    /// Gives a segment whose every packet comes out at the flush valid decode times when
    /// the encoder's are not: libx265 3.5 leaves a packet's dts uninitialized (garbage,
    /// e.g. 803859814218082527) when a segment has fewer frames than its B-frame delay,
    /// which the mov muxer refuses ("pts (0) < dts (…)"). The k-th packet in decode order
    /// then gets the k-th presentation time minus the span of all of them, so decode times
    /// increase strictly and none is after its own pts. Left alone when the encoder's
    /// decode times already increase, none is after its pts and none is before it by more
    /// than twice the frames' span.
    private func repairDecodeTimes(of packets: [Packet]) {
        guard !packets.isEmpty else { return }
        let presentation = packets.map(\.pointer.pointee.pts).sorted()
        let span = presentation[presentation.count - 1] - presentation[0]
        var previous = Int64.min
        var valid = true
        for packet in packets {
            let p = packet.pointer.pointee
            // A real reordering delay never exceeds the span of the frames it reorders
            // (twice, for the delay before the first and the last packet).
            if p.dts == segrec_av_nopts_value() || p.dts > p.pts || p.dts <= previous || p.pts.subtractingReportingOverflow(p.dts).partialValue > 2 * span + 1
                || p.pts.subtractingReportingOverflow(p.dts).overflow
            {
                valid = false
                break
            }
            previous = p.dts
        }
        guard !valid else { return }
        for (k, packet) in packets.enumerated() { packet.pointer.pointee.dts = presentation[k] - span }
    }

    /// Sets the packet's duration from the pts → duration map and rescales it to the
    /// stream's time base, then writes the packet held before it (`av_write_frame`) and
    /// holds this one (its data moved into ``heldVideoPacket``).
    ///
    /// A packet is written with its decode duration, the next packet's dts minus its own, not
    /// its presentation duration: a fragment the audio track cuts (`frag_duration`) ends the
    /// video track's run with its last packet's duration, and the mov muxer starts the next
    /// run (`tfdt`) there. A presentation duration there (B-frames: it differs from the decode
    /// step) would put the next fragment's first dts off its own; the muxer then drops that
    /// packet's pts (its composition offset becomes 0). The last packet keeps its
    /// presentation duration (``writeHeldVideoPacket()``); the finished file's durations come
    /// from `FaststartRemuxer` either way.
    private func write(_ packet: Packet) throws {
        let p = packet.pointer
        guard let duration = durations.removeValue(forKey: p.pointee.pts) else {
            av_packet_unref(p)
            throw SegmentWriterError.unexpectedPacketTimestamp(pts: p.pointee.pts)
        }
        p.pointee.duration = duration
        p.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(p, encoder.pointer.pointee.time_base, stream.pointee.time_base)
        if hasHeldVideoPacket {
            let held = heldVideoPacket.pointer
            if p.pointee.dts != segrec_av_nopts_value(), held.pointee.dts != segrec_av_nopts_value(), p.pointee.dts > held.pointee.dts {
                held.pointee.duration = p.pointee.dts - held.pointee.dts
            }
            do { try writeHeldVideoPacket() } catch {
                av_packet_unref(p)
                throw error
            }
        }
        av_packet_move_ref(heldVideoPacket.pointer, p)
        hasHeldVideoPacket = true
    }

    /// Writes the held video packet (`av_write_frame`) with the duration it has, then
    /// unreferences it.
    private func writeHeldVideoPacket() throws {
        guard hasHeldVideoPacket else { return }
        let h = heldVideoPacket.pointer
        hasHeldVideoPacket = false
        defer { av_packet_unref(h) }
        let written = av_write_frame(format.pointer, h)
        // Fragments reach the kernel as soon as the muxer cuts them.
        if let failure = format.file?.flush() { throw failure }
        try check(written, "av_write_frame", context: partialURL.path)
        packetsWritten += 1
    }
}
