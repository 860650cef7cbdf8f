// RawFrameReader's opening: which inputs it reads, the input opened, the YUV4MPEG2 header read and checked, or the raw video options checked.
import CFFmpeg
import Foundation
import SegRecTime

extension RawFrameReader {
    /// The reader of `path` when it is a raw frame stream this reader takes (see
    /// ``FootageInput/open(path:options:pixelBufferPool:stopRequest:keepsYUV420P:decodesAudio:)``),
    /// its header read; nil when libavformat reads it.
    /// - Throws: ``MediaInputError/inputNotFound(path:)``; ``MediaInputError/badInput(path:field:detail:)``
    ///   for a header FFmpeg refuses (its sentence, the field, what is allowed) or a size beyond
    ///   ``RawFrameLayout``'s bounds; ``MediaInputError/interrupted(path:)`` when a stop came
    ///   while the header was awaited.
    static func open(path: String, options: VideoSourceOptions, pixelBufferPool: PixelBufferPool, stopRequest: RecordingStopRequest?, keepsYUV420P: Bool)
        throws(MediaInputError) -> RawFrameReader?
    {
        if case .reader(let reader) = try opening(
            path: path, options: options, pixelBufferPool: pixelBufferPool, stopRequest: stopRequest, keepsYUV420P: keepsYUV420P)
        {
            return reader
        }
        return nil
    }

    /// What opening `path` found: a raw frame stream this reader reads, or an input for
    /// libavformat — from its start, or a named pipe already open whose first bytes were read.
    enum Opening {
        case reader(RawFrameReader)
        case libavformat(RawByteInput.HandOver?)
    }

    /// ``open(path:options:pixelBufferPool:stopRequest:keepsYUV420P:)``, with a named pipe
    /// that is not YUV4MPEG2 handed over to libavformat (its first bytes are read to tell).
    static func opening(path: String, options: VideoSourceOptions, pixelBufferPool: PixelBufferPool, stopRequest: RecordingStopRequest?, keepsYUV420P: Bool)
        throws(MediaInputError) -> Opening
    {
        // FFmpeg's own lines (the size check's "Picture size 0x10 is invalid") go to the
        // log, not to standard error, as for libavformat's inputs.
        FFmpegLog.silence()
        guard VideoSourceOptions.networkScheme(of: path) == nil else { return .libavformat(nil) }
        let (_, file, isPipe, demuxer, _) = try options.demuxer(for: path)
        func make(_ input: RawByteInput, _ format: RawStreamFormat) throws(MediaInputError) -> Opening {
            .reader(
                try RawFrameReader(
                    path: path, options: options, pixelBufferPool: pixelBufferPool, stopRequest: stopRequest, keepsYUV420P: keepsYUV420P, input: input,
                    format: format))
        }
        if demuxer == "rawvideo" {
            guard let format = try rawFormat(path: path, options: options) else { return .libavformat(nil) }
            return try make(try openInput(path: path, file: file, isPipe: isPipe, stopRequest: stopRequest), format)
        }
        let isStandardInput = demuxer == "yuv4mpegpipe"
        let isNamedPipe = demuxer == nil && isPipe && file != nil
        guard isStandardInput || isNamedPipe || (demuxer == nil && file.map(startsWithY4MMagic) == true) else { return .libavformat(nil) }
        let input = try openInput(path: path, file: isStandardInput ? nil : file, isPipe: isPipe, stopRequest: stopRequest)
        if isNamedPipe {
            // A named pipe is probed by its first bytes: YUV4MPEG2 is read here, anything
            // else goes on to libavformat through the same descriptor.
            let head = try peek(input, path: path, count: Y4MHeader.magic.count)
            guard head == Y4MHeader.magic else { return .libavformat(input.handOver(read: head)) }
            input.unread(head)
        }
        let format = try y4mFormat(path: path, input: input)
        // A rate libavformat rounds (see RawStreamFormat.isRateReadHere): a file goes to it;
        // a pipe, whose header is read, keeps its rate as written.
        if !isPipe, let rate = format.frameRate, !RawStreamFormat.isRateReadHere(rate) { return .libavformat(nil) }
        return try make(input, format)
    }

