import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// An `AVIOContext` over a file descriptor that segrec opened itself (see ``SafeFile``), so
/// libavformat writes, seeks and reads only through these callbacks, never by path.
///
/// - The context's opaque pointer is this object (unretained: the object owns the context).
/// - Writes use `pwrite(2)` at the context's own position, retry short writes and EINTR,
///   and check every result: the first failure (ENOSPC, EIO, …) is kept in ``failure`` and
///   the callback returns `AVERROR(errno)`, which libavformat keeps in `pb->error` (later
///   writes are then skipped by libavformat).
/// - ``installReadBack(on:)`` lets a muxer reopen the file it writes for reading (the mov
///   muxer's `faststart` second pass calls `io_open` on its own output).
///
/// Not thread-safe: one muxer or demuxer at a time.
final class FileAVIOContext {
    /// The file's path (for messages and for matching `io_open` requests).
    let path: String
    /// The descriptor, or -1 once closed.
    private(set) var fd: Int32
    /// The libavformat context, or nil once closed.
    private(set) var pointer: UnsafeMutablePointer<AVIOContext>?
    /// The first write, seek or close failure, if any.
    private(set) var failure: SegmentWriterError?
    /// Bytes handed to the kernel so far (`pwrite` results summed).
    private(set) var bytesWritten: Int64 = 0
    /// Bytes known to be on the disk: ``bytesWritten`` at the last successful ``sync()``.
    private(set) var bytesDurable: Int64 = 0
    /// Whether ``flush()`` also makes what it handed to the kernel durable (``sync()``).
    var syncsOnFlush = false
    /// For a file made durable only once, at its end (a finished copy): each time this many
    /// bytes have been written since the last time, their writeback to the disk is started
    /// (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`, which does not wait), so the disk
    /// writes while the rest is still being written and the final ``sync()`` waits only
    /// for the tail. Advisory: its failures are ignored (``sync()``'s `fdatasync` reports
    /// what did not reach the disk). Nil (the default): the kernel's own writeback only.
    var startsWritebackEvery: Int64?
    /// Where the next started writeback begins (bytes from the start).
    private var writebackStart: Int64 = 0
    /// Writebacks started so far (``startsWritebackEvery``; for tests and diagnostics).
    private(set) var writebacksStarted = 0
    /// Room held for this (partial) file's finished copy: every write that makes the file
    /// longer first grows it (``SpaceReservation/ensure(coveringPartialOf:)``), and fails
    /// with its errno (ENOSPC) when it cannot.
    var reservation: SpaceReservation?
    /// The end of the furthest write so far (bytes from the start).
    private(set) var highWater: Int64 = 0
    /// Reads (and the size) stop here: a read-back of a file written into a reused
    /// reservation sees only what this pass wrote, not what an earlier attempt left.
    private let readLimit: Int64?
    /// Whether the file was a reservation written into from offset 0 (see
    /// ``releaseUnusedReservation()``).
    private let writesIntoReservation: Bool
    /// Test hook: a write that would make the file longer than this fails with ENOSPC
    /// after writing what fits, like a full disk.
    private let sizeLimit: Int64?
    private let writable: Bool
    private var position: Int64 = 0
    /// errno of ``failure``.
    private var failureCode: Int32 = 0

    private static let bufferSize: Int32 = 64 * 1024

    /// Creates `path` exclusively (``SafeFile/createExclusive(path:)``) and wraps it for writing.
    /// - Throws: what ``SafeFile/createExclusive(path:)`` throws, or ``FFmpegError`` (ENOMEM).
    convenience init(creating path: String, sizeLimit: Int64? = nil) throws {
        let fd = try SafeFile.createExclusive(path: path)
        do { try self.init(fd: fd, path: path, writable: true, sizeLimit: sizeLimit, readLimit: nil, intoReservation: false) } catch {
            Glibc.close(fd)
            SafeFile.remove(path: path)
            throw error
        }
    }

