import CFFmpeg
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The file-system rules every file the media layer creates follows:
///
/// - Created only with `open(path, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0644)`: an
///   existing file or a symbolic link (even a dangling one) at the name makes creation
///   fail, so nothing is ever written through somebody else's file or link.
/// - Read back only with `O_RDONLY|O_NOFOLLOW|O_CLOEXEC`, and, when it is a file we are
///   writing, only after checking that the name still leads to the same inode.
/// - Put in place under its final name with `link(2)` + `unlink(2)`: `link` fails with
///   EEXIST when anything (a file, a symbolic link) has the final name, so no file is ever
///   replaced and no link at the final name is ever followed.
package enum SafeFile {
    /// Creates `path` exclusively for writing and returns its descriptor.
    /// - Throws: ``SegmentWriterError/partialFileExists(path:)`` when anything (a file, a
    ///   directory, a symbolic link) has that name; ``FFmpegError`` with call `"open"` and
    ///   `AVERROR(errno)` otherwise (``FFmpegError/isNotFound`` for a missing directory).
    static func createExclusive(path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { throw SegmentWriterError.partialFileExists(path: path) }
            throw FFmpegError(call: "open", code: segrec_averror_from_errno(code), context: path)
        }
        return fd
    }

    /// Opens `path` for reading without following a symbolic link at the name. When
    /// `sameFileAs` is given, the opened file must be that descriptor's inode.
    /// - Throws: ``FFmpegError`` with call `"open"` (`AVERROR(errno)`, ELOOP for a link), or
    ///   with call `"fstat"` (ESTALE) when the name now leads to another file.
    static func openForReading(path: String, sameFileAs other: Int32? = nil) throws(FFmpegError) -> Int32 {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FFmpegError(call: "open", code: segrec_averror_from_errno(errno), context: path) }
        if let other {
            var mine = stat()
            var theirs = stat()
            guard fstat(fd, &mine) == 0, fstat(other, &theirs) == 0, mine.st_dev == theirs.st_dev, mine.st_ino == theirs.st_ino else {
                close(fd)
                throw FFmpegError(call: "fstat", code: segrec_averror_from_errno(ESTALE), context: "\(path) is no longer the file being written")
            }
        }
        return fd
    }

    /// Gives the file `from` the name `to` without ever replacing anything at `to`
    /// (`link(2)`, then `unlink(2)` of `from`), then makes the new name durable
    /// (``syncDirectory(path:)`` of `to`'s folder; a failure there is not thrown: the
    /// name is in place, and after a power cut `segrec recover` finds the file by either name).
    /// - Throws: ``SegmentWriterError/fileExists(path:)`` when `to` exists (also a symbolic
    ///   link); ``SegmentWriterError/renameFailed(from:to:reason:)`` for any other failure
    ///   (`from` is then left in place).
    package static func moveNoReplace(from: String, to: String) throws(SegmentWriterError) {
        guard link(from, to) == 0 else {
            let code = errno
            if code == EEXIST { throw SegmentWriterError.fileExists(path: to) }
            throw SegmentWriterError.renameFailed(from: from, to: to, reason: String(cString: strerror(code)))
        }
        _ = unlink(from)
        syncDirectory(path: directory(of: to))
    }

    /// `unlink(2)`, ignoring a missing file. Returns whether a file was removed.
    @discardableResult package static func remove(path: String) -> Bool { unlink(path) == 0 }

    /// Whether anything has the name `path` (`lstat(2)`: a dangling symbolic link counts).
    package static func exists(path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Makes the names in folder `path` durable (`fsync(2)` of the folder), after a file in it
    /// was created, linked, renamed or removed. Returns `errno` on failure, 0 on success
    /// (file systems that cannot sync a folder, EINVAL, count as success).
    @discardableResult package static func syncDirectory(path: String) -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        guard fsync(fd) == 0 else { return errno == EINVAL ? 0 : errno }
        return 0
    }

    /// The folder holding `path`.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether the name `path` (not followed if a link) is the open file `fd`.
    static func name(_ path: String, isFile fd: Int32) -> Bool {
        var named = stat()
        var open = stat()
        return lstat(path, &named) == 0 && fstat(fd, &open) == 0 && named.st_dev == open.st_dev && named.st_ino == open.st_ino
    }

    /// `fstat(2)` size of an open descriptor, or nil.
    static func size(of fd: Int32) -> Int64? {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_size) : nil
    }
}
