import CFFmpeg
import Foundation

/// Opens anything libavformat demuxes and libavcodec decodes (MP4/MOV, Matroska/WebM, IVF,
/// Annex B H.264, YUV4MPEG2, raw video, standard input) and hands out the pictures of its
/// first video stream in presentation order, converted to NV12 with libswscale.
///
/// Other streams (audio, data) are ignored and listed in ``notes``. A truncated or corrupt
/// input yields every picture decoded before the damage, then throws
/// ``MediaInputError/badInput(path:field:detail:)``; a missing file throws
/// ``MediaInputError/inputNotFound(path:)``; no video stream or no decoder throws `badInput`.
///
/// Not thread-safe: one consumer pulls pictures with ``nextPicture()``.
public final class VideoFileDecoder {
    /// The path as given (`-` for standard input).
    public let path: String
    /// The options it was opened with (to reopen it, e.g. to loop a clip).
    public let options: VideoSourceOptions
    /// Where the planes of decoded pictures come from.
    public let pixelBufferPool: PixelBufferPool
    /// The stream's time base: seconds per tick = num / den.
    public let timeBase: (num: Int32, den: Int32)
    /// The stream's frame rate (`avg_frame_rate`, else `r_frame_rate`, else the option), if known.
    public let frameRate: FrameRate?
    /// The stream's `r_frame_rate` (the rate every timestamp is a multiple of), if known;
    /// see ``nominalFrameRate``.
    public let realFrameRate: FrameRate?
    /// Counter-clockwise display rotation from the stream's display matrix, or nil.
    public let rotationDegrees: Int?
    /// Codec short name, e.g. `h264`, `rawvideo`.
    public let codecName: String
    /// The stream's coded size as libavformat reports it before decoding.
    public let streamDimensions: VideoDimensions
    /// Frames the container says the stream holds (`nb_frames`), when it says.
    public let declaredFrameCount: Int64?
    /// Where the stream's presentation ends (`start_time + duration`, time-base ticks),
    /// when the container says: the last frame lasts until then.
    public let presentationEnd: Int64?
    /// What was noticed on opening: ignored streams, the stream chosen.
    public private(set) var notes: [String] = []
    /// Called with each adjustment worth a manifest warning (crop to even), once per size.
    public var warningHandler: ((String) -> Void)?

    /// Pictures handed out so far.
    public private(set) var picturesDecoded: Int64 = 0
    /// Packets of the video stream demuxed so far.
    public private(set) var packetsDemuxed: Int64 = 0

    private let input: InputFormatContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let decoder: CodecContext
    private let packet: Packet
    private let frame: Frame
    private var draining = false
    private var finished = false
    private var pendingError: MediaInputError?
    private var scaler: (key: String, context: ScaleContext)?
    private var croppedSizes: Set<VideoDimensions> = []

