import CFFmpeg
import Foundation
import SegRecTime

/// Opens anything libavformat demuxes and libavcodec decodes (MP4/MOV, Matroska/WebM, IVF,
/// MPEG-TS, HLS playlists, Annex B H.264, YUV4MPEG2, raw video, standard input, named
/// pipes) and hands out the pictures of its first video stream in presentation order,
/// converted to NV12 (`PictureConverter`).
///
/// - Names: a path goes to libavformat as `file:` + path, so any existing file name works
///   (also `cam1:2024-05-01.ivf`); a `file:` prefix is accepted too.
/// - Streams: the first video stream that is not an attached picture
///   (`AV_DISPOSITION_ATTACHED_PIC`, e.g. an MP3's cover) is decoded; the others are
///   ignored (`AVDISCARD_ALL`) and listed in `notes`.
/// - Damage is gone past, as `ffmpeg` does (see `InputDamage`): corrupt packets are
///   decoded (the decoder conceals what it can), rejected packets lose their picture, and
///   `corruptPackets`, `droppedPictures` and `concealedPictures` count them; one
///   warning per run of damage goes to `warningHandler`. Reading stops with an error
///   only when the input cannot be read any further: a demuxing error that repeats, a
///   decoder that rejects every packet, a file cut short of the frames its container
///   declares, or YUV4MPEG2 / raw video that ends inside a frame (the bytes left over are
///   named); that error (``MediaInputError/badInput(path:field:detail:)``) comes after
///   every picture decoded before it.
/// - Interruption: with a ``RecordingStopRequest``, a read that waits on standard input or
///   a pipe (`InputPipe`), or any libavformat wait (`AVIOInterruptCB`), ends once a stop
///   is requested; `nextPicture()` then returns the pictures still in the decoder and
///   nil, and `wasInterrupted` is true.
///
/// Not thread-safe: one consumer pulls pictures with `nextPicture()`.
public final class VideoFileDecoder {
    /// The path as given (`-` for standard input).
    package let path: String
    /// The options it was opened with (to reopen it, e.g. to loop a clip).
    package let options: VideoSourceOptions
    /// Where the planes of decoded pictures come from.
    package let pixelBufferPool: PixelBufferPool
    /// The stream's time base: seconds per tick = num / den.
    package let timeBase: (num: Int32, den: Int32)
    /// The stream's frame rate (`avg_frame_rate`, else `r_frame_rate`, else the option), if known.
    package let frameRate: FrameRate?
    /// The stream's `r_frame_rate` (the rate every timestamp is a multiple of), if known;
    /// see ``nominalFrameRate``.
    package let realFrameRate: FrameRate?
    /// Counter-clockwise display rotation from the stream's display matrix, or nil.
    package let rotationDegrees: Int?
    /// Codec short name, e.g. `h264`, `rawvideo`.
    package let codecName: String
    /// The stream's coded size as libavformat reports it before decoding.
    package let streamDimensions: VideoDimensions
    /// Frames the container says the stream holds (`nb_frames`), when it says.
    package let declaredFrameCount: Int64?
    /// Where the stream's presentation ends (`start_time + duration`, time-base ticks),
    /// when the container says: the last frame lasts until then.
    package let presentationEnd: Int64?
    /// The stream's field order as the container or codec states it (`codecpar.field_order`).
    package let fieldOrder: VideoFieldOrder
    /// What the stream's pictures' samples mean as its codec parameters state it, after the
    /// conversion to NV12 / yuv420p (``PictureDescription``; unstated fields get what players
    /// assume for its size); each decoded picture carries its own
    /// (``DecodedPicture/pictureDescription``).
    package let streamPictureDescription: PictureDescription
    /// Whether the container's timestamps may jump (`AVFMT_TS_DISCONT`: MPEG-TS, HLS, …):
    /// a restarted encoder or concatenated captures start again from another time.
    package let allowsTimestampDiscontinuities: Bool
    /// What was noticed on opening (ignored streams, the stream chosen), and later notes
    /// while no ``noteHandler`` is set.
    package private(set) var notes: [String] = []
    /// Called with each adjustment worth a manifest warning (crop to even, alpha, damage).
    package var warningHandler: ((String) -> Void)?
    /// Called with each remark worth a manifest note after opening (pixel-format
    /// conversions); while nil, they are appended to ``notes``.
    package var noteHandler: ((String) -> Void)?

