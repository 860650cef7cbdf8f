import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `manifest.json` (``ManifestReader`` reads it).
public enum ManifestWriter {
    /// The manifest's file name inside an output folder.
    public static let fileName = "manifest.json"

    /// Pretty-printed JSON with sorted keys.
    public static func encode(_ manifest: RecordingManifest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(manifest)
    }

    /// Writes `directory/manifest.json` atomically: Foundation writes a temporary file in
    /// the same folder and renames it over the target, so a reader never sees half a manifest.
    ///
    /// On a full disk the temporary file cannot be written; then, only if the new manifest
    /// fits in the blocks the existing regular file already has (so no allocation can fail
    /// half-way), it is rewritten in place: the last journal becomes the final manifest
    /// "if any space remains".
    /// - Throws: ``RecordingError/io(path:underlying:)``.
    public static func write(_ manifest: RecordingManifest, to directory: URL) throws(RecordingError) {
        let url = directory.appendingPathComponent(fileName)
        let data: Data
        do { data = try encode(manifest) } catch { throw .io(path: url.path, underlying: "\(error)") }
        do { try data.write(to: url, options: .atomic) } catch {
            if rewriteInPlace(data, at: url) { return }
            throw .io(path: url.path, underlying: "\(error.localizedDescription)")
        }
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