    /// Writes from offset 0 into the blocks of `reservation` (which hands over its
    /// descriptor): nothing is created, and writing within the reserved bytes needs no free space.
    /// - Throws: ``FFmpegError`` (ENOMEM).
    convenience init(writingInto reservation: SpaceReservation, sizeLimit: Int64? = nil) throws(FFmpegError) {
        let fd = reservation.takeDescriptor()
        do { try self.init(fd: fd, path: reservation.path, writable: true, sizeLimit: sizeLimit, readLimit: nil, intoReservation: true) } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Opens `path` for reading (``SafeFile/openForReading(path:sameFileAs:)``); with
    /// `limit`, the file reads as if it ended there.
    /// - Throws: ``FFmpegError`` from `open` / `fstat` or ENOMEM.
    convenience init(reading path: String, sameFileAs other: Int32? = nil, limit: Int64? = nil) throws(FFmpegError) {
        let fd = try SafeFile.openForReading(path: path, sameFileAs: other)
        do { try self.init(fd: fd, path: path, writable: false, sizeLimit: nil, readLimit: limit, intoReservation: false) } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private init(fd: Int32, path: String, writable: Bool, sizeLimit: Int64?, readLimit: Int64?, intoReservation: Bool) throws(FFmpegError) {
        self.fd = fd
        self.path = path
        self.writable = writable
        self.sizeLimit = sizeLimit
        self.readLimit = readLimit
        self.writesIntoReservation = intoReservation
        guard let buffer = av_malloc(Int(Self.bufferSize)) else { throw FFmpegError(call: "av_malloc", code: segrec_averror_enomem(), context: path) }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        let context = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, writable ? 1 : 0, opaque,
            writable ? nil : { opaque, data, size in Unmanaged<FileAVIOContext>.fromOpaque(opaque!).takeUnretainedValue().read(into: data!, count: Int(size)) },
            writable
                ? { opaque, data, size in Unmanaged<FileAVIOContext>.fromOpaque(opaque!).takeUnretainedValue().write(from: data!, count: Int(size)) } : nil,
            { opaque, offset, whence in Unmanaged<FileAVIOContext>.fromOpaque(opaque!).takeUnretainedValue().seek(to: offset, whence: whence) })
        guard let context else {
            av_free(buffer)
            throw FFmpegError(call: "avio_alloc_context", code: segrec_averror_enomem(), context: path)
        }
        self.pointer = context
    }

    deinit { _ = close() }

    /// Flushes libavformat's buffer to the kernel (`avio_flush`) and returns the first
    /// failure so far, if any. With ``syncsOnFlush``, bytes written since the last sync are
    /// then made durable (``sync()``).
    @discardableResult func flush() -> SegmentWriterError? {
        if let pointer, writable { avio_flush(pointer) }
        if syncsOnFlush, failure == nil, bytesWritten > bytesDurable { sync() }
        return failure
    }

    /// Flushes and makes every byte written so far durable (`fdatasync(2)`: the data and the
    /// size needed to read it back). A failure (EIO, ENOSPC on a delayed allocation) is kept
    /// in ``failure`` with operation `"fsync"`. Returns the first failure so far, if any.
    @discardableResult func sync() -> SegmentWriterError? {
        guard writable, fd >= 0 else { return failure }
        if let pointer { avio_flush(pointer) }
        guard failure == nil else { return failure }
        while fdatasync(fd) != 0 {
            if errno == EINTR { continue }
            failureCode = errno
            failure = .io(path: path, operation: "fsync", errno: failureCode)
            return failure
        }
        bytesDurable = bytesWritten
        return nil
    }

    /// After a copy written into a reservation (``init(writingInto:sizeLimit:)``) is
    /// complete: the file ends at ``highWater`` and the reserved blocks past it are released
    /// (`fallocate(PUNCH_HOLE)`, then `ftruncate`). Does nothing for other files.
    func releaseUnusedReservation() {
        guard writesIntoReservation, fd >= 0 else { return }
        var info = stat()
        let allocated = fstat(fd, &info) == 0 ? max(Int64(info.st_blocks) * 512, Int64(info.st_size)) : 0
        if allocated > highWater { _ = segrec_fallocate(fd, 1, highWater, allocated - highWater) }
        _ = ftruncate(fd, off_t(highWater))
    }

    /// Flushes, frees the context and closes the descriptor (`close(2)`'s result is
    /// checked). Idempotent. Returns the first failure of the file's life, if any.
    @discardableResult func close() -> SegmentWriterError? {
        guard let context = pointer else { return failure }
        if writable { avio_flush(context) }
        av_freep(&context.pointee.buffer)
        var optional: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&optional)
        pointer = nil
        if Glibc.close(fd) != 0, failure == nil, writable {
            failureCode = errno
            failure = .io(path: path, operation: "close", errno: failureCode)
        }
        fd = -1
        return failure
    }

