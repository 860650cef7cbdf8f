// RawByteInput: the bytes of a raw frame stream read with read(2) from a file, a named pipe or standard input, straight into the caller's memory; pipes wait in poll(2) slices that a stop request ends.
import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes of a raw frame stream: a regular file, a named pipe or a device, or standard
/// input, read with `read(2)` into the caller's memory (a picture's planes), never through
/// a buffer of its own. Header lines are read a few bytes at a time; bytes read past a
/// line's end (at most a line's length) are kept and handed out first.
///
/// A pipe (standard input, a named pipe, a device: ``InputPipe/isPipeLike(path:)``) is
/// opened `O_NONBLOCK` and each read first waits with `poll(2)` in slices of
/// ``InputPipe/pollSlice`` milliseconds, asking `shouldStop` between slices, as
/// ``InputPipe`` does for libavformat: a stop ends a read that waits for data. A regular
/// file is read as it is (its reads end). Not thread-safe: one reader.
final class RawByteInput {
    /// Why a read ended early.
    enum Failure: Error {
        /// A stop was requested while a read waited on a pipe.
        case interrupted
        /// `read(2)` failed (`strerror`).
        case system(String)
    }

    /// Bytes handed out so far (the stream position).
    private(set) var position: Int64 = 0
    /// Whether the end of the data has been met (the writer closed a pipe, the end of a file).
    private(set) var reachedEnd = false
    /// The file's size when it is a regular file (nil for pipes).
    let fileSize: Int64?
    /// Whether reads wait in `poll(2)` slices (a pipe or device).
    let isPipe: Bool

    private let fd: Int32
    private var ownsDescriptor: Bool
    private let shouldStop: () -> Bool
    /// Bytes read past the end of a line, handed out before any new read.
    private var pending: [UInt8] = []

    /// Opens `fileSystemPath` (nil: standard input, not closed at the end; like ``InputPipe``
    /// it is left blocking and read only once `poll(2)` says it holds data).
    /// - Throws: `errno` of `open(2)` as its `strerror` text.
    init(fileSystemPath: String?, isPipe: Bool, shouldStop: @escaping () -> Bool) throws(Failure) {
        self.isPipe = isPipe
        self.shouldStop = shouldStop
        if let path = fileSystemPath {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | (isPipe ? O_NONBLOCK : 0))
            guard descriptor >= 0 else { throw .system(String(cString: strerror(errno))) }
            (fd, ownsDescriptor) = (descriptor, true)
        } else {
            (fd, ownsDescriptor) = (0, false)
        }
        // Standard input has no size even when it is a file: libavformat reads it as `pipe:0`.
        var status = stat()
        fileSize = fileSystemPath != nil && !isPipe && fstat(fd, &status) == 0 ? Int64(status.st_size) : nil
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Puts `bytes`, just read, back in front of the input: the next read hands them out again.
    func unread(_ bytes: [UInt8]) {
        pending.insert(contentsOf: bytes, at: 0)
        position -= Int64(bytes.count)
    }

    /// An open descriptor and the bytes read from it so far, for another reader.
    struct HandOver {
        let fd: Int32
        let bytes: [UInt8]
    }

    /// Gives up the descriptor (no longer closed here) with `read` (the bytes read so far)
    /// followed by those read past a line's end.
    func handOver(read: [UInt8]) -> HandOver {
        ownsDescriptor = false
        return HandOver(fd: fd, bytes: read + pending)
    }

    /// Reads up to `count` bytes into `destination`, as many as the input holds: fewer only
    /// at its end (``reachedEnd``).
    /// - Throws: ``Failure``; the bytes read before it are counted in ``position``.
    func read(into destination: UnsafeMutableRawPointer, count: Int) throws(Failure) -> Int {
        var done = 0
        if !pending.isEmpty {
            done = min(count, pending.count)
            pending.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress!, byteCount: done) }
            pending.removeFirst(done)
            position += Int64(done)
        }
        while done < count && !reachedEnd {
            let got = try readOnce(into: destination + done, count: count - done)
            if got == 0 {
                reachedEnd = true
            } else {
                done += got
                position += Int64(got)
            }
        }
        return done
    }

    /// ``read(into:count:)`` into the start of `array` (at least `count` bytes long).
    func read(into array: inout [UInt8], count: Int) throws(Failure) -> Int {
        precondition(array.count >= count)
        let result = array.withUnsafeMutableBytes { buffer in Result { () throws(Failure) -> Int in try read(into: buffer.baseAddress!, count: count) } }
        return try result.get()
    }

    /// A header line: the bytes up to and including the next `\n`, at most `maximum`; fewer
    /// without a `\n` only at the end of the input. `firstRead` bytes are asked for at once
    /// (the shortest well-formed line), then one at a time, so that a line never costs more
    /// than a few system calls and at most `firstRead` bytes go past its end.
    func readLine(maximum: Int, firstRead: Int) throws(Failure) -> [UInt8] {
        var line: [UInt8] = []
        while line.count < maximum {
            let want = line.isEmpty ? min(firstRead, maximum) : 1
            var chunk = [UInt8](repeating: 0, count: want)
            let got = try read(into: &chunk, count: want)
            chunk.removeLast(want - got)
            if let newline = chunk.firstIndex(of: 0x0A) {
                let after = chunk[(newline + 1)...]
                pending.insert(contentsOf: after, at: 0)
                position -= Int64(after.count)
                line += chunk[...newline]
                return line
            }
            line += chunk
            if got < want { return line }
        }
        return line
    }

    /// One `read(2)` (after `poll(2)` slices for a pipe): bytes read, 0 at the end.
    private func readOnce(into destination: UnsafeMutableRawPointer, count: Int) throws(Failure) -> Int {
        while true {
            if isPipe {
                if shouldStop() { throw .interrupted }
                var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&request, 1, InputPipe.pollSlice)
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw .system(String(cString: strerror(errno)))
                }
                if ready == 0 { continue }
            }
            let got = Glibc.read(fd, destination, count)
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .system(String(cString: strerror(errno)))
            }
            return got
        }
    }
}
