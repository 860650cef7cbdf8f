import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock(2)` on the output folder itself, held by the recording process for as
/// long as it records into it, and `OUTPUT/recording.lock`, which names the holder's process
/// id.
///
/// The lock is on the folder's open descriptor, not on a name: deleting or replacing
/// `recording.lock` (or renaming the folder) does not release it, so a second recording
/// into the folder is refused for as long as the first runs. The lock file is locked too,
/// as older segrec versions expect. A second `segrec record` (with or without `--force`) or `segrec recover` on the same
/// folder finds the lock held and stops with the holder's pid. The kernel drops the lock
/// when the holder dies (even by `kill -9`), so a folder left by a crash is never locked; the
/// stale file is harmless and is removed by the next recording or by `recover`.
/// The file is opened without following symlinks (`O_NOFOLLOW`) or waiting on a FIFO
/// (`O_NONBLOCK`), and used only when it is a regular file with one link: a hard link
/// planted under the name would otherwise have its other name's content replaced by the pid.
package final class RecordingLock: Sendable {
    /// The lock file's name inside an output folder.
    package static let fileName = "recording.lock"

    /// The lock file.
    package let url: URL
    /// The lock file's and the folder's descriptors (the folder's holds the lock).
    private let descriptors: Mutex<(file: Int32, folder: Int32)>

    /// Takes the lock of `folder`, creating the lock file if needed, and writes this
    /// process's id into it.
    /// - Throws: ``RecordingError/locked(path:pid:)`` when another open file holds it;
    ///   ``RecordingError/cannotCreateOutput(path:detail:)`` when the file cannot be opened
    ///   (e.g. a symlink or folder in its place) or is not a regular file with one link.
    package init(folder: URL) throws(RecordingError) {
        url = folder.appendingPathComponent(Self.fileName)
        let folderFD = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { throw .cannotCreateOutput(path: folder.path, detail: String(cString: strerror(errno))) }
        guard Self.lock(folderFD, LOCK_EX) else {
            close(folderFD)
            throw .locked(path: url.path, pid: Self.readPID(at: url.path))
        }
        do throws(RecordingError) { descriptors = Mutex((file: try Self.openLockFile(url), folder: folderFD)) } catch {
            close(folderFD)
            throw error
        }
    }

    /// Opens, checks, locks and fills the lock file at `url`. - Returns: its descriptor.
    private static func openLockFile(_ url: URL) throws(RecordingError) -> Int32 {
        let fd = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let detail = errno == ELOOP ? "is a symbolic link; allowed: a lock file segrec made (remove it)" : String(cString: strerror(errno))
            throw .cannotCreateOutput(path: url.path, detail: detail)
        }
        if let problem = problem(fd) {
            close(fd)
            throw .cannotCreateOutput(path: url.path, detail: "\(problem); allowed: a lock file segrec made (remove it)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = readPID(fd)
            close(fd)
            throw .locked(path: url.path, pid: holder)
        }
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return fd
    }

    /// Whether another process holds the lock of `folder` now, and its pid when known.
    /// Never creates the file. - Returns: nil when nobody holds it.
    package static func holder(of folder: URL) -> Int32?? {
        let path = folder.appendingPathComponent(fileName).path
        let folderFD = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            defer { close(folderFD) }
            guard lock(folderFD, LOCK_SH) else { return .some(readPID(at: path)) }
            flock(folderFD, LOCK_UN)
        }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard problem(fd) == nil else { return nil }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0 else {
            flock(fd, LOCK_UN)
            return nil
        }
        return .some(readPID(fd))
    }

    /// The open folder's descriptor while the lock is held (-1 after ``release()``).
    package var folderDescriptor: Int32 { descriptors.withLock { $0.folder } }

    /// Releases the lock and removes the file (at the end of a recording), through the
    /// folder's descriptor: a folder renamed or replaced meanwhile loses nothing of its own.
    package func release() {
        descriptors.withLock { fds in
            guard fds.folder >= 0 else { return }
            unlinkat(fds.folder, Self.fileName, 0)
            close(fds.file)
            close(fds.folder)
            fds = (-1, -1)
        }
    }

    deinit {
        descriptors.withLock { fds in
            if fds.folder >= 0 {
                close(fds.file)
                close(fds.folder)
            }
        }
    }

    /// Why the open file `fd` is not a lock file segrec may use, or nil: it must be a
    /// regular file with exactly one name.
    private static func problem(_ fd: Int32) -> String? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return String(cString: strerror(errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "is not a regular file" }
        guard info.st_nlink == 1 else { return "has \(info.st_nlink) names (a hard link to a file elsewhere)" }
        return nil
    }

    /// `flock(fd, operation | LOCK_NB)`, tried again for up to 0.2 s while another holds
    /// it. A lock is held by an open file description, which a process spawned by another
    /// thread shares from its fork to its exec (`O_CLOEXEC` closes it only then): a
    /// recording that just released its folder may still appear to hold it for that
    /// moment; a recording in progress holds it throughout. Returns whether it was taken.
    private static func lock(_ fd: Int32, _ operation: Int32) -> Bool {
        for attempt in 0..<20 {
            if flock(fd, operation | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK, attempt < 19 else { return false }
            usleep(10_000)
        }
        return false
    }

    /// The process id written in the lock file at `path`, if it is there and readable.
    private static func readPID(at path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard problem(fd) == nil else { return nil }
        return readPID(fd)
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count - 1, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
