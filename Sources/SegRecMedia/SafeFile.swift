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
/// - Read back only with `O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC` and only when it is a
///   regular file (a link, FIFO, folder or device at the name is refused without blocking),
///   and, when it is a file we are writing, only after checking that the name still leads
///   to the same inode.
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

    /// What is at `path` when it is not a regular file segrec may read, in words, or nil
    /// when it is one. `lstat(2)`, so a symbolic link is named as such and never followed.
    package static func notRegularFile(path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return kind(info.st_mode).map { "\(path) is \($0), not a regular file (segrec reads only regular files in a recording folder)" }
    }

    /// What is at `path` when it is not a folder (a symbolic link to one counts as a link),
    /// in words, or nil when it is a folder or nothing is there. `lstat(2)`.
    package static func notRegularFolder(path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { return nil }
        return "\(path) is \(kind(info.st_mode) ?? "a regular file"), not a folder"
    }

    /// "a symbolic link", "a FIFO", … for a file type other than a regular file, or nil.
    private static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a folder"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a file"
        }
    }

    /// Opens the existing regular file `path` for reading: `O_NOFOLLOW` (a symbolic link at
    /// the name is refused, never followed) and `O_NONBLOCK` (a FIFO at the name cannot
    /// block the open), then `fstat(2)` refuses anything but a regular file. When
    /// `sameFileAs` is given, the opened file must be that descriptor's inode.
    /// - Throws: ``FFmpegError`` with call `"open"` (`AVERROR(errno)`: ENOENT when missing,
    ///   ELOOP for a symbolic link, EINVAL for a FIFO, folder, socket or device, the context
    ///   saying which), or with call `"fstat"` (ESTALE) when the name now leads to another file.
    package static func openForReading(path: String, sameFileAs other: Int32? = nil) throws(FFmpegError) -> Int32 {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let detail = code == ELOOP ? "\(path) is a symbolic link, not a regular file (segrec never follows one)" : path
            throw FFmpegError(call: "open", code: segrec_averror_from_errno(code), context: detail)
        }
        var mine = stat()
        guard fstat(fd, &mine) == 0 else {
            let code = errno
            close(fd)
            throw FFmpegError(call: "fstat", code: segrec_averror_from_errno(code), context: path)
        }
        if let kind = kind(mine.st_mode) {
            close(fd)
            throw FFmpegError(call: "open", code: segrec_averror_einval(), context: "\(path) is \(kind), not a regular file")
        }
        // A regular file reads the same with or without O_NONBLOCK; clear it anyway.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if let other {
            var theirs = stat()
            guard fstat(other, &theirs) == 0, mine.st_dev == theirs.st_dev, mine.st_ino == theirs.st_ino else {
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

    /// `lstat(2)` size of the file at `path`, or nil when nothing is there.
    package static func size(path: String) -> Int64? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : nil
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

    /// Whether `path` and `other` (both followed) are the same folder (device and inode).
    package static func isSameFolder(_ path: String, as other: String) -> Bool {
        var a = stat()
        var b = stat()
        return stat(path, &a) == 0 && stat(other, &b) == 0 && (a.st_mode & S_IFMT) == S_IFDIR && a.st_dev == b.st_dev && a.st_ino == b.st_ino
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
