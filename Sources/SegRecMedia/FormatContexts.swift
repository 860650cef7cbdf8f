import CFFmpeg

/// Owns a muxing `AVFormatContext` (mirrors `avformat_alloc_output_context2`) and the
/// ``FileAVIOContext`` it writes through; deinit closes the file and frees the context
/// (`avformat_free_context`). Not thread-safe.
final class OutputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// The path being written.
    let path: String
    /// The file written, once ``attach(_:)`` was called.
    private(set) var file: FileAVIOContext?

    /// Allocates a context for container `formatName` (e.g. `"mp4"`) writing to `path`
    /// (no file yet: see ``attach(_:)``).
    init(formatName: String, path: String) throws(FFmpegError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, formatName, path), "avformat_alloc_output_context2", context: path)
        guard let context else { throw FFmpegError(call: "avformat_alloc_output_context2", code: segrec_averror_enomem(), context: path) }
        self.pointer = context
        self.path = path
    }

    /// Makes the muxer write through `file` (`pb`, `AVFMT_FLAG_CUSTOM_IO`) and lets it read
    /// its own output back (``FileAVIOContext/installReadBack(on:)``, for `faststart`).
    func attach(_ file: FileAVIOContext) {
        self.file = file
        pointer.pointee.pb = file.pointer
        pointer.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        file.installReadBack(on: pointer)
    }

    /// Flushes and closes the file; a no-op when it is not open.
    /// - Throws: ``SegmentWriterError/io(path:operation:errno:)`` for the first write or
    ///   close failure of the file's life.
    func closeFile() throws(SegmentWriterError) {
        guard let file else { return }
        pointer.pointee.pb = nil
        self.file = nil
        if let failure = file.close() { throw failure }
    }

    /// Whether the container wants codec extradata in a global header (`AVFMT_GLOBALHEADER`).
    var wantsGlobalHeader: Bool { (pointer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    deinit {
        pointer.pointee.pb = nil
        file?.close()
        avformat_free_context(pointer)
    }
}

/// Owns a demuxing `AVFormatContext` (mirrors `avformat_open_input`); deinit calls
/// `avformat_close_input`. Not thread-safe.
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// The file read through a custom `AVIOContext`, kept alive as long as the context.
    private let file: FileAVIOContext?
    /// The pipe read through a custom `AVIOContext`, kept alive as long as the context.
    let pipe: InputPipe?
    /// What the `AVIOInterruptCB` asks, kept alive as long as the context.
    private let interrupt: InterruptCheck?

    /// Opens the file at `path` and reads its header. The path goes to libavformat as
    /// `file:` + `path`, so any file name works, also one with a colon (`cam1:x.mp4`),
    /// which libavformat would otherwise take for a protocol.
    /// - Throws: ``FFmpegError`` from `avformat_open_input` (``FFmpegError/isNotFound`` when
    ///   the file is missing).
    convenience init(path: String) throws(FFmpegError) { try self.init(url: "file:" + path, formatName: nil, options: [:]) }

    /// Opens `url` (`file:` + a path, or any URL libavformat takes), or `pipe` when given
    /// (read through its polling `AVIOContext`, `AVFMT_FLAG_CUSTOM_IO`; `url` then only
    /// names it), with an explicit demuxer (`av_find_input_format`, e.g. `"rawvideo"`,
    /// `"yuv4mpegpipe"`; nil to probe) and demuxer options (`video_size`, `pixel_format`,
    /// `framerate`, …) passed as an `AVDictionary`. Options the demuxer does not take are an
    /// error (EINVAL).
    ///
    /// `shouldStop`, when given, becomes the context's `interrupt_callback`
    /// (`AVIOInterruptCB`): libavformat asks it while it waits for data and gives up with
    /// `AVERROR_EXIT` once it returns true.
    init(url: String, formatName: String?, options: [String: String], pipe: InputPipe? = nil, shouldStop: (@Sendable () -> Bool)? = nil) throws(FFmpegError) {
        var format: UnsafePointer<AVInputFormat>?
        if let formatName {
            guard let found = av_find_input_format(formatName) else {
                throw FFmpegError(call: "av_find_input_format", code: segrec_averror_demuxer_not_found(), context: formatName)
            }
            format = found
        }
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { try check(av_dict_set(&dictionary, key, value, 0), "av_dict_set", context: key) }
        guard let allocated = avformat_alloc_context() else { throw FFmpegError(call: "avformat_alloc_context", code: segrec_averror_enomem(), context: url) }
        let interrupt = shouldStop.map(InterruptCheck.init)
        if let interrupt {
            allocated.pointee.interrupt_callback = AVIOInterruptCB(
                callback: { opaque in Unmanaged<InterruptCheck>.fromOpaque(opaque!).takeUnretainedValue().shouldStop() ? 1 : 0 },
                opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        }
        if let pipe {
            allocated.pointee.pb = pipe.pointer
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        // On failure avformat_open_input frees the context (not a custom pb).
        try check(avformat_open_input(&context, url, format, &dictionary), "avformat_open_input", context: url)
        guard let context else { throw FFmpegError(call: "avformat_open_input", code: segrec_averror_enomem(), context: url) }
        if let unused = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: unused.pointee.key)
            var closing: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&closing)
            throw FFmpegError(call: "avformat_open_input", code: segrec_averror_einval(), context: "\(url): option '\(key)' is not taken by this demuxer")
        }
        self.pointer = context
        self.file = nil
        self.pipe = pipe
        self.interrupt = interrupt
    }

    /// Opens a file segrec opened itself (read through `file`, `AVFMT_FLAG_CUSTOM_IO`) and
    /// reads its header; the context keeps `file` alive.
    ///
    /// With `ignoresIndex` (the default) `AVFMT_FLAG_IGNIDX` is set: the mov demuxer then
    /// stops reading the header at the first fragment and reads later fragments as packets
    /// are asked for, instead of indexing every fragment up front, which fails for a file
    /// cut inside a fragment header (a partial file after a crash).
    /// - Throws: ``FFmpegError`` from `avformat_open_input` (e.g. `AVERROR_INVALIDDATA`).
    init(reading file: FileAVIOContext, ignoresIndex: Bool = true) throws(FFmpegError) {
        guard let allocated = avformat_alloc_context() else {
            throw FFmpegError(call: "avformat_alloc_context", code: segrec_averror_enomem(), context: file.path)
        }
        allocated.pointee.pb = file.pointer
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO | (ignoresIndex ? AVFMT_FLAG_IGNIDX : 0)
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        // On failure avformat_open_input frees the context (not our pb).
        try check(avformat_open_input(&context, file.path, nil, nil), "avformat_open_input", context: file.path)
        self.pointer = context!
        self.file = file
        self.pipe = nil
        self.interrupt = nil
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }

    /// The streams of the file, in file order.
    var streams: [UnsafeMutablePointer<AVStream>] { (0..<Int(pointer.pointee.nb_streams)).compactMap { pointer.pointee.streams[$0] } }
}

/// The question an `AVIOInterruptCB` asks (its opaque pointer, unretained: the
/// ``InputFormatContext`` keeps it alive).
final class InterruptCheck {
    let shouldStop: @Sendable () -> Bool
    init(_ shouldStop: @escaping @Sendable () -> Bool) { self.shouldStop = shouldStop }
}
