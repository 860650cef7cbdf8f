import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// A read-only `AVIOContext` over a descriptor that can block without end (standard input,
/// a named pipe, a character device), which a stop request can interrupt.
///
/// libavformat's own `pipe:` and `file:` protocols sit in `read(2)` until data arrives, so
/// the `AVIOInterruptCB` is never consulted while a pipe is idle. Here each read first
/// waits with `poll(2)` in slices of ``pollSlice`` milliseconds, asking `shouldStop`
/// between slices; a stop makes the read return `AVERROR_EXIT`, as libavformat's
/// interrupt callback would. End of data (the writer closed its end) is `AVERROR_EOF`.
///
/// A named pipe is opened `O_NONBLOCK`, so opening it does not wait for a writer; until a
/// writer has come, Linux reports no event on it and the reader keeps waiting, as a
/// blocking open would. The context's opaque pointer is this object (unretained: the
/// object owns the context). Not thread-safe: one demuxer reads it.
final class InputPipe {
    /// The path (`-` for standard input), for messages.
    let path: String
    /// The libavformat context (freed with this object).
    private(set) var pointer: UnsafeMutablePointer<AVIOContext>?
    /// The descriptor read.
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let shouldStop: @Sendable () -> Bool
    /// Whether a read ended because `shouldStop` said so.
    private(set) var wasInterrupted = false
    /// Bytes read from the descriptor before this object took it over, handed out first.
    private var prefix: [UInt8] = []

    /// `AVERROR_EXIT` (`FFERRTAG('E','X','I','T')`): "immediate exit was requested", what
    /// libavformat returns when its interrupt callback fires.
    static let averrorExit: Int32 = -Int32(bitPattern: segrec_mktag(0x45, 0x58, 0x49, 0x54))

    /// Milliseconds each `poll(2)` waits before the stop flag is asked again.
    static let pollSlice: Int32 = 50
    private static let bufferSize: Int32 = 64 * 1024

    /// Whether `path` names something a read can block on without end: a named pipe, a
    /// character device or a socket (`stat(2)`); false for regular files and missing paths.
    static func isPipeLike(path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    }

    /// Reads standard input (descriptor 0; it is not closed).
    /// - Throws: ``FFmpegError`` (ENOMEM).
    convenience init(standardInputStoppingWhen shouldStop: @escaping @Sendable () -> Bool) throws(FFmpegError) {
        try self.init(fd: 0, path: VideoSourceOptions.standardInput, ownsDescriptor: false, shouldStop: shouldStop)
    }

    /// Opens the named pipe or device at `path` (`O_RDONLY | O_NONBLOCK | O_CLOEXEC`).
    /// - Throws: ``FFmpegError`` with `AVERROR(errno)` from `open(2)`, or ENOMEM.
    convenience init(opening path: String, stoppingWhen shouldStop: @escaping @Sendable () -> Bool) throws(FFmpegError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FFmpegError(call: "open", code: segrec_averror_from_errno(errno), context: path) }
        do { try self.init(fd: fd, path: path, ownsDescriptor: true, shouldStop: shouldStop) } catch {
            close(fd)
            throw error
        }
    }

    /// Takes over `fd`, a named pipe or device already open at `path` (closed with this
    /// object), whose first bytes `prefix` were read already: they are handed out first.
    /// (The raw frame reader looks at a named pipe's first bytes; a pipe that is not
    /// YUV4MPEG2 goes on to libavformat through the same descriptor, so its writer never
    /// meets a pipe without a reader.)
    /// - Throws: ``FFmpegError`` (ENOMEM); `fd` is closed then.
    convenience init(adopting fd: Int32, path: String, prefix: [UInt8], stoppingWhen shouldStop: @escaping @Sendable () -> Bool) throws(FFmpegError) {
        do { try self.init(fd: fd, path: path, ownsDescriptor: true, shouldStop: shouldStop) } catch {
            close(fd)
            throw error
        }
        self.prefix = prefix
    }

    private init(fd: Int32, path: String, ownsDescriptor: Bool, shouldStop: @escaping @Sendable () -> Bool) throws(FFmpegError) {
        self.fd = fd
        self.path = path
        self.ownsDescriptor = ownsDescriptor
        self.shouldStop = shouldStop
        guard let buffer = av_malloc(Int(Self.bufferSize)) else { throw FFmpegError(call: "av_malloc", code: segrec_averror_enomem(), context: path) }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        guard
            let context = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 0, opaque,
                { opaque, data, size in Unmanaged<InputPipe>.fromOpaque(opaque!).takeUnretainedValue().read(into: data!, count: Int(size)) }, nil, nil)
        else {
            av_free(buffer)
            throw FFmpegError(call: "avio_alloc_context", code: segrec_averror_enomem(), context: path)
        }
        context.pointee.seekable = 0
        pointer = context
    }

    deinit {
        if let context = pointer {
            av_freep(&context.pointee.buffer)
            var optional: UnsafeMutablePointer<AVIOContext>? = context
            avio_context_free(&optional)
        }
        if ownsDescriptor { close(fd) }
    }

    /// `poll(2)` in slices, then `read(2)`: bytes read, `AVERROR_EOF`, `AVERROR_EXIT` on a
    /// stop, or `AVERROR(errno)`.
    private func read(into data: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        if !prefix.isEmpty {
            let n = min(count, prefix.count)
            prefix.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: n) }
            prefix.removeFirst(n)
            return Int32(n)
        }
        while true {
            if shouldStop() {
                wasInterrupted = true
                return Self.averrorExit
            }
            var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, Self.pollSlice)
            if ready < 0 {
                if errno == EINTR { continue }
                return segrec_averror_from_errno(errno)
            }
            if ready == 0 { continue }
            let got = Glibc.read(fd, data, count)
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return segrec_averror_from_errno(errno)
            }
            if got == 0 { return segrec_averror_eof() }
            return Int32(got)
        }
    }
}
