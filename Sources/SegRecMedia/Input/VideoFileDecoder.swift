// VideoFileDecoder: a video file's first video stream decoded, its pictures in presentation order; opening,
// reading and decoding are in VideoFileDecoder+Opening, +Reading and +Decoding.
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
package final class VideoFileDecoder {
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
    /// The container's `creation_time` tag (when it was recorded, as FFmpeg reads it:
    /// `2024-05-01T12:34:56.000000Z`), or nil.
    package let creationTimeTag: String?
    /// The container's `location` tag (ISO 6709, e.g. a phone's GPS `+48.8584+002.2945/`;
    /// QuickTime's `com.apple.quicktime.location.ISO6709` too), or nil.
    package let locationTag: String?
    package internal(set) var notes: [String] = []
    /// Called with each adjustment worth a manifest warning (crop to even, alpha, damage).
    package var warningHandler: ((String) -> Void)?
    /// Called with each remark worth a manifest note after opening (pixel-format
    /// conversions); while nil, they are appended to ``notes``.
    package var noteHandler: ((String) -> Void)?

    /// Pictures handed out so far.
    package internal(set) var picturesDecoded: Int64 = 0
    /// Packets of the video stream demuxed so far.
    package internal(set) var packetsDemuxed: Int64 = 0
    /// Packets flagged corrupt by the demuxer or rejected by the decoder so far.
    package var corruptPackets: Int { damage.corruptPackets }
    /// Pictures lost to packets the decoder rejected so far.
    package var droppedPictures: Int { damage.droppedPictures }
    /// Pictures the decoder output with concealed errors so far.
    package var concealedPictures: Int { damage.concealedPictures }
    /// Pictures decoded as interlaced (`AVFrame.interlaced_frame`) so far.
    package internal(set) var interlacedPictures: Int64 = 0
    /// Whether reading ended because a stop was requested.
    package internal(set) var wasInterrupted = false
    /// Why a live source ended (it sent nothing for its I/O timeout, closed the connection
    /// or failed), in words, when it did; nil otherwise.
    package internal(set) var liveEnd: String?
    /// Whether a live source's end means its sender went away (a timeout, an error, or
    /// the end of a connection: ``VideoSourceOptions/connectionSchemes``), so a
    /// reconnection is worth trying; false for the end of an HTTP stream (an HLS
    /// playlist's `#EXT-X-ENDLIST`).
    package internal(set) var liveEndIsOutage = false
    /// The decoder of the input's first audio stream, when opened with `decodesAudio` and
    /// the input has one FFmpeg decodes: it gets that stream's packets as they are demuxed
    /// (``FootageAudioDecoder/takeDecoded()`` hands out the samples), and is finished when
    /// reading ends.
    package let audio: FootageAudioDecoder?
    /// Audio streams in the input (decoded or not).
    package let audioStreamCount: Int

    let input: InputFormatContext
    let stream: UnsafeMutablePointer<AVStream>
    let decoder: CodecContext
    let packet: Packet
    let frame: Frame
    let stopRequest: RecordingStopRequest?
    /// A live source's I/O timeout (nil for files and pipes).
    let watchdog: InputWatchdog?
    /// YUV4MPEG2 or raw video: a stream of whole pictures, where a short last one is truncation.
    let isPictureStream: Bool
    var converter: PictureConverter?
    var damage = InputDamage()
    var draining = false
    /// Set by ``stopReading()``: no packet is read after it.
    var readingStopped = false
    var finished = false
    var packetPending = false
    var pendingPacketCorrupt = false
    var pendingError: MediaInputError?
    var consecutiveReadErrors = 0
    /// What FFmpeg logged at `AV_LOG_ERROR` while probing the input, until the first read
    /// past the packets probing read ahead (see ``InputDamage``).
    var probeError: String?
    /// `[<demuxer name> @ `: how the demuxer's own log lines start.
    let demuxerLogPrefix: String

    var rejectedSincePicture = 0
    var lastPictureEnd: Int64?
    var lastPTS: Int64?
    /// The highest presentation time put out so far (gaps are counted above it).
    var highestPTS: Int64?
    var lastPacketSeconds: Double?
    /// The decode time of the last video packet read (nil when it had none): after a stop,
    /// every picture shown at or before it was read.
    var lastVideoDTS: Int64?
    /// Set when reading stopped with input still to read (not while a read waited on an
    /// idle pipe, which had given everything it had).
    var stoppedBeforeEnd = false
    /// The pts of the last packet read that carried a new sequence header
    /// (`AV_PKT_DATA_NEW_EXTRADATA`), until the picture with that pts comes out.
    var newSequencePTS: Int64?
    /// Video packets flagged corrupt in a container whose timestamps may jump, until the
    /// packets after them say whether a restart explains them (``resolveCorruptionBefore(time:)``):
    /// index, input seconds and decode time (time-base ticks) of each.
    var corruptBeforeRestart: [(index: Int64, seconds: Double?, time: Int64)] = []

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
    package convenience init(
        path: String, options: VideoSourceOptions = VideoSourceOptions(), pixelBufferPool: PixelBufferPool = PixelBufferPool(),
        stopRequest: RecordingStopRequest? = nil, keepsYUV420P: Bool = false, decodesAudio: Bool = false
    ) throws(MediaInputError) {
        try self.init(
            path: path, options: options, pixelBufferPool: pixelBufferPool, stopRequest: stopRequest, keepsYUV420P: keepsYUV420P, decodesAudio: decodesAudio,
            adopting: nil)
    }

    /// ``init(path:options:pixelBufferPool:stopRequest:keepsYUV420P:decodesAudio:)`` reading
    /// a named pipe that is already open, its first bytes already read (`handedOver`).
    init(
        path: String, options: VideoSourceOptions, pixelBufferPool: PixelBufferPool, stopRequest: RecordingStopRequest?, keepsYUV420P: Bool, decodesAudio: Bool,
        adopting handedOver: RawByteInput.HandOver?
    ) throws(MediaInputError) {
        FFmpegLog.silence()
        self.path = path
        self.options = options
        self.pixelBufferPool = pixelBufferPool
        self.stopRequest = stopRequest
        let isLive = VideoSourceOptions.isLive(path)
        watchdog =
            isLive
            ? InputWatchdog(
                timeout: options.ioTimeout, initialAllowance: options.listen ? nil : options.ioTimeout + VideoSourceOptions.probeAllowance,
                firstPacketBy: options.firstPacketBy) : nil
        input = try Self.openInput(path: path, options: options, stopRequest: stopRequest, watchdog: watchdog, adopting: handedOver)
        let context = input.pointer
        let probed = try Self.probe(input, path: path, watchdog: watchdog)
        demuxerLogPrefix = probed.demuxerLogPrefix
        probeError = probed.probeError
        func tag(_ key: String) -> String? { av_dict_get(context.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) } }
        creationTimeTag = tag("creation_time")
        locationTag = tag("location") ?? tag("com.apple.quicktime.location.ISO6709")
        let streams = input.streams
        let video = try Self.videoStream(in: streams, path: path)
        stream = video
        let parameters = video.pointee.codecpar!
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let (audioDecoder, audioNotes) = Self.openAudio(of: streams, besides: video, decodesAudio: decodesAudio, path: path, output: options.audioOutput)
        notes.append(contentsOf: audioNotes)
        audio = audioDecoder
        audioStreamCount = streams.filter { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }.count
        (timeBase, frameRate) = try Self.timing(of: video, path: path, fallback: options.frameRate)
        realFrameRate = Self.rate(video.pointee.r_frame_rate)
        // Only a quarter turn is a display rotation a segment (and its manifest) can keep; a
        // damaged or sheared matrix (e.g. −24°) is noted and the pictures kept as decoded.
        let matrixRotation = MediaFileReader.rotation(of: video)
        rotationDegrees = matrixRotation.map { $0 % 90 == 0 ? $0 : nil } ?? nil
        if let degrees = matrixRotation, degrees % 90 != 0 {
            notes.append("input display matrix turns the picture \(degrees)°, not a quarter turn: not kept; the pictures are recorded as decoded")
        }
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

    func remark(_ text: String) { if let noteHandler { noteHandler(text) } else { notes.append(text) } }

    func report(_ warning: String?) { if let warning { warningHandler?(warning) } }
}
