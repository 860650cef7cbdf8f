import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// Disk space held, while a segment is recorded, for the finished copy it becomes at close:
/// the blocks of the segment's `.tmp` file (`segment-NNN.mp4.tmp`), reserved with
/// `fallocate(FALLOC_FL_KEEP_SIZE)` (its size stays 0) ahead of every write that makes the
/// `.partial` file longer (``FileAVIOContext``), so closing, salvaging after a full disk, and
/// `segrec recover` write the finished file into blocks already held and never need free
/// space the size of the segment. The cost is that an open segment holds about twice its
/// size on disk; a full disk is met one reservation earlier (the write that would outgrow
/// the reservation fails with ENOSPC, and everything before it is kept and finished).
///
/// On a file system without `fallocate` (EOPNOTSUPP, e.g. FUSE) nothing is reserved and
/// closing needs the space as before.
package final class SpaceReservation {
    /// The reserved file (`url` + `.tmp`).
    let path: String
    /// Its descriptor (write-only), or -1 once closed or handed over.
    private(set) var fd: Int32
    /// Bytes reserved from offset 0.
    private(set) var reserved: Int64
    /// False once the file system refused `fallocate` as unsupported.
    private(set) var isSupported = true

    /// Reservations grow ahead of the partial file by 1/8 of what it needs, at least
    /// ``minimumStep`` and at most ``step`` bytes, so that not every write asks the file
    /// system; and only when the disk also has room for the partial file to grow into that
    /// reservation (else exactly what it needs): a reservation never takes the room the
    /// partial file itself needs, so a disk with more free space never keeps fewer frames
    /// (before: a first step of 1 MiB whatever the partial's size kept 50 frames on 1.1 MB
    /// free and 5 on 1.2 MB).
    static let step: Int64 = 1 << 20
    /// The least step ahead (64 KiB).
    static let minimumStep: Int64 = 64 * 1024

    /// Bytes the finished copy of a `size`-byte partial file may need: the samples, plus
    /// 1/16 for the `moov` (about 16 bytes a sample, which the fragments' `moof`s also
    /// hold) and 32 KiB for the header and the manifest's next rewrite.
    static func needed(forPartialOf size: Int64) -> Int64 { size + size / 16 + 32 * 1024 }

    /// Creates `path` exclusively (``SafeFile/createExclusive(path:)``) with nothing reserved.
    /// - Throws: what ``SafeFile/createExclusive(path:)`` throws.
    init(creating path: String) throws {
        self.path = path
        fd = try SafeFile.createExclusive(path: path)
        reserved = 0
    }

    /// Reuses the reservation (or an interrupted copy) left at `path` by a recording that
    /// died: a regular file with one name (never a second name of a finished file) owned by
    /// this user, opened `O_WRONLY|O_NOFOLLOW|O_NONBLOCK` (a FIFO there never blocks; it is
    /// refused); its allocated blocks count as reserved. Nil when there is none.
    init?(existing path: String) {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1, info.st_uid == geteuid() else {
            close(fd)
            return nil
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.path = path
        self.fd = fd
        reserved = Int64(info.st_blocks) * 512
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Makes sure the finished copy of a partial file of `size` bytes fits in the
    /// reservation. Returns 0, or the errno (ENOSPC) that the write making the partial
    /// file that long must fail with.
    func ensure(coveringPartialOf size: Int64) -> Int32 {
        let need = Self.needed(forPartialOf: size)
        guard isSupported, fd >= 0, need > reserved else { return 0 }
        let ahead = min(Self.step, max(Self.minimumStep, need / 8))
        let generous = (need + ahead + Self.minimumStep - 1) / Self.minimumStep * Self.minimumStep
        // The partial size the generous reservation covers (needed(p) ≤ generous), which the
        // disk must also hold beside it.
        let covered = (generous - 32 * 1024) * 16 / 17
        let room = Self.freeBytes(fd)
        let targets = room.map { $0 >= (generous - reserved) + (covered - size) + Self.minimumStep } ?? false ? [generous, need] : [need]
        for target in targets where target > reserved {
            if segrec_fallocate(fd, 0, 0, target) == 0 {
                reserved = target
                return 0
            }
            let code = errno
            if code == EOPNOTSUPP || code == ENOSYS || code == EINVAL {
                isSupported = false
                return 0
            }
            if code != ENOSPC, code != EINTR { return code }
        }
        return ENOSPC
    }

    /// Bytes an unprivileged writer may still allocate on `fd`'s file system (`fstatvfs`), nil when unknown.
    private static func freeBytes(_ fd: Int32) -> Int64? {
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Hands the descriptor to the writer of the finished copy (which then owns it).
    func takeDescriptor() -> Int32 {
        let taken = fd
        fd = -1
        return taken
    }

    /// Removes the reserved file (a segment abandoned with nothing to keep).
    func remove() {
        if fd >= 0 { close(fd) }
        fd = -1
        SafeFile.remove(path: path)
    }
}
