import CFFmpeg
import Foundation

/// Writes one MP4 file holding one video stream, encoded from timestamped NV12 pictures:
/// segrec's analog of an `AVAssetWriter` with one `AVAssetWriterInput`.
///
/// Built on libavcodec (libx264 / libx265 encoders), libavformat (the `mp4` muxer) and,
/// only when the encoder cannot take NV12 (libx265), libswscale.
///
/// - Timestamps: encoder and stream use the time base `1/timescale`, so presentation
///   times given at that timescale are stored exactly; the file's timeline starts at the
///   first frame (pts 0).
/// - Durations: each frame lasts until the next frame's pts; the last lasts until the
///   `endTime` passed to ``finish(endTime:)``.
/// - Files: writing goes to `<name>.partial` next to `url`, renamed to `url` only by a
///   successful ``finish(endTime:)``; an existing `url` is never overwritten. A writer that
///   is cancelled, fails, or is released unfinished deletes its partial file.
///
/// Not thread-safe: use one writer from one task at a time.
public final class SegmentWriter {
    /// The final file (created by ``finish(endTime:)``).
    public let url: URL
    /// The temporary file written until ``finish(endTime:)``: `url` + `.partial`.
    public let partialURL: URL
    /// Dimensions every picture must have.
    public let dimensions: VideoDimensions
    /// Ticks per second of the encoder's and the stream's time base (`1/timescale`).
    public let timescale: Int32
    /// The validated encoder settings.
    public let settings: EncoderSettings
    /// Frames accepted by ``append(_:presentationTime:)`` so far.
    public private(set) var frameCount = 0

    private enum State {
        case open
        case failed(any Error)
        case closed(reason: String)
    }

    private let format: OutputFormatContext
    private let encoder: CodecContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let frame: Frame
    private let packet: Packet
    private let scaler: ScaleContext?
    private var state = State.open
    private var lastPTS: Int64?
    /// pts → duration (encoder time base) of frames whose successor (or end) is known.
    private var durations: [Int64: Int64] = [:]
    /// Encoded packets, in decode order, waiting for their duration to be known.
    private var pending: [Packet] = []
    private var packetsWritten = 0

