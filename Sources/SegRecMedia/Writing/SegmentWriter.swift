// SegmentWriter: one segment's MP4 file, its state and its opening; the work is in SegmentWriter+Opening, +VideoEncoding, +AudioTrack and +Finishing.
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
    var fileTimeBase = AVRational(num: 0, den: 1)
    /// The validated encoder settings.
    package let settings: EncoderSettings
    /// Frames accepted by `append(_:presentationTime:recyclingInto:)` so far.
    package internal(set) var frameCount = 0
    /// Bytes of the packets the encoder has put out so far (the file's media data; its
    /// header and index come on top). The encoder holds back the packets of its last
    /// frames (lookahead, B-frames, frame threads) until more frames come or it is flushed.
    package internal(set) var encodedBytes: Int64 = 0

    enum State {
        case open
        case failed(any Error)
        case closed(reason: String)
    }

    let format: OutputFormatContext
    let encoder: CodecContext
    let stream: UnsafeMutablePointer<AVStream>
    /// The frame pictures are copied or converted into when they cannot be referenced.
    let frame: Frame
    /// The frame that references a picture's own planes (holds no buffers between appends).
    let referenceFrame: Frame
    let packet: Packet
    let encoderPixelFormat: AVPixelFormat
    /// libswscale contexts from a picture layout the encoder does not take, made on first use.
    var scalers: [AVPixelFormat: ScaleContext] = [:]
    /// Field flags every frame carries (interlaced H.264), as (interlaced, top field first).
    let fieldFlags: (Int32, Int32)
    var state = State.open
    /// The file's chapters (file time), written by ``finish(endTime:)`` into the final
    /// file; none by default.
    package var chapters: [MovieChapter] = []
    var lastPTS: Int64?
    /// The last presentation time given to ``append(_:presentationTime:)``, unrounded.
    var lastPresentationTime: MediaTime?
    /// pts → duration (encoder time base) of frames whose successor (or end) is known.
    var durations: [Int64: Int64] = [:]
    /// Encoded packets, in decode order, waiting for their duration to be known.
    var pending: [Packet] = []
    /// The last video packet handed on (stream time base), held until the next one's
    /// decode time is known (see ``write(_:)``); `hasHeldVideoPacket` says whether it holds one.
    let heldVideoPacket: Packet
    var hasHeldVideoPacket = false
    var packetsWritten = 0
    /// `frag_duration` in microseconds, nil when not fragmented.
    let fragmentMicroseconds: Int32?
    /// Test hook: every file this writer creates fails with ENOSPC past this size.
    let sizeLimit: Int64?
    /// The audio track's format and encoding, nil for a file without sound.
    package let audioSettings: AudioTrackSettings?
    /// Sample frames given to ``appendAudio(_:)`` so far: the audio track's length in samples.
    package internal(set) var audioSampleCount: Int64 = 0
    let audioEncoder: AudioEncoder?
    let audioStream: UnsafeMutablePointer<AVStream>?
    /// The last audio packet out of the encoder, held until the next one (or the end) is
    /// known, so the last one can be given the duration that ends the track exactly.
    var heldAudioPacket: Packet?
    var audioPacketsWritten = 0
    /// Bytes the header wrote to the partial file.
    var headerBytes: Int64 = 0
    /// Whether the partial file holds something ``SegmentRecovery`` can use (a fragment,
    /// or, unfragmented, the finished file).
    var isRecoverable = false
    /// The room held at ``temporaryURL`` for the finished copy (``SpaceReservation``).
    var reservation: SpaceReservation?
    /// Whether the file copies an encoded stream (``EncodedPicture``s, `--copy`) instead of
    /// encoding pictures: then ``encoder`` is an unopened context holding the stream's
    /// parameters.
    package let copiesStream: Bool
    /// A copied stream's first pts (input ticks): the file's time 0.
    var copyOrigin: Int64?
    /// The last copied packet's dts (``timescale`` ticks).
    var lastCopiedDTS: Int64?
    /// The last copied audio packet's pts (the audio stream's sample ticks).
    var lastCopiedAudioPTS: Int64?
    /// `aac_adtstoasc` for copied AAC (MPEG-TS carries ADTS; MP4 wants raw frames and the
    /// AudioSpecificConfig, which the filter hands the muxer as new extradata).
    var adtsFilter: BitstreamFilter?

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
    ///   - location: where it was recorded, an ISO 6709 string (`+48.8584+002.2945/`): the
    ///     file's `location` tag (MP4 `©xyz`, as ffmpeg's `-metadata location=`); nil: none.
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
        location: String? = nil, audio: AudioTrackSettings? = nil, copying: EncodedStreamParameters? = nil, copyingAudio: EncodedStreamParameters? = nil
    ) throws {
        try self.init(
            url: url, dimensions: dimensions, timescale: timescale, settings: settings, displayRotationDegrees: displayRotationDegrees,
            fragmentInterval: fragmentInterval, sizeLimit: nil, pixelFormat: pixelFormat, creationTime: creationTime, location: location, audio: audio,
            copying: copying, copyingAudio: copyingAudio)
    }

    /// The designated initializer; `sizeLimit` (tests only) makes every file this writer
    /// creates fail with ENOSPC past that many bytes, like a full disk.
    init(
        url: URL, dimensions: VideoDimensions, timescale: Int32, settings: EncoderSettings, displayRotationDegrees: Int?, fragmentInterval: MediaTime?,
        sizeLimit: Int64?, pixelFormat inputFormat: PixelBuffer.PixelFormat = .nv12, creationTime: Date? = nil, location: String? = nil,
        audio: AudioTrackSettings? = nil, copying: EncodedStreamParameters? = nil, copyingAudio: EncodedStreamParameters? = nil
    ) throws {
        FFmpegLog.silence()
        guard timescale > 0 else { throw SegmentWriterError.invalidTimescale(timescale) }
        let fragmentMicroseconds = try Self.microseconds(of: fragmentInterval)
        if copying == nil {
            try settings.validate()
            precondition(
                dimensions.width > 0 && dimensions.height > 0 && dimensions.width % 2 == 0 && dimensions.height % 2 == 0,
                "NV12 needs even, positive dimensions, got \(dimensions)")
            guard settings.codec.accepts(dimensions) else {
                throw SegmentWriterError.pictureTooSmall(path: url.path, dimensions: dimensions, codec: settings.codec)
            }
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

        copiesStream = copying != nil
        let partialPath = partialURL.path
        let opened: (CodecContext, AVPixelFormat, OutputFormatContext)
        let stream: UnsafeMutablePointer<AVStream>
        if let copying {
            opened = try Self.copyingContext(copying, timescale: timescale, partialPath: partialPath)
            stream = try Self.addCopiedStream(
                to: opened.2, parameters: copying, dimensions: dimensions, timescale: timescale, displayRotationDegrees: displayRotationDegrees,
                creationTime: creationTime, location: location)
        } else {
            opened = try Self.openEncoder(settings: settings, dimensions: dimensions, timescale: timescale, inputFormat: inputFormat, partialPath: partialPath)
            stream = try Self.addVideoStream(
                to: opened.2, encoder: opened.0, settings: settings, timescale: timescale, displayRotationDegrees: displayRotationDegrees,
                creationTime: creationTime, location: location)
        }
        let (encoder, pixelFormat, format) = opened
        self.audioSettings = audio
        let audioTrack = copyingAudio == nil ? try Self.addAudioStream(to: format, audio: audio) : nil
        self.audioEncoder = audioTrack?.encoder
        self.audioStream = try copyingAudio.map { try Self.addCopiedAudioStream(to: format, parameters: $0) } ?? audioTrack?.stream
        let audioRate = copyingAudio.map { Int($0.pointer.pointee.sample_rate) } ?? audio?.sampleRate
        // mvhd/elst durations at a timescale both tracks' ticks divide (the track's own
        // without sound), so both edit lists are exact.
        try check(
            av_opt_set_int(
                format.pointer.pointee.priv_data, "movie_timescale", TrackTiming.movieTimescale(videoTimescale: timescale, audioSampleRate: audioRate), 0),
            "av_opt_set_int", context: "movie_timescale")

        let frame = try Frame()
        if copying == nil { try frame.allocateBuffers(format: pixelFormat, width: dimensions.width, height: dimensions.height) }
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

        try openPartialFile()
    }

    /// Abandons the segment: closes the file and deletes the partial file (even one holding
    /// fragments). After a failure it does nothing: the partial file stays as the failure
    /// left it. Idempotent; later
    /// calls to `append(_:presentationTime:recyclingInto:)` / ``finish(endTime:)`` throw.
    package func cancel() { if case .open = state { discardPartialFile(reason: "cancelled") } }

    deinit { if case .open = state { discardPartialFile(reason: "released") } }
}
