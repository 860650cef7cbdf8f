import CFFmpeg

/// Owns a muxing `AVFormatContext` and its `AVIOContext` (mirrors
/// `avformat_alloc_output_context2` + `avio_open`); deinit closes the file (`avio_closep`)
/// and frees the context (`avformat_free_context`). Not thread-safe.
final class OutputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// The path being written.
    let path: String

    /// Allocates a context for container `formatName` (e.g. `"mp4"`) writing to `path`
    /// (the file is not opened yet: see ``openFile()``).
    init(formatName: String, path: String) throws(FFmpegError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, formatName, path),
                  "avformat_alloc_output_context2", context: path)
        guard let context else {
            throw FFmpegError(call: "avformat_alloc_output_context2", code: segrec_averror_enomem(), context: path)
        }
        self.pointer = context
        self.path = path
    }

    /// `avio_open(&pb, path, AVIO_FLAG_WRITE)`: creates or truncates the file.
    func openFile() throws(FFmpegError) {
        try check(avio_open(&pointer.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", context: path)
    }

    /// Whether the output file is open.
    var isFileOpen: Bool { pointer.pointee.pb != nil }

    /// `avio_closep`: flushes and closes the file; a no-op when it is not open.
    /// - Throws: ``FFmpegError`` when the pending write fails or close fails.
    func closeFile() throws(FFmpegError) {
        guard isFileOpen else { return }
        let pendingError = pointer.pointee.pb.pointee.error
        let closed = avio_closep(&pointer.pointee.pb)
        try check(pendingError, "avio_write", context: path)
        try check(closed, "avio_closep", context: path)
    }

    /// Whether the container wants codec extradata in a global header (`AVFMT_GLOBALHEADER`).
    var wantsGlobalHeader: Bool { (pointer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    deinit {
        if pointer.pointee.pb != nil { avio_closep(&pointer.pointee.pb) }
        avformat_free_context(pointer)
    }
}

/// Owns a demuxing `AVFormatContext` (mirrors `avformat_open_input`); deinit calls
/// `avformat_close_input`. Not thread-safe.
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>

    /// Opens `path` and reads its header.
    /// - Throws: ``FFmpegError`` from `avformat_open_input` (``FFmpegError/isNotFound`` when
    ///   the file is missing).
    convenience init(path: String) throws(FFmpegError) {
        try self.init(url: path, formatName: nil, options: [:])
    }

    /// Opens `url` (a path, or `"pipe:0"` for standard input) with an explicit demuxer
    /// (`av_find_input_format`, e.g. `"rawvideo"`, `"yuv4mpegpipe"`; nil to probe) and
    /// demuxer options (`video_size`, `pixel_format`, `framerate`, …) passed as an
    /// `AVDictionary`. Options the demuxer does not take are an error (EINVAL).
    init(url: String, formatName: String?, options: [String: String]) throws(FFmpegError) {
        var format: UnsafePointer<AVInputFormat>?
        if let formatName {
            guard let found = av_find_input_format(formatName) else {
                throw FFmpegError(call: "av_find_input_format", code: segrec_averror_demuxer_not_found(), context: formatName)
            }
            format = found
        }
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            try check(av_dict_set(&dictionary, key, value, 0), "av_dict_set", context: key)
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_open_input(&context, url, format, &dictionary), "avformat_open_input", context: url)
        guard let context else {
            throw FFmpegError(call: "avformat_open_input", code: segrec_averror_enomem(), context: url)
        }
        if let unused = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: unused.pointee.key)
            var closing: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&closing)
            throw FFmpegError(call: "avformat_open_input", code: segrec_averror_einval(),
                              context: "\(url): option '\(key)' is not taken by this demuxer")
        }
        self.pointer = context
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }

    /// The streams of the file, in file order.
    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(pointer.pointee.nb_streams)).compactMap { pointer.pointee.streams[$0] }
    }
}