    /// Opens `path` (or `-` for standard input) and its first video stream's decoder.
    /// - Parameters:
    ///   - path: a file path, or `-` for standard input.
    ///   - options: how to open inputs without a header (raw video).
    ///   - pixelBufferPool: where the planes of decoded pictures come from; default
    ///     a pool of its own; pass the recording's pool, which the muxer's writers
    ///     recycle encoded pictures into (planes come back only to the pool they are recycled into).
    /// - Throws: ``MediaInputError/inputNotFound(path:)``, ``MediaInputError/badInput(path:field:detail:)``.
    public init(path: String, options: VideoSourceOptions = VideoSourceOptions(),
                pixelBufferPool: PixelBufferPool = PixelBufferPool()) throws(MediaInputError) {
        FFmpegLog.silence()
        self.path = path
        self.options = options
        self.pixelBufferPool = pixelBufferPool
        if path != VideoSourceOptions.standardInput && !FileManager.default.fileExists(atPath: path) {
            throw .inputNotFound(path: path)
        }
        let (url, format, demuxerOptions) = try options.demuxer(for: path)
        do {
            input = try InputFormatContext(url: url, formatName: format, options: demuxerOptions)
        } catch {
            if error.isNotFound { throw .inputNotFound(path: path) }
            throw .badInput(path: path, field: "container", detail: "libavformat cannot open it: \(error.message)")
        }
        let found = avformat_find_stream_info(input.pointer, nil)
        if found < 0 {
            throw .badInput(path: path, field: "container",
                            detail: "libavformat cannot read its streams: \(FFmpegError.errorString(found))")
        }
        let streams = input.streams
        guard let video = streams.first(where: { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }) else {
            throw .badInput(path: path, field: "video stream",
                            detail: "the input has no video stream (\(streams.count) other stream\(streams.count == 1 ? "" : "s"))")
        }
        stream = video
        let parameters = video.pointee.codecpar!
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        for other in streams where other != video {
            let type = av_get_media_type_string(other.pointee.codecpar.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
            let codec = String(cString: avcodec_get_name(other.pointee.codecpar.pointee.codec_id))
            notes.append("input stream #\(other.pointee.index) (\(type), \(codec)) ignored: only the first video stream is recorded")
        }
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
        let nopts = segrec_av_nopts_value()
        presentationEnd = video.pointee.start_time != nopts && video.pointee.duration != nopts && video.pointee.duration > 0
            ? video.pointee.start_time + video.pointee.duration : nil

        do {
            decoder = try CodecContext.openDecoder(for: video, context: path)
            packet = try Packet()
            frame = try Frame()
        } catch where error.code == segrec_averror_decoder_not_found() {
            throw .badInput(path: path, field: "codec", detail: "no decoder for \(codecName) in this FFmpeg")
        } catch {
            throw .badInput(path: path, field: "codec", detail: "cannot open the \(codecName) decoder: \(error)")
        }
        notes.insert("input \(path == "-" ? "standard input" : path): \(codecName) \(streamDimensions), time base \(timeBase.num)/\(timeBase.den)"
                     + (frameRate.map { ", \($0) fps" } ?? "") + (rotationDegrees.map { ", rotation \($0)°" } ?? ""), at: 0)
    }

    /// The next picture in presentation order, or nil at the end of the stream.
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` after the last picture
    ///   decoded before damage (truncation, corrupt packet, demuxing or decoding error).
    public func nextPicture() throws(MediaInputError) -> DecodedPicture? {
        while true {
            if finished {
                if let error = pendingError { pendingError = nil; throw error }
                return nil
            }
            if let picture = try receivePicture() { return picture }
            if finished || draining { continue }
            try feedPacket()
        }
    }

    /// One `avcodec_receive_frame`; nil when the decoder wants input (or is done).
    private func receivePicture() throws(MediaInputError) -> DecodedPicture? {
        let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
        if received == segrec_averror_eagain() {
            if draining { finished = true }  // should not happen after a flush; be safe
            return nil
        }
        if received == segrec_averror_eof() { finished = true; return nil }
        if received < 0 {
            fail(field: "decoding", detail: "libavcodec (\(codecName)) failed: \(FFmpegError.errorString(received))")
            finished = true
            return nil
        }
        defer { av_frame_unref(frame.pointer) }
        return try convertFrame()
    }

    /// Reads the next packet of the stream and sends it to the decoder; at the end (or on
    /// damage) sends the flush packet.
    private func feedPacket() throws(MediaInputError) {
        while true {
            let read = av_read_frame(input.pointer, packet.pointer)
            if read == segrec_averror_eof() {
                if let declared = declaredFrameCount, packetsDemuxed < declared {
                    fail(field: "data", detail: "truncated: the file ends after \(packetsDemuxed) of its \(declared) frames")
                }
                flush()
                return
            }
            if read < 0 {
                fail(field: "data", detail: "demuxing failed after \(packetsDemuxed) frames: \(FFmpegError.errorString(read))")
                flush()
                return
            }
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == stream.pointee.index else { continue }
            if (packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 {
                fail(field: "data", detail: "frame \(packetsDemuxed) is truncated or corrupt; \(packetsDemuxed) frames before it were read")
                flush()
                return
            }
            packetsDemuxed += 1
            let sent = avcodec_send_packet(decoder.pointer, packet.pointer)
            if sent < 0 && sent != segrec_averror_eagain() {
                fail(field: "decoding", detail: "libavcodec (\(codecName)) rejected frame \(packetsDemuxed - 1): \(FFmpegError.errorString(sent))")
                flush()
            }
            return
        }
    }

    private func flush() {
        draining = true
        if avcodec_send_packet(decoder.pointer, nil) < 0 { finished = true }
    }

    private func fail(field: String, detail: String) {
        if pendingError == nil { pendingError = .badInput(path: path, field: field, detail: detail) }
    }

    /// The current `AVFrame` as an even-sized NV12 picture.
    private func convertFrame() throws(MediaInputError) -> DecodedPicture {
        let f = frame.pointer
        let width = Int(f.pointee.width), height = Int(f.pointee.height)
        let decoded = VideoDimensions(width: width, height: height)
        guard width >= 2, height >= 2 else {
            throw .badInput(path: path, field: "picture size", detail: "\(decoded) is too small (at least 2x2)")
        }
        let even = VideoDimensions(width: width & ~1, height: height & ~1)
        if even != decoded, croppedSizes.insert(decoded).inserted {
            warningHandler?("input pictures are \(decoded): cropped to \(even) (x264 needs an even width and height in 4:2:0)")
        }
        let format = AVPixelFormat(rawValue: f.pointee.format)
        let key = "\(format.rawValue):\(even)"
        if scaler?.key != key {
            do {
                scaler = (key, try ScaleContext(sourceWidth: even.width, sourceHeight: even.height, source: format,
                                                destinationWidth: even.width, destinationHeight: even.height,
                                                destination: AV_PIX_FMT_NV12, flags: SWS_POINT))
            } catch {
                let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "\(format.rawValue)"
                throw .badInput(path: path, field: "pixel format", detail: "libswscale cannot convert \(name) to nv12: \(error)")
            }
        }
        let planes: [UnsafePointer<UInt8>?] = [UnsafePointer(f.pointee.data.0), UnsafePointer(f.pointee.data.1),
                                               UnsafePointer(f.pointee.data.2), UnsafePointer(f.pointee.data.3)]
        let strides: [Int32] = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3]
        let buffer: PixelBuffer
        do {
            buffer = try scaler!.context.scaleToNV12(sourcePlanes: planes, sourceStrides: strides,
                                                     pixelBufferPool: pixelBufferPool)
        } catch {
            throw .badInput(path: path, field: "pixel format", detail: "\(error)")
        }
        // The frame's pts, else libavcodec's best-effort timestamp (streams with only dts).
        let nopts = segrec_av_nopts_value()
        let pts = f.pointee.pts != nopts ? f.pointee.pts
            : (f.pointee.best_effort_timestamp != nopts ? f.pointee.best_effort_timestamp : nil)
        let picture = DecodedPicture(pixelBuffer: buffer, pts: pts, decodedDimensions: decoded, index: picturesDecoded)
        picturesDecoded += 1
        return picture
    }
}
