import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `manifest.json` (``ManifestReader`` reads it).
package enum ManifestWriter {
    /// The manifest's file name inside an output folder.
    package static let fileName = "manifest.json"

    /// Pretty-printed JSON with sorted keys.
    package static func encode(_ manifest: RecordingManifest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(manifest)
    }

    /// The temporary file a new manifest is written to before it replaces ``fileName``.
    package static let temporaryFileName = "manifest.json.tmp"

    /// Writes `directory/manifest.json` atomically and durably, in segrec's own names: the
    /// JSON goes to `manifest.json.tmp` (created `O_CREAT|O_EXCL|O_NOFOLLOW`; a regular file
    /// left there by a killed run is removed first), is `fsync`ed, renamed over
    /// `manifest.json`, and the folder is `fsync`ed. A kill at any instant leaves the old or
    /// the new manifest (and at most a leftover `manifest.json.tmp`, which
    /// ``RecordingRecovery`` uses when `manifest.json` is missing), never a file of another
    /// name; after a power cut the manifest on disk is one that was completely written.
    ///
    /// On a full disk (the temporary file cannot be written: ENOSPC or EDQUOT) and only when `inPlaceWhenFull`
    /// is set: if the new manifest fits in the blocks the existing regular file already has
    /// (so no allocation can fail half-way), it is rewritten in place and `fsync`ed: the last
    /// journal becomes the final manifest "if any space remains" (not atomic against a kill).
    /// - Throws: ``RecordingError/io(path:underlying:)`` naming the file that could not be
    ///   written (the temporary file is removed).
    package static func write(_ manifest: RecordingManifest, to directory: URL, inPlaceWhenFull: Bool = true) throws(RecordingError) {
        let url = directory.appendingPathComponent(fileName)
        let data: Data
        do { data = try encode(manifest) } catch { throw .io(path: url.path, underlying: "\(error)") }
        let code = writeTemporaryFile(data, in: directory)
        guard code == 0 else {
            // Only a full disk (or quota) falls back to the in-place rewrite.
            if inPlaceWhenFull, code == ENOSPC || code == EDQUOT, rewriteInPlace(data, at: url) { return }
            throw temporaryFileError(code, in: directory)
        }
        try commitTemporary(in: directory)
    }

    /// Writes `data` to `directory/manifest.json.tmp` and `fsync`s it (not yet renamed).
    /// - Throws: ``RecordingError/io(path:underlying:)``; the temporary file is removed.
    static func writeTemporary(_ data: Data, in directory: URL) throws(RecordingError) {
        let code = writeTemporaryFile(data, in: directory)
        guard code == 0 else { throw temporaryFileError(code, in: directory) }
    }

    /// The error for a temporary file that could not be written (`code`: its errno; EEXIST
    /// and ELOOP: something that is not a regular file has the name).
    private static func temporaryFileError(_ code: Int32, in directory: URL) -> RecordingError {
        let path = directory.appendingPathComponent(temporaryFileName).path
        if code == EEXIST || code == ELOOP {
            return .io(
                path: path,
                underlying: "cannot create the manifest's temporary file: something that is not a regular file has the name (segrec writes only its own files)")
        }
        return .io(path: path, underlying: "writing the manifest failed: \(String(cString: strerror(code)))")
    }

    /// ``writeTemporary(_:in:)``'s work; returns 0 or the errno of the step that failed
    /// (the file is then removed).
    private static func writeTemporaryFile(_ data: Data, in directory: URL) -> Int32 {
        let path = directory.appendingPathComponent(temporaryFileName).path
        var fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0, errno == EEXIST, OutputDirectory.isRegularFile(URL(fileURLWithPath: path)) {
            // Left by a run killed while writing it: ours, and never the manifest itself.
            unlink(path)
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { return errno }
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 {
                    failure = n < 0 ? errno : EIO
                    return
                }
                done += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure != 0 { unlink(path) }
        return failure
    }

    /// Renames `manifest.json.tmp` over `manifest.json` and `fsync`s the folder.
    /// - Throws: ``RecordingError/io(path:underlying:)``; the temporary file is removed.
    static func commitTemporary(in directory: URL) throws(RecordingError) {
        let temporary = directory.appendingPathComponent(temporaryFileName).path
        let url = directory.appendingPathComponent(fileName).path
        guard rename(temporary, url) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(path: url, underlying: "renaming \(temporaryFileName) over it failed: \(String(cString: strerror(code)))")
        }
        let code = SafeFile.syncDirectory(path: directory.path)
        guard code == 0 else { throw .io(path: directory.path, underlying: "fsync of the folder failed: \(String(cString: strerror(code)))") }
    }

    /// After a kill: when `manifest.json` is missing and `manifest.json.tmp` holds a complete
    /// manifest, it becomes `manifest.json`. A leftover beside an existing `manifest.json` is
    /// left for the next write to replace (nothing is changed before recovery knows it can
    /// finish). Returns whether anything changed.
    /// - Throws: ``RecordingError/io(path:underlying:)`` when the rename fails.
    @discardableResult static func settleLeftoverTemporary(in directory: URL) throws(RecordingError) -> Bool {
        let temporary = directory.appendingPathComponent(temporaryFileName)
        guard OutputDirectory.isRegularFile(temporary) else { return false }
        let url = directory.appendingPathComponent(fileName)
        var info = stat()
        if lstat(url.path, &info) == 0 { return false }
        // Complete means it reads as a manifest; a half-written one is left alone.
        guard (try? ManifestReader.read(file: temporary)) != nil else { return false }
        try commitTemporary(in: directory)
        return true
    }

    /// Overwrites the regular file at `url` with `data` when its allocated blocks hold it.
    private static func rewriteInPlace(_ data: Data, at url: URL) -> Bool {
        let fd = open(url.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, data.count <= Int(info.st_blocks) * 512 else { return false }
        let written = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return written == data.count && ftruncate(fd, off_t(data.count)) == 0 && fsync(fd) == 0
    }
}