    /// Pictures handed out so far.
    package private(set) var picturesDecoded: Int64 = 0
    /// Packets of the video stream demuxed so far.
    package private(set) var packetsDemuxed: Int64 = 0
    /// Packets flagged corrupt by the demuxer or rejected by the decoder so far.
    package var corruptPackets: Int { damage.corruptPackets }
    /// Pictures lost to packets the decoder rejected so far.
    package var droppedPictures: Int { damage.droppedPictures }
    /// Pictures the decoder output with concealed errors so far.
    package var concealedPictures: Int { damage.concealedPictures }
    /// Pictures decoded as interlaced (`AVFrame.interlaced_frame`) so far.
    package private(set) var interlacedPictures: Int64 = 0
    /// Whether reading ended because a stop was requested.
    package private(set) var wasInterrupted = false
    /// The decoder of the input's first audio stream, when opened with `decodesAudio` and
    /// the input has one FFmpeg decodes: it gets that stream's packets as they are demuxed
    /// (``FootageAudioDecoder/takeDecoded()`` hands out the samples), and is finished when
    /// reading ends.
    package let audio: FootageAudioDecoder?
    /// Audio streams in the input (decoded or not).
    package let audioStreamCount: Int

    private let input: InputFormatContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let decoder: CodecContext
    private let packet: Packet
    private let frame: Frame
    private let stopRequest: RecordingStopRequest?
    /// YUV4MPEG2 or raw video: a stream of whole pictures, where a short last one is truncation.
    private let isPictureStream: Bool
    private var converter: PictureConverter?
    private var damage = InputDamage()
    private var draining = false
    /// Set by ``stopReading()``: no packet is read after it.
    private var readingStopped = false
    private var finished = false
    private var packetPending = false
    private var pendingPacketCorrupt = false
    private var pendingError: MediaInputError?
    private var consecutiveReadErrors = 0
    /// What FFmpeg logged at `AV_LOG_ERROR` while probing the input, until the first read
    /// past the packets probing read ahead (see ``InputDamage``).
    private var probeError: String?
    /// `[<demuxer name> @ `: how the demuxer's own log lines start.
    private let demuxerLogPrefix: String

    private var rejectedSincePicture = 0
    private var lastPictureEnd: Int64?
    private var lastPTS: Int64?
    /// The highest presentation time put out so far (gaps are counted above it).
    private var highestPTS: Int64?
    private var lastPacketSeconds: Double?
    /// The decode time of the last video packet read (nil when it had none): after a stop,
    /// every picture shown at or before it was read.
    private var lastVideoDTS: Int64?
    /// Set when reading stopped with input still to read (not while a read waited on an
    /// idle pipe, which had given everything it had).
    private var stoppedBeforeEnd = false
    /// The pts of the last packet read that carried a new sequence header
    /// (`AV_PKT_DATA_NEW_EXTRADATA`), until the picture with that pts comes out.
    private var newSequencePTS: Int64?

    /// Consecutive `av_read_frame` errors after which the input counts as unreadable.
    static let maximumConsecutiveReadErrors = 8
    /// Packets rejected in a row, with no picture between, after which decoding stops.
    static let maximumConsecutiveRejections = 100