    // MARK: - Callbacks

    private func write(from data: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        if failure != nil { return segrec_averror_from_errno(failureCode) }
        var done = 0
        while done < count {
            var length = count - done
            var limited = false
            if let reservation, position + Int64(length) > highWater {
                let code = reservation.ensure(coveringPartialOf: position + Int64(length))
                if code != 0 {
                    failure = .io(path: path, operation: "write", errno: code)
                    failureCode = code
                    return segrec_averror_from_errno(code)
                }
            }
            if let sizeLimit, position + Int64(length) > sizeLimit {
                length = Int(max(0, sizeLimit - position))
                limited = true
            }
            let written = length > 0 ? pwrite(fd, data + done, length, off_t(position)) : 0
            if written < 0, errno == EINTR { continue }
            if written <= 0 {
                let code = written < 0 ? errno : (limited ? ENOSPC : EIO)
                failure = .io(path: path, operation: "write", errno: code)
                failureCode = code
                return segrec_averror_from_errno(code)
            }
            done += written
            position += Int64(written)
            bytesWritten += Int64(written)
            highWater = max(highWater, position)
        }
        if let every = startsWritebackEvery, position - writebackStart >= every {
            if segrec_start_writeback(fd, writebackStart, position - writebackStart) == 0 { writebacksStarted += 1 }
            writebackStart = position
        }
        return Int32(count)
    }

    private func read(into data: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        var count = count
        if let readLimit {
            guard position < readLimit else { return segrec_averror_eof() }
            count = Int(min(Int64(count), readLimit - position))
        }
        while true {
            let got = pread(fd, data, count, off_t(position))
            if got < 0, errno == EINTR { continue }
            if got < 0 { return segrec_averror_from_errno(errno) }
            if got == 0 { return segrec_averror_eof() }
            position += Int64(got)
            return Int32(got)
        }
    }

    private func seek(to offset: Int64, whence: Int32) -> Int64 {
        var size = SafeFile.size(of: fd)
        if let readLimit, let known = size { size = min(known, readLimit) }
        if writesIntoReservation { size = highWater }
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return size ?? Int64(segrec_averror_from_errno(EIO))
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        case SEEK_END:
            guard let size else { return Int64(segrec_averror_from_errno(EIO)) }
            position = size + offset
        default: return Int64(segrec_averror_einval())
        }
        guard position >= 0 else { return Int64(segrec_averror_einval()) }
        return position
    }

    // MARK: - Read-back for the faststart pass

    /// Lets `format` (a muxer writing through this file) reopen its own output for reading:
    /// sets `opaque`, `io_open` (read-only requests for ``path`` only, opened with
    /// ``SafeFile/openForReading(path:sameFileAs:)``) and `io_close2`.
    func installReadBack(on format: UnsafeMutablePointer<AVFormatContext>) {
        format.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        format.pointee.io_open = { format, pb, url, flags, _ in
            guard let format, let pb, let url, let opaque = format.pointee.opaque else { return segrec_averror_einval() }
            let writer = Unmanaged<FileAVIOContext>.fromOpaque(opaque).takeUnretainedValue()
            guard flags & AVIO_FLAG_WRITE == 0, String(cString: url) == writer.path else { return segrec_averror_from_errno(EPERM) }
            do {
                let reader = try FileAVIOContext(reading: writer.path, sameFileAs: writer.fd, limit: writer.highWater)
                pb.pointee = reader.pointer
                _ = Unmanaged.passRetained(reader)  // released by io_close2
                return 0
            } catch { return (error as? FFmpegError)?.code ?? segrec_averror_from_errno(EIO) }
        }
        format.pointee.io_close2 = { _, pb in
            guard let pb, let opaque = pb.pointee.opaque else { return 0 }
            let reader = Unmanaged<FileAVIOContext>.fromOpaque(opaque).takeRetainedValue()
            reader.close()
            return 0
        }
    }
}