    /// Up to `count` first bytes of `input` (fewer when it ends first).
    private static func peek(_ input: RawByteInput, path: String, count: Int) throws(MediaInputError) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: count)
        do {
            let got = try input.read(into: &head, count: count)
            head.removeLast(count - got)
            return head
        } catch {
            switch error {
            case .interrupted: throw .interrupted(path: path)
            case .system(let reason): throw .badInput(path: path, field: "container", detail: "cannot read it: \(reason)")
            }
        }
    }

    /// Whether `path` looks like a raw frame stream this reader takes, without opening it
    /// for reading (a file's first bytes are looked at): standard input read as YUV4MPEG2,
    /// raw video in a format and at a rate it reads, a file that starts with `YUV4MPEG2`.
    /// For choices made before the input is opened (the allocator's settings).
    package static func reads(path: String, options: VideoSourceOptions) -> Bool {
        FFmpegLog.silence()
        guard VideoSourceOptions.networkScheme(of: path) == nil, let (_, file, isPipe, demuxer, _) = try? options.demuxer(for: path) else { return false }
        if demuxer == "rawvideo" { return (try? rawFormat(path: path, options: options)).flatMap { $0 } != nil }
        return demuxer == "yuv4mpegpipe" || (demuxer == nil && !isPipe && file.map(startsWithY4MMagic) == true)
    }

    /// The raw video options as a stream format; nil for a pixel format or rate libavformat keeps.
    private static func rawFormat(path: String, options: VideoSourceOptions) throws(MediaInputError) -> RawStreamFormat? {
        guard let size = options.videoSize else { return nil }
        let rate = options.frameRate ?? (try? FrameRate(25))!
        // Beyond 60000 in either term libavformat's average rate of raw video is an
        // approximation (`av_reduce(…, 60000)`), which this reader does not reproduce.
        guard RawStreamFormat.isRateReadHere(rate), rate.numerator <= 60000, rate.denominator <= 60000 else { return nil }
        let pixelFormat = av_get_pix_fmt(options.pixelFormat ?? "yuv420p")
        do {
            let layout = try RawFrameLayout(format: pixelFormat, width: Int32(clamping: size.width), height: Int32(clamping: size.height))
            return RawStreamFormat(raw: layout, rate: rate)
        } catch {
            switch error {
            case .unsupportedFormat: return nil
            case .invalidSize(let sentence): throw .badInput(path: path, field: "videoSize", detail: "\(sentence); allowed: \(allowedSizes)")
            case .tooLarge(let why): throw .badInput(path: path, field: "videoSize", detail: why)
            }
        }
    }

    /// The YUV4MPEG2 header read from `input` and checked.
    private static func y4mFormat(path: String, input: RawByteInput) throws(MediaInputError) -> RawStreamFormat {
        let hint =
            path == VideoSourceOptions.standardInput
            ? " (standard input is read as YUV4MPEG2, or as raw video when its size is given; another container needs a file or a named pipe)" : ""
        let line: [UInt8]
        do { line = try input.readLine(maximum: Y4MHeader.maximumLength, firstRead: Y4MHeader.maximumLength) } catch {
            switch error {
            case .interrupted: throw .interrupted(path: path)
            case .system(let reason): throw .badInput(path: path, field: "container", detail: "cannot read it: \(reason)")
            }
        }
        let header: Y4MHeader
        do { header = try Y4MHeader.parse(line) } catch { throw .badInput(path: path, field: "YUV4MPEG2 header", detail: error.sentence + hint) }
        do { return try RawStreamFormat(y4m: header, dataOffset: input.position) } catch {
            let size = "W\(header.width) H\(header.height) C\(PictureConverter.name(of: header.pixelFormat))"
            switch error {
            case .invalidSize(let sentence):
                throw .badInput(path: path, field: "YUV4MPEG2 header W, H", detail: "\(sentence) (\(size)); allowed: \(allowedSizes)")
            case .tooLarge(let why): throw .badInput(path: path, field: "YUV4MPEG2 header W, H", detail: why)
            case .unsupportedFormat: throw .badInput(path: path, field: "YUV4MPEG2 header C", detail: "\(size): not a format read here\(hint)")
            }
        }
    }

    /// Sizes a raw frame stream may have.
    static var allowedSizes: String { "width and height 1–\(RawFrameLayout.maximumSide), at most \(RawFrameLayout.maximumFrameBytes >> 20) MiB a picture" }

    /// Opens the bytes of `path` (`file`, or standard input when nil).
    private static func openInput(path: String, file: String?, isPipe: Bool, stopRequest: RecordingStopRequest?) throws(MediaInputError) -> RawByteInput {
        do { return try RawByteInput(fileSystemPath: file, isPipe: isPipe, shouldStop: { stopRequest?.isRequested == true }) } catch {
            switch error {
            case .interrupted: throw .interrupted(path: path)
            case .system(let reason): throw .badInput(path: path, field: "container", detail: "cannot open it: \(reason)")
            }
        }
    }

    /// Whether the regular file at `file` starts with `YUV4MPEG2` (what libavformat's probe
    /// recognises YUV4MPEG2 by, whatever the name).
    private static func startsWithY4MMagic(_ file: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: Y4MHeader.magic.count)) ?? Data()
        return Array(head) == Y4MHeader.magic
    }
}