    /// Opens `path` (or `-` for standard input) and its first video stream's decoder.
    /// - Parameters:
    ///   - path: a file path (any name; a `file:` prefix is accepted), or `-` for standard
    ///     input.
    ///   - options: how to open inputs without a header (raw video).
    ///   - pixelBufferPool: where the planes of decoded pictures come from; default
    ///     a pool of its own; pass the recording's pool, which the muxer's writers
    ///     recycle encoded pictures into (planes come back only to the pool they are recycled into).
    ///   - stopRequest: when given, waits for input (standard input, pipes, libavformat's
    ///     own waits) end once it is requested.
    ///   - keepsYUV420P: hand out yuv420p pictures (most video files) in their own layout
    ///     instead of converting them to NV12, so the encoder takes them without a
    ///     conversion pass (`PictureConverter.keepsYUV420P`); default false.
    ///   - decodesAudio: also decode the input's first audio stream (`audio`); default
    ///     false: every audio stream is ignored (listed in `notes`). An audio stream
    ///     FFmpeg cannot decode is ignored with a note saying why.
    /// - Throws: ``MediaInputError/inputNotFound(path:)``,
    ///   ``MediaInputError/badInput(path:field:detail:)`` (no video stream, only an attached
    ///   picture, no decoder, unreadable container), ``MediaInputError/interrupted(path:)``
    ///   when a stop came before the header could be read.
    public init(
        path: String, options: VideoSourceOptions = VideoSourceOptions(), pixelBufferPool: PixelBufferPool = PixelBufferPool(),
        stopRequest: RecordingStopRequest? = nil, keepsYUV420P: Bool = false, decodesAudio: Bool = false
    ) throws(MediaInputError) {
        FFmpegLog.silence()
        self.path = path
        self.options = options
        self.pixelBufferPool = pixelBufferPool
        self.stopRequest = stopRequest
        let (url, fileSystemPath, isPipe, format, demuxerOptions) = try options.demuxer(for: path)
        let shouldStop: @Sendable () -> Bool = { [stopRequest] in stopRequest?.isRequested == true }
        do throws(FFmpegError) {
            var pipe: InputPipe?
            if isPipe {
                if let fileSystemPath {
                    pipe = try InputPipe(opening: fileSystemPath, stoppingWhen: shouldStop)
                } else {
                    pipe = try InputPipe(standardInputStoppingWhen: shouldStop)
                }
            }
            input = try InputFormatContext(url: url, formatName: format, options: demuxerOptions, pipe: pipe, shouldStop: stopRequest == nil ? nil : shouldStop)
        } catch {
            if error.code == InputPipe.averrorExit { throw .interrupted(path: path) }
            if error.isNotFound { throw .inputNotFound(path: path) }
            let hint =
                path == "-" && options.videoSize == nil
                ? " (standard input is read as YUV4MPEG2, or as raw video with --video-size; another container needs a file or a named pipe)" : ""
            throw .badInput(path: path, field: "container", detail: "libavformat cannot open it: \(error.message)\(hint)")
        }
        let context = input.pointer
        let (found, probeLogged) = FFmpegLog.errorLines { avformat_find_stream_info(context, nil) }
        let demuxer = "[" + String(cString: context.pointee.iformat.pointee.name) + " @ "
        demuxerLogPrefix = demuxer
        probeError = probeLogged.last { $0.hasPrefix(demuxer) }.map(FFmpegError.sentence)
        if found == InputPipe.averrorExit { throw .interrupted(path: path) }
        if found < 0 { throw .badInput(path: path, field: "container", detail: "libavformat cannot read its streams: \(FFmpegError.errorString(found))") }
        let streams = input.streams
        func isVideo(_ s: UnsafeMutablePointer<AVStream>) -> Bool { s.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
        func isAttachedPicture(_ s: UnsafeMutablePointer<AVStream>) -> Bool { (s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 }
        func describe(_ s: UnsafeMutablePointer<AVStream>) -> String {
            let type = av_get_media_type_string(s.pointee.codecpar.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
            let codec = String(cString: avcodec_get_name(s.pointee.codecpar.pointee.codec_id))
            return "stream #\(s.pointee.index) (\(isAttachedPicture(s) ? "attached picture" : type), \(codec))"
        }
        guard let video = streams.first(where: { isVideo($0) && !isAttachedPicture($0) }) else {
            if let cover = streams.first(where: isAttachedPicture) {
                throw .badInput(
                    path: path, field: "video stream", detail: "the input has no video stream: \(describe(cover)) is an attached picture (cover art), not video"
                )
            }
            throw .badInput(
                path: path, field: "video stream", detail: "the input has no video stream (\(streams.count) other stream\(streams.count == 1 ? "" : "s"))")
        }
        stream = video
        let parameters = video.pointee.codecpar!
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let firstAudio = decodesAudio ? streams.first { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO } : nil
        var audioDecoder: FootageAudioDecoder?
        for other in streams where other != video {
            if other == firstAudio {
                do {
                    let opened = try FootageAudioDecoder(stream: other, path: path)
                    audioDecoder = opened
                    notes.append("input \(describe(other)) recorded as each segment's audio track: \(opened.description)")
                    continue
                } catch {
                    other.pointee.discard = AVDISCARD_ALL
                    notes.append("input \(describe(other)) ignored: it cannot be decoded (\(error))")
                    continue
                }
            }
            other.pointee.discard = AVDISCARD_ALL
            let isAudio = other.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            notes.append(
                "input \(describe(other)) ignored: "
                    + (isAttachedPicture(other)
                        ? "an attached picture is not video"
                        : isAudio && audioDecoder != nil ? "only the first audio stream is recorded" : "only the first video stream is recorded"))
        }
        audio = audioDecoder
        audioStreamCount = streams.filter { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }.count
        timeBase = (video.pointee.time_base.num, video.pointee.time_base.den)
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw .badInput(path: path, field: "time base", detail: "\(timeBase.num)/\(timeBase.den) is not positive")
        }
        func rate(_ r: AVRational) -> FrameRate? { try? FrameRate(Int64(r.num), Int64(r.den)) }
        frameRate = rate(video.pointee.avg_frame_rate) ?? rate(video.pointee.r_frame_rate) ?? options.frameRate
        realFrameRate = rate(video.pointee.r_frame_rate)
        rotationDegrees = MediaFileReader.rotation(of: video)
        streamDimensions = VideoDimensions(width: Int(parameters.pointee.width), height: Int(parameters.pointee.height))
        declaredFrameCount = video.pointee.nb_frames > 0 ? video.pointee.nb_frames : nil
        if let declared = declaredFrameCount { damage.indexesEveryPicture = Int64(avformat_index_get_entries_count(video)) >= declared }
        fieldOrder = VideoFieldOrder(parameters.pointee.field_order)
        var description = PictureDescription.of(parameters).0
        let sar = av_guess_sample_aspect_ratio(context, video, nil)
        if sar.num > 0, sar.den > 0 { description.sampleAspectRatio = (sar.num, sar.den) }
        streamPictureDescription = description
        let nopts = segrec_av_nopts_value()
        presentationEnd =
            video.pointee.start_time != nopts && video.pointee.duration != nopts && video.pointee.duration > 0
            ? video.pointee.start_time + video.pointee.duration : nil
        let demuxerName = String(cString: input.pointer.pointee.iformat.pointee.name)
        isPictureStream = demuxerName == "rawvideo" || demuxerName == "yuv4mpegpipe"
        allowsTimestampDiscontinuities = input.pointer.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0

        do {
            decoder = try CodecContext.openDecoder(for: video, context: path)
            packet = try Packet()
            frame = try Frame()
        } catch  where error.code == segrec_averror_decoder_not_found() {
            throw .badInput(path: path, field: "codec", detail: "no decoder for \(codecName) in this FFmpeg")
        } catch { throw .badInput(path: path, field: "codec", detail: "cannot open the \(codecName) decoder: \(error)") }
        notes.insert(
            "input \(path == "-" ? "standard input" : path): \(codecName) \(streamDimensions), time base \(timeBase.num)/\(timeBase.den)"
                + (frameRate.map { ", \($0) fps" } ?? "") + (rotationDegrees.map { ", rotation \($0)°" } ?? "")
                + (fieldOrder.isInterlaced ? ", interlaced (\(fieldOrder.description))" : ""), at: 0)
        converter = PictureConverter(
            pixelBufferPool: pixelBufferPool, keepsYUV420P: keepsYUV420P, note: { [unowned self] in self.remark($0) },
            warning: { [unowned self] in self.warningHandler?($0) })
        converter!.announce(AVPixelFormat(rawValue: parameters.pointee.format))
    }

    /// Reads no further packet: the pictures the decoder already holds are drained (a
    /// stop request does the same); ``nextPicture()`` then returns nil and
    /// ``wasInterrupted`` is true.
    package func stopReading() { readingStopped = true }

    /// The next picture in presentation order, or nil at the end of the stream (or after
    /// a stop request, once the decoder is drained).
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` after the last picture
    ///   decoded, when the input could not be read to its end (see the type's description).
    package func nextPicture() throws(MediaInputError) -> DecodedPicture? {
        while true {
            if finished {
                if let warning = damage.finish() { warningHandler?(warning) }
                if let error = pendingError {
                    pendingError = nil
                    throw error
                }
                return nil
            }
            if let picture = try receivePicture() { return picture }
            if finished || draining { continue }
            feedPacket()
        }
    }

    private func remark(_ text: String) { if let noteHandler { noteHandler(text) } else { notes.append(text) } }

    private func report(_ warning: String?) { if let warning { warningHandler?(warning) } }

    /// One `avcodec_receive_frame`; nil when the decoder wants input, is done, or failed
    /// on one picture (counted as damage).
    private func receivePicture() throws(MediaInputError) -> DecodedPicture? {
        let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
        if received == segrec_averror_eagain() {
            if draining { finished = true }  // should not happen after a flush; be safe
            return nil
        }
        if received == segrec_averror_eof() {
            finished = true
            return nil
        }
        if received < 0 {
            if received == segrec_averror_enomem() {
                fail(field: "decoding", detail: "libavcodec (\(codecName)) failed: \(FFmpegError.errorString(received))")
                finished = true
            } else {
                reject(reason: FFmpegError.errorString(received), flaggedCorrupt: false)
            }
            return nil
        }
        defer { av_frame_unref(frame.pointer) }
        let f = frame.pointer.pointee
        if isAfterUnreadPictures(f) { return nil }
        if f.decode_error_flags != 0 || (f.flags & AV_FRAME_FLAG_CORRUPT) != 0 {
            report(damage.pictureConcealed(atPacket: max(0, packetsDemuxed - 1), seconds: lastPacketSeconds))
        }
        if f.interlaced_frame != 0 { interlacedPictures += 1 }
        rejectedSincePicture = 0
        let buffer = try converter!.convert(frame.pointer, index: picturesDecoded, path: path)
        // The frame's pts, else libavcodec's best-effort timestamp (streams with only dts).
        let nopts = segrec_av_nopts_value()
        var pts = f.pts != nopts ? f.pts : (f.best_effort_timestamp != nopts ? f.best_effort_timestamp : nil)
        // After damage a picture can come out late, behind pictures shown after it: like
        // ffmpeg, give it libavcodec's best-effort timestamp when that one advances.
        if let p = pts, let last = lastPTS, p <= last, damage.isRunOpen, f.best_effort_timestamp != nopts, f.best_effort_timestamp > last {
            pts = f.best_effort_timestamp
            damage.pictureRetimed()
        }
        // Inside a run of damage: a gap above the highest time seen counts pictures missing,
        // a picture below it came late and fills one of them.
        if let p = pts, let high = highestPTS, damage.isRunOpen {
            if p > high {
                damage.picturesMissing(missingPictures(from: high, to: p), afterSeconds: inputSeconds(high))
            } else if p < high {
                damage.pictureCameLate()
            }
        }
        if let pts {
            lastPTS = pts
            highestPTS = max(highestPTS ?? pts, pts)
        }
        var picture = DecodedPicture(
            pixels: buffer, pts: pts, decodedDimensions: VideoDimensions(width: Int(f.width), height: Int(f.height)), index: picturesDecoded)
        // The frame's pixel aspect ratio, else the stream's or the container's (as ffmpeg does).
        frame.pointer.pointee.sample_aspect_ratio = av_guess_sample_aspect_ratio(input.pointer, stream, frame.pointer)
        picture.pictureDescription = converter!.describe(frame.pointer, index: picturesDecoded)
        if let first = newSequencePTS, pts == first {
            picture.startsNewSequence = true
            newSequencePTS = nil
        }
        picturesDecoded += 1
        return picture
    }

    /// `ticks` of the stream's time base as seconds from the stream's start (input time).
    private func inputSeconds(_ ticks: Int64) -> Double {
        let start = stream.pointee.start_time == segrec_av_nopts_value() ? 0 : stream.pointee.start_time
        return Double(ticks - start) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// Pictures missing between two presented at `last` and `next` (time-base ticks) at the
    /// stream's nominal rate: a gap over 1.5 frame periods, rounded to whole periods, less
    /// the picture at `next`. Only asked inside a run of damage (a still period of a
    /// variable-rate stream is not a loss); at most 10 s of pictures, at a rate of at most
    /// 240 fps (``largestNominalFrameRate``), whatever the stream claims.
    private func missingPictures(from last: Int64, to next: Int64) -> Int {
        guard var rate = nominalFrameRate ?? frameRate, rate.numerator > 0, timeBase.num > 0, next > last else { return 0 }
        // A rate no camera captures at (a damaged header, a 1/90000 time base taken for the
        // rate) never sets the count: at most 240 pictures a second are counted lost.
        let fastest = Self.largestNominalFrameRate
        if Int128(rate.numerator) * Int128(fastest.denominator) > Int128(fastest.numerator) * Int128(rate.denominator) { rate = fastest }
        // gap / period = (next − last) · num · rate.num / (den · rate.den)
        let gap = Int128(next - last) * Int128(timeBase.num) * Int128(rate.numerator)
        let period = Int128(timeBase.den) * Int128(rate.denominator)
        guard gap * 2 > period * 3 else { return 0 }
        let periods = (gap * 2 + period) / (period * 2)  // rounded half up
        let cap = Int128(10) * Int128(rate.numerator) / max(1, Int128(rate.denominator))
        return Int(min(periods - 1, max(cap, 1)))
    }

    /// A packet (or picture) the decoder refused: its picture is lost; too many in a row
    /// end decoding.
    private func reject(reason: String, flaggedCorrupt: Bool) {
        report(damage.packetRejected(index: max(0, packetsDemuxed - 1), seconds: lastPacketSeconds, reason: reason, alreadyCounted: flaggedCorrupt))
        rejectedSincePicture += 1
        if rejectedSincePicture >= Self.maximumConsecutiveRejections {
            fail(
                field: "decoding",
                detail:
                    "libavcodec (\(codecName)) rejected \(rejectedSincePicture) packets in a row (\(reason)); the stream cannot be decoded past packet \(packetsDemuxed)"
            )
            flush()
        }
    }

    /// Reads the next packet of the stream (unless one is still waiting) and sends it to
    /// the decoder; at the end, on a stop or when the input cannot be read, sends the flush
    /// packet.
    private func feedPacket() {
        if !packetPending { guard readPacket() else { return } }
        let sent = avcodec_send_packet(decoder.pointer, packet.pointer)
        if sent == segrec_averror_eagain() {
            packetPending = true  // the decoder wants its output read first
            return
        }
        packetPending = false
        av_packet_unref(packet.pointer)
        if sent == segrec_averror_enomem() {
            fail(field: "decoding", detail: "libavcodec (\(codecName)) failed: \(FFmpegError.errorString(sent))")
            flush()
        } else if sent < 0 {
            reject(reason: FFmpegError.errorString(sent), flaggedCorrupt: pendingPacketCorrupt)
        }
    }

    /// `av_read_frame` until a packet of the video stream; false (after flushing) at the
    /// end, on a stop, or when reading failed for good.
    private func readPacket() -> Bool {
        // What the demuxer logged as an error or failed with while reading up to the next
        // video packet: it skipped unreadable data there (see ``InputDamage``).
        var skipped: String?
        let positionBefore = probeError == nil ? nil : input.pointer.pointee.pb.map { avio_tell($0) }
        while true {
            if readingStopped || stopRequest?.isRequested == true {
                wasInterrupted = true
                stoppedBeforeEnd = true
                flush()
                return false
            }
            let (read, logged) = FFmpegLog.errorLines { av_read_frame(input.pointer, packet.pointer) }
            // The demuxer's own lines, not a parser's or decoder's (those are decoder damage).
            if let line = logged.last(where: { $0.hasPrefix(demuxerLogPrefix) }) { skipped = FFmpegError.sentence(line) }
            if read == segrec_averror_eagain() { continue }
            if read == InputPipe.averrorExit || (read < 0 && stopRequest?.isRequested == true) {
                wasInterrupted = true
                flush()
                return false
            }
            if read == segrec_averror_eof() {
                if isPictureStream {
                    checkWholePictures()
                } else if let declared = declaredFrameCount, packetsDemuxed < declared {
                    checkDeclaredFrames(declared)
                } else if let skipped {
                    // The demuxer gave up on damage (Matroska that cannot resync, "File
                    // ended prematurely"): the rest of the input cannot be read.
                    fail(
                        field: "data",
                        detail:
                            "the input cannot be read past packet \(packetsDemuxed): libavformat ended on \"\(skipped)\" (cut short or damaged beyond resync)")
                }
                flush()
                return false
            }
            if read < 0 {
                consecutiveReadErrors += 1
                let atEnd = input.pointer.pointee.pb.map { avio_feof($0) != 0 } ?? false
                if atEnd || consecutiveReadErrors >= Self.maximumConsecutiveReadErrors {
                    fail(field: "data", detail: "the input cannot be read past packet \(packetsDemuxed): \(FFmpegError.errorString(read))")
                    flush()
                    return false
                }
                skipped = skipped ?? "av_read_frame: \(FFmpegError.errorString(read))"
                continue
            }
            consecutiveReadErrors = 0
            guard packet.pointer.pointee.stream_index == stream.pointee.index else {
                if let audio, packet.pointer.pointee.stream_index == audio.streamIndex { decodeAudio(packet.pointer, with: audio) }
                av_packet_unref(packet.pointer)
                continue
            }
            let corrupt = (packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0
            if corrupt && isPictureStream {
                // A short last picture of raw video / YUV4MPEG2: truncation.
                av_packet_unref(packet.pointer)
                checkWholePictures()
                flush()
                return false
            }
            let p = packet.pointer.pointee
            if p.pos >= 0 { lastPictureEnd = p.pos + Int64(p.size) }
            // A new sequence header in band (FLV/RTMP: a second push, a restarted encoder).
            if packetsDemuxed > 0, av_packet_get_side_data(packet.pointer, AV_PKT_DATA_NEW_EXTRADATA, nil) != nil {
                newSequencePTS = p.pts != segrec_av_nopts_value() ? p.pts : p.dts
            }
            let time = p.pts != segrec_av_nopts_value() ? p.pts : p.dts
            lastPacketSeconds = time == segrec_av_nopts_value() ? nil : inputSeconds(time)
            lastVideoDTS = p.dts != segrec_av_nopts_value() ? p.dts : nil
            packetsDemuxed += 1
            pendingPacketCorrupt = corrupt
            if corrupt { report(damage.packetFlaggedCorrupt(index: packetsDemuxed - 1, seconds: lastPacketSeconds)) }
            if let skipped { report(damage.demuxerSkippedData(beforePacket: packetsDemuxed - 1, seconds: lastPacketSeconds, logged: skipped)) }
            var probed = false
            if let probeError {
                // Read ahead by probing (the input's position did not move), or the first
                // packet past them, which ends the window.
                if let before = positionBefore, input.pointer.pointee.pb.map({ avio_tell($0) }) == before {
                    probed = true
                    report(damage.packetReadWhileProbing(index: packetsDemuxed - 1, seconds: lastPacketSeconds, logged: probeError))
                } else {
                    self.probeError = nil
                }
            }
            if !corrupt && skipped == nil && !probed { report(damage.packetClean(index: packetsDemuxed - 1)) }
            return true
        }
    }

    /// Bytes after the last packet, after which a file that declares more frames than it
    /// delivered was not cut short: its index or trailer follows (an AVI's `idx1`).
    static let trailerSlack: Int64 = 64

    /// At the end of a container that declares `declared` frames (`AVStream.nb_frames`)
    /// and delivered fewer: a file cut short (its last packet reaches the end of the file)
    /// is an error naming how many frames it kept; one whose last packet is followed by
    /// more than ``trailerSlack`` bytes lost the rest in the middle (AVI's demuxer skips
    /// damaged chunks without a word and renumbers the rest), and they are counted as lost
    /// pictures like any damage, less those a gap in the timestamps already counted.
    private func checkDeclaredFrames(_ declared: Int64) {
        let size = input.pointer.pointee.pb.map { avio_size($0) } ?? -1
        if let last = lastPictureEnd, size > 0, size - last > Self.trailerSlack {
            let missing = Int(declared - packetsDemuxed) - damage.picturesMissingFromTimestamps
            report(
                damage.declaredPicturesMissing(
                    missing, declared: Int(declared), delivered: Int(packetsDemuxed), atPacket: packetsDemuxed, bytesAfterLastPacket: size - last))
        } else {
            fail(field: "data", detail: "truncated: the file ends after \(packetsDemuxed) of its \(declared) frames")
        }
    }

    /// At the end of raw video or YUV4MPEG2: bytes read after the last whole picture are
    /// a truncated picture (an error naming how many bytes were left over).
    private func checkWholePictures() {
        guard let pb = input.pointer.pointee.pb else { return }
        let end = avio_tell(pb)
        guard let last = lastPictureEnd else {
            if end > 0, packetsDemuxed == 0 { fail(field: "data", detail: "truncated: the input ends inside its first frame (no whole frame)") }
            return
        }
        let leftover = end - last
        guard leftover > 0 else { return }
        fail(
            field: "data",
            detail:
                "truncated: \(leftover) byte\(leftover == 1 ? "" : "s") left over after the last whole frame (frame \(packetsDemuxed - 1)); \(packetsDemuxed) whole frame\(packetsDemuxed == 1 ? "" : "s") kept"
        )
    }

    /// Hands an audio packet to ``audio`` with its input time (seconds from the video
    /// stream's start), for its warnings.
    private func decodeAudio(_ packet: UnsafeMutablePointer<AVPacket>, with audio: FootageAudioDecoder) {
        let nopts = segrec_av_nopts_value()
        let time = packet.pointee.pts != nopts ? packet.pointee.pts : packet.pointee.dts
        var seconds: Double?
        if time != nopts, audio.timeBase.den > 0 {
            let start = stream.pointee.start_time == nopts ? 0 : Double(stream.pointee.start_time) * Double(timeBase.num) / Double(timeBase.den)
            seconds = Double(time) * Double(audio.timeBase.num) / Double(audio.timeBase.den) - start
        }
        audio.decode(packet, seconds: seconds)
    }

    /// After a stop with input still to read, whether `frame`, drained from the decoder, may
    /// be shown after pictures whose packets were never read: a reference picture decoded
    /// ahead of the B-frames shown before it. Its pts is beyond the last packet's dts (every
    /// picture shown at or before that dts has a dts no later, so it was read); delivering
    /// it could leave a gap of lost frames before the recording's last frame, so the
    /// recording ends with the last picture before it instead. False when the packets had
    /// no dts, and after a stop that found the input idle (a pipe that had given all it
    /// had: every picture the decoder holds is whole).
    private func isAfterUnreadPictures(_ frame: AVFrame) -> Bool {
        guard stoppedBeforeEnd, let limit = lastVideoDTS, frame.pts != segrec_av_nopts_value() else { return false }
        return frame.pts > limit
    }

    private func flush() {
        audio?.finish()
        draining = true
        packetPending = false
        av_packet_unref(packet.pointer)
        if avcodec_send_packet(decoder.pointer, nil) < 0 { finished = true }
    }

    private func fail(field: String, detail: String) { if pendingError == nil { pendingError = .badInput(path: path, field: field, detail: detail) } }
}