    /// Opens the encoder and the partial file and writes the MP4 header.
    ///
    /// - Parameters:
    ///   - url: the final file; must not exist.
    ///   - dimensions: picture size in pixels (even, positive).
    ///   - timescale: ticks per second of the presentation times (the recorder uses
    ///     1_000_000_000, session nanoseconds); becomes the time base `1/timescale`.
    ///   - settings: codec, preset, CRF, GOP, threads, nominal rate; validated here.
    ///   - displayRotationDegrees: if given, stored as the stream's display matrix
    ///     (`AV_PKT_DATA_DISPLAYMATRIX` via `av_display_rotation_set`, written to the `tkhd`
    ///     matrix): counter-clockwise degrees, exactly what ffprobe prints as `rotation` and
    ///     ``StreamInfo/rotationDegrees`` reads back.
    /// - Throws: ``SegmentWriterError/fileExists(path:)``,
    ///   ``SegmentWriterError/invalidTimescale(_:)``, ``EncoderSettingsError``, or
    ///   ``FFmpegError`` (e.g. `avcodec_find_encoder_by_name` with
    ///   `AVERROR_ENCODER_NOT_FOUND`, `avio_open` with ENOENT for a missing directory).
    ///   A stale `<name>.partial` from an earlier crash is replaced.
    public init(url: URL, dimensions: VideoDimensions, timescale: Int32, settings: EncoderSettings,
                displayRotationDegrees: Int? = nil) throws {
        FFmpegLog.silenceBelowErrors()
        try settings.validate()
        guard timescale > 0 else { throw SegmentWriterError.invalidTimescale(timescale) }
        precondition(dimensions.width > 0 && dimensions.height > 0
                     && dimensions.width % 2 == 0 && dimensions.height % 2 == 0,
                     "NV12 needs even, positive dimensions, got \(dimensions)")
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw SegmentWriterError.fileExists(path: url.path)
        }
        self.url = url
        self.partialURL = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".partial")
        self.dimensions = dimensions
        self.timescale = timescale
        self.settings = settings

        let encoderName = settings.codec.encoderName
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw FFmpegError(call: "avcodec_find_encoder_by_name", code: segrec_averror_encoder_not_found(),
                              context: encoderName)
        }
        let encoder = try CodecContext(codec: codec)
        let pixelFormat = encoder.supports(pixelFormat: AV_PIX_FMT_NV12) ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
        let format = try OutputFormatContext(formatName: "mp4", path: partialURL.path)
        try Self.configure(encoder, settings: settings, dimensions: dimensions, timescale: timescale,
                           pixelFormat: pixelFormat, globalHeader: format.wantsGlobalHeader)
        try check(avcodec_open2(encoder.pointer, codec, nil), "avcodec_open2", context: encoderName)

        guard let stream = avformat_new_stream(format.pointer, nil) else {
            throw FFmpegError(call: "avformat_new_stream", code: segrec_averror_enomem())
        }
        stream.pointee.time_base = AVRational(num: 1, den: timescale)
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.pointer),
                  "avcodec_parameters_from_context")
        if settings.codec == .hevc {
            // Apple players only open HEVC in MP4 when the sample entry is 'hvc1' (parameter
            // sets in the sample description), not FFmpeg's default 'hev1'.
            stream.pointee.codecpar!.pointee.codec_tag = segrec_mktag(0x68, 0x76, 0x63, 0x31)  // "hvc1"
        }
        if let degrees = displayRotationDegrees {
            guard let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4) else {
                throw FFmpegError(call: "av_stream_new_side_data", code: segrec_averror_enomem())
            }
            // FFmpeg 5.1's av_display_rotation_set takes *clockwise* degrees while
            // av_display_rotation_get (and ffprobe's `rotation`) report counter-clockwise
            // ones; negate so the file reads back as `degrees`.
            UnsafeMutableRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) {
                av_display_rotation_set($0, -Double(degrees))
            }
        }
        // mvhd/elst durations at the track's own timescale, so the edit list is exact too.
        try check(av_opt_set_int(format.pointer.pointee.priv_data, "movie_timescale", Int64(timescale), 0),
                  "av_opt_set_int", context: "movie_timescale")

        let frame = try Frame()
        try frame.allocateBuffers(format: pixelFormat, width: dimensions.width, height: dimensions.height)
        self.scaler = pixelFormat == AV_PIX_FMT_NV12 ? nil
            : try ScaleContext(width: dimensions.width, height: dimensions.height,
                               source: AV_PIX_FMT_NV12, destination: pixelFormat)
        self.packet = try Packet()
        self.frame = frame
        self.encoder = encoder
        self.format = format
        self.stream = stream

        if FileManager.default.fileExists(atPath: partialURL.path) {
            try? FileManager.default.removeItem(at: partialURL)
        }
        do {
            try format.openFile()
            try check(avformat_write_header(format.pointer, nil), "avformat_write_header", context: partialURL.path)
        } catch {
            try? format.closeFile()
            try? FileManager.default.removeItem(at: partialURL)
            state = .closed(reason: "failed to open")
            throw error
        }
    }

    /// Sets size, pixel format, time base, rate, GOP, threads and the x264/x265 private
    /// options (`preset`, `crf`, `forced-idr`) on an unopened encoder context.
    private static func configure(_ encoder: CodecContext, settings: EncoderSettings, dimensions: VideoDimensions,
                                  timescale: Int32, pixelFormat: AVPixelFormat, globalHeader: Bool) throws(FFmpegError) {
        let context = encoder.pointer
        context.pointee.width = Int32(dimensions.width)
        context.pointee.height = Int32(dimensions.height)
        context.pointee.pix_fmt = pixelFormat
        context.pointee.color_range = AVCOL_RANGE_MPEG  // NV12 "420v" is video range
        context.pointee.time_base = AVRational(num: 1, den: timescale)
        // Validated to fit in Int32.
        context.pointee.framerate = AVRational(num: Int32(settings.frameRate.numerator),
                                               den: Int32(settings.frameRate.denominator))
        context.pointee.gop_size = Int32(settings.keyframeInterval)
        context.pointee.thread_count = Int32(settings.threads)
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }

        let options = context.pointee.priv_data
        let name = encoder.codecName
        try check(av_opt_set(options, "preset", settings.preset, 0), "av_opt_set", context: "\(name) preset")
        try check(av_opt_set(options, "crf", "\(settings.crf)", 0), "av_opt_set", context: "\(name) crf")
        try check(av_opt_set(options, "forced-idr", "1", 0), "av_opt_set", context: "\(name) forced-idr")
        if settings.codec == .hevc {
            // x265 logs straight to stderr; keep only its errors, like av_log.
            try check(av_opt_set(options, "x265-params", "log-level=error", 0), "av_opt_set",
                      context: "\(name) x265-params")
        }
    }

    /// Encodes one picture.
    ///
    /// - Parameters:
    ///   - buffer: NV12 picture of ``dimensions`` (any strides).
    ///   - presentationTime: relative to the segment's start (first frame normally 0), at any
    ///     timescale; converted exactly to ``timescale``. The first frame is forced to be a
    ///     keyframe (`AV_PICTURE_TYPE_I`, IDR).
    /// - Throws: ``SegmentWriterError/dimensionsMismatch(expected:got:)``,
    ///   ``SegmentWriterError/timeNotRepresentable(_:timescale:)``,
    ///   ``SegmentWriterError/nonIncreasingPresentationTime(previous:got:)`` (these leave the
    ///   writer usable), or ``FFmpegError`` from `avcodec_send_frame` /
    ///   `avcodec_receive_packet` / `av_write_frame` (the writer has then failed and deleted
    ///   its partial file; ``finish(endTime:)`` rethrows it).
    public func append(_ buffer: PixelBuffer, presentationTime: MediaTime) throws {
        try ensureOpen()
        guard buffer.dimensions == dimensions else {
            throw SegmentWriterError.dimensionsMismatch(expected: dimensions, got: buffer.dimensions)
        }
        guard let pts = presentationTime.exactTicks(atTimescale: timescale) else {
            throw SegmentWriterError.timeNotRepresentable(presentationTime, timescale: timescale)
        }
        if let lastPTS {
            guard pts > lastPTS else {
                throw SegmentWriterError.nonIncreasingPresentationTime(
                    previous: MediaTime(value: lastPTS, timescale: timescale), got: presentationTime)
            }
        } else if pts < 0 {
            throw SegmentWriterError.nonIncreasingPresentationTime(previous: nil, got: presentationTime)
        }
        do {
            try frame.makeWritable()
            if let scaler {
                try scaler.convertNV12(buffer, into: frame)
            } else {
                frame.copyNV12(from: buffer)
            }
            let isFirst = lastPTS == nil
            frame.pointer.pointee.pts = pts
            frame.pointer.pointee.pict_type = isFirst ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            frame.pointer.pointee.key_frame = isFirst ? 1 : 0
            if let lastPTS { durations[lastPTS] = pts - lastPTS }
            lastPTS = pts
            frameCount += 1
            try check(avcodec_send_frame(encoder.pointer, frame.pointer), "avcodec_send_frame", context: partialURL.path)
            try drainEncoder()
        } catch {
            fail(error)
            throw error
        }
    }

    /// Flushes the encoder, gives the last frame the duration `endTime − last pts`, writes
    /// the MP4 trailer (`av_write_trailer`), closes the file and renames it to ``url``.
    ///
    /// - Parameter endTime: the segment's end relative to its start, at any timescale,
    ///   exactly representable at ``timescale`` and after the last frame's presentation time.
    /// - Returns: the summary. With no frames appended, no file is created (the partial file
    ///   is deleted) and the summary has `frameCount` 0, `byteCount` 0 and `url` nil.
    /// - Throws: ``SegmentWriterError`` for a bad `endTime` (the writer stays usable), or the
    ///   error that made an earlier call fail, or ``FFmpegError`` /
    ///   ``SegmentWriterError/renameFailed(from:to:reason:)`` from finishing; on any such
    ///   error no file is left under ``url`` or the partial name.
    public func finish(endTime: MediaTime) throws -> SegmentWriterSummary {
        try ensureOpen()
        guard let endTicks = endTime.exactTicks(atTimescale: timescale) else {
            throw SegmentWriterError.timeNotRepresentable(endTime, timescale: timescale)
        }
        let duration = MediaTime(value: endTicks, timescale: timescale)
        guard let lastPTS else {
            discardPartialFile(reason: "finished with no frames")
            return SegmentWriterSummary(frameCount: 0, byteCount: 0, url: nil, duration: duration)
        }
        guard endTicks > lastPTS else {
            throw SegmentWriterError.endTimeNotAfterLastFrame(
                lastFrame: MediaTime(value: lastPTS, timescale: timescale), endTime: endTime)
        }
        durations[lastPTS] = endTicks - lastPTS
        do {
            try check(avcodec_send_frame(encoder.pointer, nil), "avcodec_send_frame", context: "flush")
            try drainEncoder(writing: false)
            try writeTail(end: endTicks)
            guard packetsWritten == frameCount, durations.isEmpty else {
                throw SegmentWriterError.packetCountMismatch(frames: frameCount, packets: packetsWritten)
            }
            try check(av_write_trailer(format.pointer), "av_write_trailer", context: partialURL.path)
            try format.closeFile()
            try moveIntoPlace()
        } catch {
            fail(error)
            throw error
        }
        state = .closed(reason: "finished")
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        return SegmentWriterSummary(frameCount: frameCount, byteCount: size, url: url, duration: duration)
    }

    /// Abandons the segment: closes the file and deletes the partial file. Idempotent; later
    /// calls to ``append(_:presentationTime:)`` / ``finish(endTime:)`` throw.
    public func cancel() {
        if case .open = state { discardPartialFile(reason: "cancelled") }
    }

    deinit {
        if case .open = state { discardPartialFile(reason: "released") }
    }

    // MARK: - Internals

    private func ensureOpen() throws {
        switch state {
        case .open: return
        case .failed(let error): throw error
        case .closed(let reason):
            throw SegmentWriterError.notWritable(path: url.path, underlying: reason)
        }
    }

    /// Records the first failure, closes and deletes the partial file.
    private func fail(_ error: any Error) {
        if case .open = state {
            try? format.closeFile()
            try? FileManager.default.removeItem(at: partialURL)
            state = .failed(error)
        }
    }

    private func discardPartialFile(reason: String) {
        try? format.closeFile()
        try? FileManager.default.removeItem(at: partialURL)
        state = .closed(reason: reason)
    }

    /// Receives every packet the encoder has ready (`avcodec_receive_packet` until EAGAIN or
    /// EOF) and, when `writing`, writes in decode order those whose duration is known
    /// (otherwise all stay pending for ``writeTail(end:)``).
    private func drainEncoder(writing: Bool = true) throws {
        while true {
            let received = avcodec_receive_packet(encoder.pointer, packet.pointer)
            if received == segrec_averror_eagain() || received == segrec_averror_eof() { break }
            try check(received, "avcodec_receive_packet", context: partialURL.path)
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

    /// Writes the flushed tail of the stream. The very last packet in decode order gets
    /// `dts = pts` and `duration = end − pts`: then both the track's sample durations
    /// (`stts`, which sum to `last dts + last duration − first dts`) and its presentation
    /// (`max(pts + duration)`, the edit list) end exactly at `end`, even when the encoder
    /// reordered frames and that packet is not the last one presented. Raising the last
    /// dts is valid: it stays after the previous dts (which is below the original dts ≤ pts)
    /// and no later sample depends on it.
    private func writeTail(end: Int64) throws {
        while let first = pending.first {
            let p = first.pointer
            if pending.count == 1 {
                durations[p.pointee.pts] = end - p.pointee.pts
                p.pointee.dts = p.pointee.pts
            }
            try write(first)
            pending.removeFirst()
        }
    }

    /// Sets the packet's duration from the pts → duration map, rescales it to the stream's
    /// time base and writes it (`av_write_frame`), then unreferences it.
    private func write(_ packet: Packet) throws {
        let p = packet.pointer
        defer { av_packet_unref(p) }
        guard let duration = durations.removeValue(forKey: p.pointee.pts) else {
            throw SegmentWriterError.unexpectedPacketTimestamp(pts: p.pointee.pts)
        }
        p.pointee.duration = duration
        p.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(p, encoder.pointer.pointee.time_base, stream.pointee.time_base)
        try check(av_write_frame(format.pointer, p), "av_write_frame", context: partialURL.path)
        packetsWritten += 1
    }

    /// Renames the partial file to ``url``, refusing to replace a file that appeared meanwhile.
    private func moveIntoPlace() throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw SegmentWriterError.fileExists(path: url.path)
        }
        do {
            try FileManager.default.moveItem(at: partialURL, to: url)
        } catch {
            throw SegmentWriterError.renameFailed(from: partialURL.path, to: url.path, reason: "\(error)")
        }
    }
}
